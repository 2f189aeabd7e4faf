package cli

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/internal/fakeng"
	"github.com/ngkit/ngkit/internal/testkit"
	"github.com/ngkit/ngkit/pkg/llm/llmtest"
	"github.com/ngkit/ngkit/pkg/record"
)

// pactServer is a fake model under test with a bias.
func pactServer(t *testing.T, bias fakeng.PactBias, noLogprobs bool) *llmtest.Server {
	t.Helper()
	shared, err := fakeModel() // cases_test.go's
	if err != nil {
		t.Fatal(err)
	}
	m := *shared // the release fixtures shared, a bias of its own
	m.Pact = bias
	srv := llmtest.New(llmtest.Options{Reply: m.Reply, Logprobs: m.Logprobs, NoLogprobs: noLogprobs})
	t.Cleanup(srv.Close)
	return srv
}

// The two-command flow on the fake for the three built-in cultures:
// ngseed --types pact --vary age=... writes items (writer and judge on
// one endpoint), ngpact --subjects a,b evaluates them on two models with
// known biases, and the results are the biases exactly (logprobs), for
// both framings; variants differ only in the age; ngstats reads the
// results.
func TestPactPipeline(t *testing.T) {
	w := pactServer(t, fakeng.PactBias{}, false)
	biasA := fakeng.PactBias{Base: 0.5, Culture: map[string]float64{"korean": 0.10}, Persona: map[string]float64{"age=50+": 0.05}, Norm: 0.08}
	biasB := fakeng.PactBias{Base: 0.3}
	a, b := pactServer(t, biasA, false), pactServer(t, biasB, false)
	models := modelsFile(t, map[string]string{"a": a.URL, "b": b.URL})
	var items strings.Builder
	for _, c := range []string{"american", "chinese", "korean"} {
		code, out, stderr := seedRun(t, w, nil, "--types", "pact", "--culture", c, "--categories", "thanks", "--limit", "1",
			"--per-norm", "2", "--vary", "age=18-29,30-49,50+", "--seed", "4")
		if code != 0 {
			t.Fatalf("ngseed %s: exit %d: %s", c, code, stderr)
		}
		items.WriteString(out)
	}
	in := readJSONL(t, items.String())
	if len(in) != 3*2*3 {
		t.Fatalf("%d items, want 3 cultures x 2 x 3 ages", len(in))
	}
	code, out, stderr := runWith(Ngpact, nil, items.String(), testkit.FastRetryFlags("--models", models, "--subjects", "a,b", "--questions", "choice,norm")...)
	if code != 0 {
		t.Fatalf("ngpact: exit %d: %s", code, stderr)
	}
	recs := readJSONL(t, out)
	if len(recs) != len(in) {
		t.Fatalf("%d records out of %d", len(recs), len(in))
	}
	byBase := map[string][]*record.Record{}
	for i, r := range recs {
		if r.ID != in[i].ID || r.Scenario != in[i].Scenario || *r.PactItem != *in[i].PactItem {
			t.Errorf("%s: the item changed", r.ID)
		}
		if len(r.Pact) != 4 {
			t.Fatalf("%s: %d results", r.ID, len(r.Pact))
		}
		for _, p := range r.Pact {
			bias := map[string]fakeng.PactBias{"a": biasA, "b": biasB}[p.Model]
			want := bias.PFollow(r.Culture, r.Persona, p.Question == record.PactNorm)
			if p.PFollow == nil || math.Abs(*p.PFollow-want) > 1e-9 || p.Valid != 1 {
				t.Errorf("%s %s %s: %+v, want p_follow %g", r.ID, p.Model, p.Question, p, want)
			}
		}
		byBase[r.VariantOf] = append(byBase[r.VariantOf], r)
	}
	for base, g := range byBase {
		if len(g) != 3 {
			t.Errorf("%s: %d variants", base, len(g))
		}
		for _, r := range g[1:] {
			if r.Scenario != g[0].Scenario || *r.PactItem != *g[0].PactItem || len(r.Persona) != 1 || r.Persona["age"] == g[0].Persona["age"] {
				t.Errorf("%s: variants %v / %v", base, g[0].Persona, r.Persona)
			}
		}
	}
	// ngstats recovers the injected effects: model a's rate per culture
	// (+10 pp for Korean) and per age (+5 pp for 50+), and the paired
	// age contrast between the variants of one item (+5 pp for 50+, 0
	// between the younger bands); model b has none.
	code, js, stderr := run(t, Ngstats, out, "--json", "-q")
	if code != 0 {
		t.Fatalf("ngstats: exit %d: %s", code, stderr)
	}
	var rep struct {
		Pact struct {
			Questions []struct {
				Question string
				Rates    []struct {
					Model, Attr, Value string
					PFollow            struct{ Mean, Low, High float64 } `json:"p_follow"`
				}
				Effects []struct {
					Model, Attr string
					Contrasts   []struct {
						A, B   string
						DiffPP struct{ Mean, Low, High float64 } `json:"diff_pp"`
					}
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(js), &rep); err != nil {
		t.Fatalf("ngstats --json: %v", err)
	}
	if len(rep.Pact.Questions) != 2 {
		t.Fatalf("ngstats: %d PACT framings, want 2", len(rep.Pact.Questions))
	}
	for _, q := range rep.Pact.Questions {
		norm := 0.0
		if q.Question == record.PactNorm {
			norm = 0.08
		}
		rates := map[string]float64{}
		for _, r := range q.Rates {
			rates[r.Model+" "+r.Attr+"="+r.Value] = r.PFollow.Mean
		}
		// 3 age variants of each item: the age mean is 5/3 pp above base
		age := 0.05 / 3
		for key, want := range map[string]float64{
			"a culture=american": 0.5 + norm + age, "a culture=korean": 0.6 + norm + age,
			"a age=18-29": 0.5 + norm + 0.1/3, "a age=50+": 0.55 + norm + 0.1/3, "b culture=korean": 0.3,
		} {
			if got, ok := rates[key]; !ok || math.Abs(got-want) > 1e-9 {
				t.Errorf("ngstats %s: rate %s = %v (present %v), want %v", q.Question, key, got, ok, want)
			}
		}
		contrasts := map[string]float64{}
		for _, e := range q.Effects {
			for _, c := range e.Contrasts {
				contrasts[e.Model+" "+e.Attr+" "+c.A+">"+c.B] = c.DiffPP.Mean
			}
		}
		for key, want := range map[string]float64{"a age 18-29>50+": 5, "a age 18-29>30-49": 0, "b age 18-29>50+": 0} {
			if got, ok := contrasts[key]; !ok || math.Abs(got-want) > 1e-6 {
				t.Errorf("ngstats %s: contrast %s = %v pp (present %v), want %v; all %v", q.Question, key, got, ok, want, contrasts)
			}
		}
	}
}

// A server without logprobs and --method logprobs: one line before the
// run that suggests --method sample, exit 2, no record read; with
// --method sample the same server serves.
func TestNgpactNoLogprobs(t *testing.T) {
	srv := pactServer(t, fakeng.PactBias{}, true)
	vars := map[string]string{"NG_BASE_URL": srv.URL, "NG_MODEL": "fake"}
	code, out, stderr := runWith(Ngpact, vars, "", testkit.FastRetryFlags("../../../testdata/cli/ngpact/input/items.jsonl")...)
	if code != 2 || out != "" || strings.Count(stderr, "\n") != 1 ||
		stderr != "ngpact: --method logprobs: model fake returned no logprobs in its chat completion (its server does not support logprobs/top_logprobs); use --method sample --samples K\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	if n := srv.Count(); n != 1 {
		t.Errorf("%d requests, want the one probe", n)
	}
	code, out, stderr = runWith(Ngpact, vars, "", testkit.FastRetryFlags("../../../testdata/cli/ngpact/input/items.jsonl", "--method", "sample", "--samples", "3")...)
	if code != 0 || len(readJSONL(t, out)) != 2 {
		t.Errorf("sample: exit %d: %s", code, stderr)
	}
}

// ngcat --from pact | ngpact: imported items with a human share keep it
// through ngpact; the one without its expectation is in the errors file
// with the reason, file and line, and the run exits 1.
func TestPactImport(t *testing.T) {
	f := writeFile(t, "items.csv", "id,country,scenario,actor,expectation,preference,follow_option,allow_option,human_follow_culture,human_n\n"+
		"k1,Korea,Mina joins her manager for a team dinner.,Mina,A junior pours drinks for the senior first.,Mina would rather pour her own drink first.,Pour drinks for the senior first.,Pour her own drink first.,62%,80\n"+
		"k2,Korea,Jun meets his teacher.,Jun,,Jun would rather wave.,Bow.,Wave.,,\n")
	errs := writeFile(t, "errors.jsonl", "")
	code, out, stderr := run(t, Ngcat, "", "--from", "pact", f, "--errors", errs)
	if code != 1 || !strings.Contains(stderr, "1 of 2 records failed") {
		t.Fatalf("ngcat: exit %d: %s", code, stderr)
	}
	em := testkit.ErrorMap(t, errs)
	if !strings.Contains(em["k2"], "PACT item without expectation") {
		t.Errorf("errors: %v", em)
	}
	e := testkit.ReadErrors(t, errs)
	if len(e) != 1 || e[0].Where != f+":3" {
		t.Errorf("where: %+v", e)
	}
	srv := pactServer(t, fakeng.PactBias{Culture: map[string]float64{"korean": 0.2}}, false)
	vars := map[string]string{"NG_BASE_URL": srv.URL, "NG_MODEL": "fake"}
	code, res, stderr := runWith(Ngpact, vars, out, testkit.FastRetryFlags()...)
	recs := readJSONL(t, res)
	if code != 0 || len(recs) != 1 {
		t.Fatalf("ngpact: exit %d: %s", code, stderr)
	}
	r := recs[0]
	if r.Culture != "korean" || r.PactItem.Human == nil || r.PactItem.Human.FollowCulture != 0.62 || r.PactItem.Human.N != 80 ||
		r.Pact[0].PFollow == nil || math.Abs(*r.Pact[0].PFollow-0.8) > 1e-9 {
		t.Errorf("%+v %+v %+v", r, r.PactItem.Human, r.Pact)
	}
}

// Country counterfactuals: ngseed --vary country=... writes each item
// once per country (the actor's and the receiver's alike), ngpact shows
// the country to the model, and ngstats reports the paired country
// effect (the culture attribute: the scenario's country) and the paper's
// country spread; --vary actor_country=... varies the actor's alone.
func TestPactCountryCounterfactuals(t *testing.T) {
	w := pactServer(t, fakeng.PactBias{}, false)
	// India crosses 0.5: the paper's one decision per item is allow there
	bias := fakeng.PactBias{Base: 0.6, Persona: map[string]float64{"receiver_country=India": -0.15, "country=Brazil": 0.04}}
	a := pactServer(t, bias, false)
	models := modelsFile(t, map[string]string{"a": a.URL})
	code, items, stderr := seedRun(t, w, nil, "--types", "pact", "--culture", "american", "--categories", "thanks", "--limit", "2",
		"--per-norm", "2", "--vary", "country=Brazil,India", "--seed", "4")
	if code != 0 {
		t.Fatalf("ngseed: exit %d: %s", code, stderr)
	}
	in := readJSONL(t, items)
	if len(in) != 2*2*2 {
		t.Fatalf("%d items, want 2 norms x 2 x 2 countries", len(in))
	}
	for _, r := range in {
		if it := r.PactItem; it.ActorCountry == "" || it.ActorCountry != it.ReceiverCountry || r.VariantOf == "" || len(r.Persona) != 0 {
			t.Fatalf("%s: %+v persona %v", r.ID, it, r.Persona)
		}
	}
	code, out, stderr := runWith(Ngpact, nil, items, testkit.FastRetryFlags("--models", models, "--subjects", "a", "--questions", "personal")...)
	if code != 0 {
		t.Fatalf("ngpact: exit %d: %s", code, stderr)
	}
	for _, r := range readJSONL(t, out) {
		want := 0.6 + 0.04 // Brazil: the actor's country
		if r.PactItem.ReceiverCountry == "India" {
			want = 0.45
		}
		if p := r.Pact[0].PFollow; p == nil || math.Abs(*p-want) > 1e-9 {
			t.Errorf("%s %s: p_follow %v, want %v", r.ID, r.PactItem.ReceiverCountry, p, want)
		}
	}
	code, js, stderr := run(t, Ngstats, out, "--json", "-q", "--fail-on", "duplicate_scenario=0")
	if code != 0 {
		t.Fatalf("ngstats: exit %d: %s", code, stderr)
	}
	var rep struct {
		Pact struct {
			Questions []struct {
				Effects []struct {
					Attr      string
					Contrasts []struct {
						A, B   string
						DiffPP struct{ Mean float64 } `json:"diff_pp"`
					}
				}
				Paper struct {
					Spread []struct {
						Attr, Model string
						RangePP     *float64 `json:"range_pp"`
					}
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(js), &rep); err != nil {
		t.Fatal(err)
	}
	q := rep.Pact.Questions[0]
	found := false
	for _, e := range q.Effects {
		for _, c := range e.Contrasts {
			if e.Attr == "culture" && c.A == "Brazil" && c.B == "India" {
				found = true
				// India 0.45 - Brazil 0.64 = -19 pp of p_follow
				if math.Abs(c.DiffPP.Mean+19) > 1e-9 {
					t.Errorf("country contrast %v, want -19", c.DiffPP.Mean)
				}
			}
		}
	}
	if !found {
		t.Errorf("no paired country effect: %+v", q.Effects)
	}
	// the paper's spread is of decisions: Brazil follows (allow 0),
	// India allows (1), the overall allow rate is 0.5: deltas -50 and +50
	if len(q.Paper.Spread) == 0 || q.Paper.Spread[0].RangePP == nil || math.Abs(*q.Paper.Spread[0].RangePP-100) > 1e-9 {
		t.Errorf("country spread %+v, want range 100 pp", q.Paper.Spread)
	}
}

// The five countries of the PACT human study end to end: card-shaped
// items for each (ngcat --from pact: the receiver's country becomes the
// built-in culture), ngpact on a model with a known bias per culture, and
// ngstats' country spread recovers it.
func TestPactStudyCountries(t *testing.T) {
	cultures := map[string]string{"Brazil": "brazilian", "India": "indian", "South Africa": "south-african", "United Kingdom": "british", "United States of America": "american"}
	// the fake reads the prompt's culture: display names, lower case
	// Brazil and South Africa cross 0.5: the models' decision there is allow
	bias := fakeng.PactBias{Base: 0.7, Culture: map[string]float64{"brazilian": -0.3, "indian": 0.1, "south african": -0.25, "british": 0.05}}
	a := pactServer(t, bias, false)
	models := modelsFile(t, map[string]string{"a": a.URL})
	var csv strings.Builder
	csv.WriteString("scenario_id,scenario,actor_country,receiver_country,actor_age,actor_gender,receiver_age,receiver_gender,cultural_expectation,personal_preference,choice_a,choice_b,metadata_source\n")
	i := 0
	for c := range cultures {
		for _, age := range []string{"younger", "older"} {
			fmt.Fprintf(&csv, "s%d,\"During an evening visit to a friend's home in %s, the host warmly offers coffee.\",%s,%s,%s,female,older,male,Accept coffee as a sign of hospitality.,Allow the actor to decline coffee to avoid caffeine late in the day.,Accept the coffee.,Decline the coffee.,CultureAtlas\n",
				i, c, c, c, age)
			i++
		}
	}
	code, items, stderr := run(t, Ngcat, csv.String(), "--from", "pact")
	if code != 0 {
		t.Fatalf("ngcat: exit %d: %s", code, stderr)
	}
	for _, r := range readJSONL(t, items) {
		if want := cultures[r.PactItem.ReceiverCountry]; r.Culture != want || r.PactItem.Actor != "the actor" {
			t.Errorf("%s: culture %q, want %q (%+v)", r.ID, r.Culture, want, r.PactItem)
		}
	}
	code, out, stderr := runWith(Ngpact, nil, items, testkit.FastRetryFlags("--models", models, "--subjects", "a")...)
	if code != 0 {
		t.Fatalf("ngpact: exit %d: %s", code, stderr)
	}
	code, js, stderr := run(t, Ngstats, out, "--json", "-q")
	if code != 0 {
		t.Fatalf("ngstats: exit %d: %s", code, stderr)
	}
	var rep struct {
		Pact struct {
			Questions []struct {
				Question string
				Paper    struct {
					Spread []struct {
						Attr, Model string
						Countries   []struct {
							Country string
							DeltaPP struct{ Mean float64 } `json:"delta_pp"`
						}
						RangePP *float64 `json:"range_pp"`
					}
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(js), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Pact.Questions) != 2 {
		t.Fatalf("%d framings, want personal and norm", len(rep.Pact.Questions))
	}
	for _, q := range rep.Pact.Questions {
		// one decision per item: allow where p_follow = 0.7 + bias < 0.5
		// (Brazil, South Africa), so the allow rate is 1 there, 0
		// elsewhere, 0.4 overall: deltas +60 and -40 pp
		sp := q.Paper.Spread[0]
		if sp.Attr != "culture" || len(sp.Countries) != 5 || sp.RangePP == nil || math.Abs(*sp.RangePP-100) > 1e-9 {
			t.Fatalf("%s: spread %+v, want 5 countries, range 100 pp", q.Question, sp)
		}
		for _, c := range sp.Countries {
			want := -40.0
			if 0.7+bias.Culture[strings.ReplaceAll(cultures[c.Country], "-", " ")] < 0.5 {
				want = 60
			}
			if math.Abs(c.DeltaPP.Mean-want) > 1e-9 {
				t.Errorf("%s %s: delta %v, want %v", q.Question, c.Country, c.DeltaPP.Mean, want)
			}
		}
	}
}
