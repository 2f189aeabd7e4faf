package seed_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/filters/seed"
	"github.com/ngkit/ngkit/internal/fakeng"
	"github.com/ngkit/ngkit/internal/testkit"
	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/llm/llmtest"
	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/persona"
	"github.com/ngkit/ngkit/pkg/record"
)

// firstNorms is the first built-in norm of each culture.
func firstNorms() []*record.Record {
	var out []*record.Record
	for _, c := range []string{"american", "chinese", "korean"} {
		out = append(out, seed.NormRecord(normbank.Norms(c, []string{"greeting"})[0]))
	}
	return out
}

func fakeServer(t *testing.T, o llmtest.Options) (*llmtest.Server, *llm.Client) {
	t.Helper()
	m, err := fakeng.New()
	if err != nil {
		t.Fatal(err)
	}
	if o.Reply == nil {
		o.Reply = m.Reply
	}
	srv := llmtest.New(o)
	t.Cleanup(srv.Close)
	return srv, testkit.Client(t, testkit.LLMConfig(srv.URL, "ngseed"))
}

// --types pact on the fake for the three built-in cultures, with --vary:
// each norm gives --per-norm items in its culture's language, each once
// per age band, the variants alike but for the age and sharing
// variant_of; every item passes record.CheckPact and has the writer's and
// the judge's calls in gen.
func TestPactItems(t *testing.T) {
	srv, c := fakeServer(t, llmtest.Options{})
	vary, _ := persona.ParseVary("age=18-29,50+")
	sampler, err := persona.NewSampler(nil, []persona.Vary{vary}, 1)
	if err != nil {
		t.Fatal(err)
	}
	st, err := seed.New(c, seed.Options{Types: []string{seed.TypePact}, PerNorm: 2, Judge: c, Personas: sampler})
	if err != nil {
		t.Fatal(err)
	}
	res := testkit.Run(t, st, firstNorms(), 3)
	if len(res.Errors) > 0 || len(res.Out) != 3*2*2 {
		t.Fatalf("%d items, errors %v", len(res.Out), res.Errors)
	}
	groups := map[string][]*record.Record{}
	ids := map[string]bool{}
	for _, r := range res.Out {
		if err := record.CheckPact(r); err != nil {
			t.Errorf("%s: %v", r.ID, err)
		}
		if r.Lang != normbank.CultureLang(r.Culture) || r.DialogueType != "" || r.NormID == "" || r.VariantOf == "" || ids[r.ID] {
			t.Errorf("%s: lang %s type %q norm %q variant_of %q (dup id %v)", r.ID, r.Lang, r.DialogueType, r.NormID, r.VariantOf, ids[r.ID])
		}
		ids[r.ID] = true
		if len(r.Gen) != 2 || r.Gen[0].Call != "pact" || r.Gen[1].Call != "pact_judge" {
			t.Errorf("%s: gen %+v", r.ID, r.Gen)
		}
		groups[r.VariantOf] = append(groups[r.VariantOf], r)
	}
	if len(groups) != 6 {
		t.Fatalf("%d items, want 6 (3 norms x 2)", len(groups))
	}
	for base, g := range groups {
		if len(g) != 2 || g[0].Persona["age"] != "18-29" || g[1].Persona["age"] != "50+" {
			t.Fatalf("%s: variants %v", base, g)
		}
		a, b := *g[0], *g[1]
		if a.Scenario != b.Scenario || *a.PactItem != *b.PactItem {
			t.Errorf("%s: the variants differ beyond the age: %+v / %+v", base, a.PactItem, b.PactItem)
		}
		a.ID, a.Persona, b.ID, b.Persona = "", nil, "", nil
		a.PactItem, b.PactItem, a.Gen, b.Gen = nil, nil, nil, nil
		if len(a.Extra) != len(b.Extra) || a.Scenario != b.Scenario || a.Culture != b.Culture || a.NormID != b.NormID {
			t.Errorf("%s: variants differ", base)
		}
	}
	// One writer and one judge call per norm: the fake writes every item
	// right the first time.
	if n := srv.Count(); n != 6 {
		t.Errorf("%d requests, want 6", n)
	}
	// The prompts asked for two actors and named the norm, and the
	// schemas sent say two items (minItems = maxItems = 2), the judge's
	// indices at most 2.
	for _, rq := range srv.Requests() {
		if rq.Request.SchemaName() == "pact_items" && strings.Count(rq.Request.LastUser(), "any actor") != 2 {
			t.Errorf("writer prompt: %s", rq.Request.LastUser())
		}
		var sch struct {
			Properties struct {
				Items struct {
					MinItems, MaxItems int
					Items              struct {
						Properties struct {
							Index *struct{ Maximum int } `json:"index"`
						} `json:"properties"`
					} `json:"items"`
				} `json:"items"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(rq.Request.Schema(), &sch); err != nil {
			t.Fatal(err)
		}
		it := sch.Properties.Items
		if it.MinItems != 2 || it.MaxItems != 2 || (rq.Request.SchemaName() == "pact_conflict") != (it.Items.Properties.Index != nil && it.Items.Properties.Index.Maximum == 2) {
			t.Errorf("%s: schema sent %s", rq.Request.SchemaName(), rq.Request.Schema())
		}
	}
}

// --vary persona_country=... and persona_demo=... make the persona-prompted
// run's items: each item once per respondent persona, in the item's
// persona_country and persona_demo (not the actor's persona), sharing
// variant_of; the writer is not told them.
func TestPactPersonaVary(t *testing.T) {
	srv, c := fakeServer(t, llmtest.Options{})
	var vary []persona.Vary
	for _, s := range []string{"persona_country=India,Brazil", "persona_demo=young woman"} {
		v, err := persona.ParseVary(s)
		if err != nil {
			t.Fatal(err)
		}
		vary = append(vary, v)
	}
	sampler, err := persona.NewSampler(nil, vary, 1)
	if err != nil {
		t.Fatal(err)
	}
	st, err := seed.New(c, seed.Options{Types: []string{seed.TypePact}, PerNorm: 1, Judge: c, Personas: sampler})
	if err != nil {
		t.Fatal(err)
	}
	res := testkit.Run(t, st, firstNorms()[:1], 1)
	if len(res.Errors) > 0 || len(res.Out) != 2 {
		t.Fatalf("%d items, errors %v", len(res.Out), res.Errors)
	}
	for i, r := range res.Out {
		it := r.PactItem
		if it.PersonaCountry != []string{"India", "Brazil"}[i] || it.PersonaDemo != "young woman" || len(r.Persona) != 0 || r.VariantOf != res.Out[0].VariantOf {
			t.Errorf("%s: item %+v, actor persona %v, variant_of %q", r.ID, *it, r.Persona, r.VariantOf)
		}
	}
	for _, rq := range srv.Requests() {
		if u := rq.Request.LastUser(); strings.Contains(u, "India") || strings.Contains(u, "young woman") {
			t.Errorf("the writer was told the persona: %s", u)
		}
	}
}

// A judge that finds no conflict: the items are written again with its
// reason, --max-topups times, then the norm fails with the reason.
func TestPactJudgeRefuses(t *testing.T) {
	wsrv, w := fakeServer(t, llmtest.Options{})
	jsrv, j := fakeServer(t, llmtest.Options{Rules: []llmtest.Rule{{Content: `{"items":[{"index":1,"conflict":false,"reason":"one can do both at once"}]}`}}})
	st, _ := seed.New(w, seed.Options{Types: []string{seed.TypePact}, PerNorm: 1, Judge: j, MaxTopUps: 2})
	res := testkit.Run(t, st, firstNorms()[:1], 1)
	if len(res.Out) != 0 || len(res.Errors) != 1 || !strings.Contains(res.Errors[0].Error, "only 0 of 1 PACT items passed the judge after 3 calls") ||
		!strings.Contains(res.Errors[0].Error, "one can do both at once") {
		t.Fatalf("out %d, errors %v", len(res.Out), res.Errors)
	}
	if wsrv.Count() != 3 || jsrv.Count() != 3 {
		t.Errorf("writer %d, judge %d requests, want 3 each", wsrv.Count(), jsrv.Count())
	}
	last := wsrv.Requests()[2].Request.LastUser()
	if !strings.Contains(last, "were refused") || !strings.Contains(last, "one can do both at once") {
		t.Errorf("the re-written prompt does not give the judge's reason:\n%s", last)
	}
}

// A writer reply in the wrong language, or with the two options the
// same, is asked again; the second reply passes.
func TestPactItemChecks(t *testing.T) {
	m, _ := fakeng.New()
	same := `{"items":[{"scenario":"민수는 회사 복도에서 부장님을 만난다.","actor":"민수","receiver":"부장님","expectation":"아랫사람이 먼저 인사하는 것이 예의이다.","preference":"민수는 못 본 척 지나가고 싶다.","follow_option":"먼저 고개 숙여 인사한다.","allow_option":"먼저 고개 숙여 인사한다."}]}`
	for _, c := range []struct {
		name string
		o    llmtest.Options
		want string
	}{
		{"wrong language", llmtest.Options{Sequence: []llmtest.Fault{llmtest.WrongLang}}, "it must be in Korean"},
		{"same options", llmtest.Options{Rules: []llmtest.Rule{{Contains: "Write 1 different item", Content: same, Format: "json_schema"}}}, "are the same"},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := 0
			o := c.o
			if o.Rules != nil {
				// the rule answers once; then the fake writer
				o.Reply = m.Reply
				rules := o.Rules
				o.Rules = nil
				o.Reply = func(req *llmtest.ChatRequest) string {
					if req.SchemaName() == "pact_items" && n == 0 {
						n++
						return rules[0].Content
					}
					return m.Reply(req)
				}
			}
			srv, w := fakeServer(t, o)
			st, _ := seed.New(w, seed.Options{Types: []string{seed.TypePact}, PerNorm: 1, Judge: w})
			res := testkit.Run(t, st, firstNorms()[2:], 1)
			if len(res.Out) != 1 || len(res.Errors) != 0 {
				t.Fatalf("out %d errors %v", len(res.Out), res.Errors)
			}
			reask := ""
			for _, rq := range srv.Requests() {
				for _, msg := range rq.Request.Messages {
					if msg.Role == "user" && strings.Contains(msg.Text(), "not valid") {
						reask = msg.Text()
					}
				}
			}
			if !strings.Contains(reask, c.want) {
				t.Errorf("re-ask %q, want it to say %q", reask, c.want)
			}
		})
	}
}

// --types pact needs the judge.
func TestPactNeedsJudge(t *testing.T) {
	_, w := fakeServer(t, llmtest.Options{})
	st, _ := seed.New(w, seed.Options{Types: []string{seed.TypePact}, PerNorm: 1})
	res := testkit.Run(t, st, firstNorms()[:1], 1)
	if len(res.Errors) != 1 || !strings.Contains(res.Errors[0].Error, "judge") {
		t.Fatalf("%v", res.Errors)
	}
}
