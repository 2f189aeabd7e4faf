package stats

import (
	"bytes"
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/filters/stats/internal/statstest"
	"github.com/ngkit/ngkit/filters/stats/pactstats"
	"github.com/ngkit/ngkit/pkg/record"
)

// pactAwkwardFile is the PACT run with every case where a careless
// reading of the authors' scripts goes wrong: distributions (logprobs,
// K samples, ties at 0.5), invalid answers, a family (mistral) that only
// answered items without receiver attributes, persona variants of 1 to 4
// per item, human answers with blanks and without a demographic group, a
// country in no region, items of two datasets (CultureAtlas, NormAD). Both the
// Go test below and scripts/pact-authors.sh (the authors' own Python)
// read it; `go test ./filters/stats -run TestPactPaperAwkward -args
// -write-pact-fixture` writes it again.
const pactAwkwardFile = "../../testdata/pact/awkward.jsonl"

var writePactFixture = flag.Bool("write-pact-fixture", false, "write "+pactAwkwardFile)

var awkwardModels = []struct {
	name    string
	method  string
	k       int  // samples; 0 for logprobs
	base    bool // asked as a base model
	onlyNoR bool // answers only the items without receiver attributes
	shift   float64
}{
	{"llama-3-8b-base", "logprobs", 0, true, false, 0.1},
	{"llama-3-8b-instruct", "sample", 4, false, false, -0.1},
	{"qwen-2.5-7b-instruct", "logprobs", 0, false, false, -0.2},
	{"mistral-7b-instruct", "sample", 1, false, true, 0},
}

func awkwardRecords() []*record.Record {
	rng := rand.New(rand.NewPCG(40, 2026))
	countries := []string{"Brazil", "India", "South Africa", "United Kingdom", "Japan", "Mexico", "Egypt", "Russia", "Australia", "Atlantis"}
	respondents := []string{"United States of America", "India", "Brazil", "United Kingdom", "South Africa"}
	pick := func(a, b string) string {
		if rng.IntN(2) == 0 {
			return a
		}
		return b
	}
	var recs, personaRecs []*record.Record
	for i := range 60 {
		country := countries[i%len(countries)]
		noReceiver := i%5 == 4
		// the human study: 3 to 7 respondents, some answers blank, at
		// least one answer per framing
		var answers []record.HumanAnswer
		truth := 0.3 + 0.5*rng.Float64()
		for r := range 3 + rng.IntN(5) {
			a := record.HumanAnswer{Respondent: fmt.Sprintf("r%d", rng.IntN(25)), Country: respondents[(i+r)%len(respondents)],
				Demo: []string{"young woman", "young man", "older woman", "older man", ""}[rng.IntN(5)]} // "": no demographic group
			// For the regressions (no draws of their own, so that the
			// other figures stay as they were): the gender as the demo
			// says, blank without one (the design's "NA" level), and one
			// age band for all, a factor of one level (get_dummies gives
			// it no column); the blank receiver attributes of every fifth
			// item make receiver age and gender collinear.
			a.Age = "18+"
			switch {
			case strings.HasSuffix(a.Demo, "woman"):
				a.Gender = "female"
			case strings.HasSuffix(a.Demo, "man"):
				a.Gender = "male"
			}
			for _, c := range []*string{&a.Personal, &a.Norm} {
				switch {
				case r > 0 && rng.Float64() < 0.2:
				case rng.Float64() < truth:
					*c = record.PactFollow
				default:
					*c = record.PactAllow
				}
			}
			answers = append(answers, a)
		}
		human := &record.HumanShare{Answers: answers, N: len(answers)}
		var pf, nf, pn, nn float64
		for _, a := range answers {
			for _, x := range []struct {
				c      string
				f, all *float64
			}{{a.Personal, &pf, &pn}, {a.Norm, &nf, &nn}} {
				if x.c != "" {
					*x.all++
					if x.c == record.PactFollow {
						*x.f++
					}
				}
			}
		}
		human.Personal, human.Norm = statstest.FP(pf/pn), statstest.FP(nf/nn)
		human.FollowCulture = (pf + nf) / (pn + nn)
		base := fmt.Sprintf("it-%02d", i)
		for v := range 1 + i%4 {
			id, variantOf := base, ""
			if v > 0 {
				id, variantOf = fmt.Sprintf("%s-v%d", base, v), base
			}
			it := &record.PactItem{Actor: "the actor", Receiver: "the receiver", ActorCountry: country, ReceiverCountry: country,
				ActorAge: pick("younger", "older"), ActorGender: pick("female", "male"),
				Expectation: "e", Preference: "p", FollowOption: "f", AllowOption: "a", Human: human,
				MetadataSource: []string{"NormAD", "CultureAtlas", "CultureAtlas"}[i%3]} // two datasets, uneven
			if !noReceiver {
				it.ReceiverAge, it.ReceiverGender = pick("younger", "older"), pick("female", "male")
			}
			rec := &record.Record{ID: id, VariantOf: variantOf, Culture: strings.ReplaceAll(strings.ToLower(country), " ", "-"), DialogueType: "pact",
				Scenario: fmt.Sprintf("Scenario %d: %s.", i, awkwardScenes[i%len(awkwardScenes)]), PactItem: it}
			for _, m := range awkwardModels {
				if m.onlyNoR && !noReceiver {
					continue
				}
				for _, q := range []string{record.PactPersonal, record.PactNorm} {
					follow := math.Min(1, math.Max(0, truth-m.shift+0.25*rng.NormFloat64()))
					res := record.PactResult{Model: m.name, Question: q, Method: m.method, Samples: max(m.k, 1), Base: m.base}
					switch {
					case rng.Float64() < 0.1: // no valid answer
						res.Error = "no option named"
					case m.k == 0:
						p := math.Round(follow*1000) / 1000
						if rng.Float64() < 0.08 {
							p = 0.5 // a tie: the authors' rule makes it culture
						}
						res.PFollow, res.Valid = statstest.FP(p), 1
					default:
						k := 0
						for range m.k {
							if rng.Float64() < follow {
								k++
							}
						}
						res.PFollow, res.Valid = statstest.FP(float64(k)/float64(m.k)), m.k
					}
					rec.Pact = append(rec.Pact, res)
				}
			}
			recs = append(recs, rec)
		}
		if i%3 == 0 {
			personaRecs = append(personaRecs, awkwardPersonaRecords(recs[len(recs)-1-i%4], truth, i)...)
		}
	}
	return append(recs, personaRecs...)
}

// awkwardScenes give the items every theme of the authors' keywords, and
// none (S5:50-57).
var awkwardScenes = []string{"a dinner at a colleague's home", "greeting an elder at a wedding", "a meeting at the office",
	"waiting in a queue for the bus", "borrowing a phone charger", "choosing a gift for a friend", "a walk by the river"}

// awkwardPersonas are the persona-prompted run's personas: the study's
// respondent subgroups, a country no respondent is from (Japan: no
// humans), and personas missing their demo or their country.
var awkwardPersonas = [][2]string{
	{"India", "young woman"}, {"India", "older man"}, {"Brazil", "young man"}, {"Brazil", "older woman"},
	{"United Kingdom", "young woman"}, {"South Africa", "older man"}, {"United States of America", "young man"},
	{"United States of America", "older woman"}, {"Japan", "young woman"}, {"India", ""}, {"", "older man"},
}

// awkwardPersonaRecords are item i's persona-prompted records (S5:728-741):
// the subgroups of its respondents and 1 to 3 drawn personas, each answered by some of the instruct
// models (uneven rows per persona), half of them carrying the item's
// human answers; a stream of numbers of their own, so that the
// persona-free records stay as they were.
func awkwardPersonaRecords(base *record.Record, truth float64, i int) []*record.Record {
	rng := rand.New(rand.NewPCG(728, uint64(i)))
	// the item's own respondent subgroups, then 1 to 3 drawn personas
	var personas [][2]string
	for _, a := range base.PactItem.Human.Answers {
		if p := [2]string{a.Country, a.Demo}; !slices.Contains(personas, p) {
			personas = append(personas, p)
		}
	}
	for _, k := range rng.Perm(len(awkwardPersonas))[:1+rng.IntN(3)] {
		if !slices.Contains(personas, awkwardPersonas[k]) {
			personas = append(personas, awkwardPersonas[k])
		}
	}
	var out []*record.Record
	for j, pc := range personas {
		it := *base.PactItem
		it.PersonaCountry, it.PersonaDemo = pc[0], pc[1]
		if j%2 == 1 {
			it.Human = nil // the answers are on the item's other records
		}
		rec := &record.Record{ID: fmt.Sprintf("%s-p%d", base.ID, j), VariantOf: cmp.Or(base.VariantOf, base.ID), Culture: base.Culture, DialogueType: "pact",
			Scenario: base.Scenario, PactItem: &it}
		for _, m := range awkwardModels[1:] {
			if rng.IntN(4) == 0 {
				continue
			}
			for _, q := range []string{record.PactPersonal, record.PactNorm} {
				follow := math.Min(1, math.Max(0, truth-m.shift+0.3*rng.NormFloat64()))
				res := record.PactResult{Model: m.name, Question: q, Method: m.method, Samples: max(m.k, 1)}
				switch {
				case rng.Float64() < 0.1:
					res.Error = "no option named"
				case m.k == 0:
					p := math.Round(follow*1000) / 1000
					if rng.Float64() < 0.08 {
						p = 0.5
					}
					res.PFollow, res.Valid = statstest.FP(p), 1
				default:
					n := 0
					for range m.k {
						if rng.Float64() < follow {
							n++
						}
					}
					res.PFollow, res.Valid = statstest.FP(float64(n)/float64(m.k)), m.k
				}
				rec.Pact = append(rec.Pact, res)
			}
		}
		out = append(out, rec)
	}
	return out
}

func readAwkward(t *testing.T) []*record.Record {
	t.Helper()
	if *writePactFixture {
		var buf bytes.Buffer
		for _, r := range awkwardRecords() {
			b, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			buf.Write(append(b, '\n'))
		}
		if err := os.WriteFile(pactAwkwardFile, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(pactAwkwardFile)
	if err != nil {
		t.Fatal(err)
	}
	var recs []*record.Record
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var r record.Record
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, &r)
	}
	return recs
}

// awkRow is one model's answer to one record in one framing, as the
// authors' prediction CSVs have it: choice "A", "B" or "" (no valid
// answer), the scenario item it belongs to and that item's human share.
type awkRow struct {
	model, framing, id, item, choice string
	h                                float64
	attrs                            map[string]string
}

func awkRows(recs []*record.Record) []awkRow {
	var rows []awkRow
	for _, r := range recs {
		if awkPersona(r) {
			continue // the persona-prompted run: its own figure
		}
		item := r.ID
		if r.VariantOf != "" {
			item = r.VariantOf
		}
		it := r.PactItem
		attrs := map[string]string{"actor_age": it.ActorAge, "actor_gender": it.ActorGender, "receiver_age": it.ReceiverAge, "receiver_gender": it.ReceiverGender,
			"dataset": it.MetadataSource}
		for _, res := range r.Pact {
			c := ""
			if res.PFollow != nil {
				c = "B"
				if *res.PFollow >= 0.5 {
					c = "A"
				}
			}
			h := *it.Human.Personal
			if res.Question == record.PactNorm {
				h = *it.Human.Norm
			}
			rows = append(rows, awkRow{res.Model, res.Question, r.ID, item, c, h, attrs})
		}
	}
	return rows
}

func awkPersona(r *record.Record) bool {
	return r.PactItem.PersonaCountry != "" || r.PactItem.PersonaDemo != ""
}

func indMaxAgree(r float64) float64 { return math.Max(r, 1-r) }

// indAwkAlignment: summarize_alignment and model_uncertainty (S5:188-249)
// over one model's rows of one framing.
func indAwkAlignment(rows []awkRow) (majority, mae, gap, r, lowAgree float64, items int) {
	type item struct {
		h      float64
		sum, n float64
	}
	byItem := map[string]*item{}
	var order []string
	var maeN float64
	for _, x := range rows {
		hm := "B"
		if x.h >= 0.5 {
			hm = "A"
		}
		if x.choice == hm {
			majority++
		}
		if byItem[x.item] == nil {
			byItem[x.item] = &item{h: x.h}
			order = append(order, x.item)
		}
		if x.choice == "" {
			continue
		}
		c := 0.0
		if x.choice == "A" {
			c = 1
		}
		mae += math.Abs(c - x.h)
		maeN++
		byItem[x.item].sum += c
		byItem[x.item].n++
	}
	majority /= float64(len(rows))
	mae /= maeN
	var hx, mx []float64
	for _, k := range order {
		it := byItem[k]
		if it.n == 0 {
			continue
		}
		rate := it.sum / it.n
		gap += 100 * (rate - it.h)
		hx, mx = append(hx, indMaxAgree(it.h)), append(mx, indMaxAgree(rate))
	}
	if len(hx) == 0 { // no valid row: no gap, no uncertainty
		return majority, mae, math.NaN(), math.NaN(), math.NaN(), len(order)
	}
	gap /= float64(len(hx))
	sorted := slices.Sorted(slices.Values(hx))
	med := sorted[len(sorted)/2]
	if len(sorted)%2 == 0 {
		med = (sorted[len(sorted)/2-1] + med) / 2
	}
	var low []float64
	for i := range hx {
		if hx[i] <= med {
			low = append(low, mx[i])
		}
	}
	mh, mm := indMean(hx), indMean(mx)
	var sxy, sxx, syy float64
	for i := range hx {
		sxy += (hx[i] - mh) * (mx[i] - mm)
		sxx += (hx[i] - mh) * (hx[i] - mh)
		syy += (mx[i] - mm) * (mx[i] - mm)
	}
	return majority, mae, gap, sxy / math.Sqrt(sxx*syy), indMean(low), len(order)
}

// indAwkDemographic: demographic_delta_table and
// averaged_demographic_delta_table (S4D:110-152, 210-223) over the
// instruct models' rows of one framing: per model and role, the allow
// share of plus minus minus in pp, each share the mean over the datasets
// of the share in each (a role without both values is absent); per role
// the mean over the models, then the mean of the roles.
func indAwkDemographic(rows []awkRow, models []string, factor string) float64 {
	plus, minus := "younger", "older"
	if factor == "gender" {
		plus, minus = "female", "male"
	}
	var roleMeans []float64
	for _, role := range []string{"actor_", "receiver_"} {
		var ds []float64
		for _, m := range models {
			allow := map[[2]string][2]float64{} // dataset, value -> allow, valid
			for _, x := range rows {
				if x.model != m || x.choice == "" {
					continue
				}
				k := [2]string{x.attrs["dataset"], x.attrs[role+factor]}
				a := allow[k]
				a[1]++
				if x.choice == "B" {
					a[0]++
				}
				allow[k] = a
			}
			// aggregate_group_rates: per dataset, then the mean over datasets
			rate := func(v string) (float64, bool) {
				var rs []float64
				for k, a := range allow {
					if k[1] == v {
						rs = append(rs, a[0]/a[1])
					}
				}
				return indMean(rs), len(rs) > 0
			}
			rp, okp := rate(plus)
			rm, okm := rate(minus)
			if okp && okm {
				ds = append(ds, 100*(rp-rm))
			}
		}
		if len(ds) > 0 {
			roleMeans = append(roleMeans, indMean(ds))
		}
	}
	return indMean(roleMeans)
}

// TestPactPaperAwkward: on the run with every awkward case (distributions,
// invalid answers, a family lacking a role, persona variants, blank human
// answers), the paper's figures equal an independent implementation of
// the authors' code to 1e-9; scripts/pact-authors.sh checks the same
// file against the authors' own Python.
func TestPactPaperAwkward(t *testing.T) {
	recs := readAwkward(t)
	rows := awkRows(recs)
	// the file has the cases it is for
	var invalid, ties, fractional int
	variants := map[string]int{}
	for _, r := range recs {
		for _, res := range r.Pact {
			switch {
			case res.PFollow == nil:
				invalid++
			case *res.PFollow == 0.5:
				ties++
			case *res.PFollow != 0 && *res.PFollow != 1:
				fractional++
			}
		}
		variants[cmp.Or(r.VariantOf, r.ID)]++
	}
	if invalid < 20 || ties < 10 || fractional < 100 || len(slices.Compact(slices.Sorted(maps.Values(variants)))) < 4 {
		t.Fatalf("the fixture lacks its cases: %d invalid, %d ties, %d fractional, variants %v", invalid, ties, fractional, variants)
	}
	r := collect(t, recs...)
	const tol = 1e-9
	instruct := []string{"llama-3-8b-instruct", "mistral-7b-instruct", "qwen-2.5-7b-instruct"}
	for _, q := range r.Pact.Questions {
		var qrows []awkRow
		for _, x := range rows {
			if x.framing == q.Question {
				qrows = append(qrows, x)
			}
		}
		for _, a := range q.Paper.Alignment {
			var mr []awkRow
			for _, x := range qrows {
				if x.model == a.Model {
					mr = append(mr, x)
				}
			}
			maj, mae, gap, corr, low, items := indAwkAlignment(mr)
			if a.Rows != int64(len(mr)) || a.Items != int64(items) || !approx(a.Majority.Mean, maj, tol) || !approx(a.MAE.Mean, mae, tol) ||
				!approx(a.SignedGapPP.Mean, gap, tol) || a.Uncertainty == nil || !approx(*a.Uncertainty, corr, tol) ||
				a.ModelAgreementLowHuman == nil || !approx(*a.ModelAgreementLowHuman, low, tol) {
				t.Errorf("%s %s: %+v, independent majority %v MAE %v gap %v r %v low %v items %d rows %d", q.Question, a.Model, a, maj, mae, gap, corr, low, items, len(mr))
			}
		}
		if len(q.Paper.Alignment) != 4 {
			t.Errorf("%s: alignment of %d models", q.Question, len(q.Paper.Alignment))
		}
		for _, factor := range []string{"age", "gender"} {
			want := indAwkDemographic(qrows, instruct, factor)
			found := false
			for _, d := range q.Paper.Demographics {
				if d.Model == pactstats.Average && d.Factor == factor && d.Role == "both" {
					found = true
					if !approx(d.DeltaPP.Mean, want, tol) {
						t.Errorf("%s %s (average) both: %v, independent %v", q.Question, factor, d.DeltaPP.Mean, want)
					}
				}
			}
			if !found {
				t.Errorf("%s %s: no (average) both", q.Question, factor)
			}
		}
	}
	// the closest subgroups (S5:758-778): each model's rows against each
	// (country, demo) subgroup's rate on the item, over its answers in
	// the framing; answers without a country or demo are no subgroup's
	subRate := map[[4]string][2]float64{} // item, framing, country, demo -> follow, answered
	seenItem := map[string]bool{}
	for _, rec := range recs {
		k := cmp.Or(rec.VariantOf, rec.ID)
		if seenItem[k] {
			continue
		}
		seenItem[k] = true
		for _, a := range rec.PactItem.Human.Answers {
			for framing, c := range map[string]string{record.PactPersonal: a.Personal, record.PactNorm: a.Norm} {
				if c == "" || a.Demo == "" || a.Country == "" {
					continue
				}
				key := [4]string{k, framing, a.Country, a.Demo}
				v := subRate[key]
				v[1]++
				if c == record.PactFollow {
					v[0]++
				}
				subRate[key] = v
			}
		}
	}
	nsub := 0
	for _, q := range r.Pact.Questions {
		for _, sg := range q.Paper.Subgroups {
			nsub++
			var sr []awkRow
			for _, x := range rows {
				if v, ok := subRate[[4]string{x.item, q.Question, sg.Country, sg.Demo}]; ok && x.model == sg.Model && x.framing == q.Question {
					x.h = v[0] / v[1]
					sr = append(sr, x)
				}
			}
			maj, mae, gap, _, _, items := indAwkAlignment(sr)
			if sg.Rows != int64(len(sr)) || sg.Items != int64(items) || !approx(sg.Majority.Mean, maj, tol) ||
				(sg.MAE.N > 0 && !approx(sg.MAE.Mean, mae, tol)) || (sg.SignedGapPP.N > 0 && !approx(sg.SignedGapPP.Mean, gap, tol)) {
				t.Errorf("subgroup %s %+v, independent majority %v MAE %v gap %v items %d rows %d", q.Question, sg, maj, mae, gap, items, len(sr))
			}
		}
	}
	if nsub < 100 {
		t.Errorf("%d subgroup rows", nsub)
	}
	// the persona-subgroup alignment (S5:728-741): each persona-prompted
	// row joined to the subgroup of its persona_country and persona_demo
	// on its item and framing (inner: no subgroup, no row; a missing
	// field matches none), summarised per framing, model and persona
	prows := map[[4]string][]awkRow{} // framing, model, country, demo
	var presults, pincomplete, punmatched int
	for _, rec := range recs {
		if !awkPersona(rec) {
			continue
		}
		pc, pd := rec.PactItem.PersonaCountry, rec.PactItem.PersonaDemo
		for _, res := range rec.Pact {
			presults++
			c := ""
			if res.PFollow != nil {
				c = "B"
				if *res.PFollow >= 0.5 {
					c = "A"
				}
			}
			v, ok := subRate[[4]string{rec.VariantOf, res.Question, pc, pd}]
			switch {
			case pc == "" || pd == "":
				pincomplete++
			case !ok:
				punmatched++
			default:
				k := [4]string{res.Question, res.Model, pc, pd}
				prows[k] = append(prows[k], awkRow{model: res.Model, framing: res.Question, id: rec.ID, item: rec.VariantOf, choice: c, h: v[0] / v[1]})
			}
		}
	}
	run := r.Pact.Persona
	if run == nil || run.NotComputable != "" || len(run.Alignment) != len(prows) || run.Results != int64(presults) ||
		run.Incomplete != int64(pincomplete) || run.Unmatched != int64(punmatched) {
		t.Fatalf("persona run %+v, independent: %d rows, %d results, %d incomplete, %d unmatched", run, len(prows), presults, pincomplete, punmatched)
	}
	// the cases the fixture is for: missing fields, a persona of no
	// subgroup (Japan), uneven rows per persona
	counts := map[int]bool{}
	for _, pr := range prows {
		counts[len(pr)] = true
	}
	if pincomplete == 0 || punmatched == 0 || len(counts) < 4 {
		t.Errorf("the persona run lacks its cases: %d incomplete, %d unmatched, row counts %v", pincomplete, punmatched, counts)
	}
	// the run's uncertainty alignment (S5:222-249, 751-756): every persona
	// row of an item pooled, against the human rate of all its answers
	pooled := map[[2]string][]awkRow{}
	itemShare := map[string]*record.HumanShare{}
	for _, rec := range recs {
		if !awkPersona(rec) && rec.VariantOf == "" {
			itemShare[rec.ID] = rec.PactItem.Human
		}
	}
	for _, rec := range recs {
		if !awkPersona(rec) {
			continue
		}
		for _, res := range rec.Pact {
			c := ""
			if res.PFollow != nil {
				c = "B"
				if *res.PFollow >= 0.5 {
					c = "A"
				}
			}
			h := *itemShare[rec.VariantOf].Personal
			if res.Question == record.PactNorm {
				h = *itemShare[rec.VariantOf].Norm
			}
			k := [2]string{res.Question, res.Model}
			pooled[k] = append(pooled[k], awkRow{model: res.Model, framing: res.Question, id: rec.ID, item: rec.VariantOf, choice: c, h: h})
		}
	}
	if len(run.Uncertainty) != len(pooled) || len(run.UncertaintyAverages) != 3 {
		t.Errorf("persona uncertainty: %d rows, %d averages; independent %d rows", len(run.Uncertainty), len(run.UncertaintyAverages), len(pooled))
	}
	avg, agreeAvg := map[string][]float64{}, map[string][]float64{}
	for _, u := range run.Uncertainty {
		agreeAvg[u.Model] = append(agreeAvg[u.Model], *u.ModelAgreement)
		_, _, _, corr, low, _ := indAwkAlignment(pooled[[2]string{u.Question, u.Model}])
		avg[u.Model] = append(avg[u.Model], corr)
		if u.Uncertainty == nil || !approx(*u.Uncertainty, corr, tol) || u.ModelAgreementLowHuman == nil || !approx(*u.ModelAgreementLowHuman, low, tol) {
			t.Errorf("persona uncertainty %+v, independent r %v low %v", u, corr, low)
		}
	}
	for _, u := range run.UncertaintyAverages {
		if u.Uncertainty == nil || !approx(*u.Uncertainty, indMean(avg[u.Model]), tol) || u.ModelAgreement == nil || !approx(*u.ModelAgreement, indMean(agreeAvg[u.Model]), tol) {
			t.Errorf("persona uncertainty average %+v, independent %v", u, indMean(avg[u.Model]))
		}
	}
	for _, pa := range run.Alignment {
		if pa.Country == "Japan" {
			t.Errorf("a persona with no humans has a row: %+v", pa)
		}
		pr := prows[[4]string{pa.Question, pa.Model, pa.Country, pa.Demo}]
		maj, mae, gap, _, _, items := indAwkAlignment(pr)
		if pa.Rows != int64(len(pr)) || pa.Items != int64(items) || !approx(pa.Majority.Mean, maj, tol) ||
			(pa.MAE.N > 0 && !approx(pa.MAE.Mean, mae, tol)) || (pa.MAE.N == 0 && !math.IsNaN(mae)) ||
			(pa.SignedGapPP.N > 0 && !approx(pa.SignedGapPP.Mean, gap, tol)) {
			t.Errorf("persona %+v, independent majority %v MAE %v gap %v items %d rows %d", pa, maj, mae, gap, items, len(pr))
		}
	}
	// the human study: every answer row of each scenario item once
	var judgments int64
	seen := map[string]bool{}
	for _, rec := range recs {
		if k := cmp.Or(rec.VariantOf, rec.ID); !seen[k] {
			seen[k] = true
			judgments += int64(len(rec.PactItem.Human.Answers))
		}
	}
	for _, g := range r.Pact.HumanStudy {
		if g.Grouping == "overall" && (g.Judgments != judgments || g.Items != int64(len(seen)) || g.Answered >= g.Judgments) {
			t.Errorf("%s overall: %+v, want %d judgments of %d items, some blank", g.Framing, g, judgments, len(seen))
		}
	}
}

// TestPactReportIsStable: the same records give the same report, to the
// last digit (a cluster interval summed its groups in map order, so its
// bounds changed from run to run, and a report from Parquet differed from
// the one from JSONL).
func TestPactReportIsStable(t *testing.T) {
	recs := readAwkward(t)
	var first []byte
	for i := range 8 {
		b, err := json.Marshal(collect(t, recs...).Pact)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = b
		} else if !bytes.Equal(b, first) {
			t.Fatalf("run %d differs from the first", i)
		}
	}
}
