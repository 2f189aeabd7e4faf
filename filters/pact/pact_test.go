package pact_test

import (
	"context"
	"fmt"
	"maps"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/ngkit/ngkit/filters/pact"
	"github.com/ngkit/ngkit/internal/fakeng"
	"github.com/ngkit/ngkit/internal/testkit"
	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/llm/llmtest"
	"github.com/ngkit/ngkit/pkg/record"
)

// items are n English items per culture, each in four persona variants
// (age x gender) sharing variant_of.
// itemsInLang is items with each item's lang its culture's (en, zh, ko),
// so that prompts follow the item's language.
func itemsInLang(n int) []*record.Record {
	recs := items(n)
	for _, r := range recs {
		switch r.Culture {
		case "korean":
			r.Lang = "ko"
		case "chinese":
			r.Lang = "zh"
		}
	}
	return recs
}

func items(n int) []*record.Record {
	var out []*record.Record
	for _, c := range []string{"american", "chinese", "korean"} {
		for i := range n {
			base := record.NewID("item", c, fmt.Sprint(i))
			for _, age := range []string{"18-29", "50+"} {
				for _, g := range []string{"female", "male"} {
					out = append(out, &record.Record{
						ID: record.NewID(base, age, g), VariantOf: base, Culture: c, Lang: "en",
						Scenario: fmt.Sprintf("Sam visits a neighbour's home for dinner, evening %d.", i),
						Persona:  map[string]string{"age": age, "gender": g},
						PactItem: &record.PactItem{Actor: "Sam", Receiver: "the host",
							Expectation:  "Guests remove their shoes at the door of a home.",
							Preference:   "Sam would rather keep wearing the comfortable sneakers.",
							FollowOption: "Remove the shoes at the door of the home.",
							AllowOption:  "Keep wearing the comfortable sneakers."},
					})
				}
			}
		}
	}
	return out
}

var fakeModel = sync.OnceValues(fakeng.New)

// subject is a fake model under test with a bias, on its own server.
func subject(t *testing.T, name string, bias fakeng.PactBias, opts ...func(*llmtest.Options, *llm.Config)) (pact.Subject, *llmtest.Server) {
	t.Helper()
	shared, err := fakeModel()
	if err != nil {
		t.Fatal(err)
	}
	m := *shared // the release fixtures shared, a bias of its own
	m.Pact = bias
	o := llmtest.Options{Reply: m.Reply, Logprobs: m.Logprobs}
	cfg := testkit.LLMConfig("", "ngpact")
	for _, f := range opts {
		f(&o, &cfg)
	}
	srv := llmtest.New(o)
	t.Cleanup(srv.Close)
	cfg.BaseURL = srv.URL
	return pact.Subject{Name: name, Caller: testkit.Client(t, cfg)}, srv
}

// The injected effect: +10 pp for Korean culture, +5 pp for age 50+, 0
// for gender, +8 pp for the norm framing.
var injected = fakeng.PactBias{Base: 0.5, Culture: map[string]float64{"korean": 0.10}, Persona: map[string]float64{"age=50+": 0.05}, Norm: 0.08}

// effects are the mean p_follow differences the injected bias makes:
// korean - american, 50+ - 18-29, male - female, norm - choice.
func effects(t *testing.T, out []*record.Record, model string) (culture, age, gender, framing float64) {
	t.Helper()
	mean := func(keep func(*record.Record, record.PactResult) bool) float64 {
		s, n := 0.0, 0
		for _, r := range out {
			for _, res := range r.Pact {
				if res.Model == model && keep(r, res) {
					if res.PFollow == nil {
						t.Fatalf("%s: %s %s: no p_follow (%s)", r.ID, res.Model, res.Question, res.Error)
					}
					s += *res.PFollow
					n++
				}
			}
		}
		if n == 0 {
			t.Fatal("no results")
		}
		return s / float64(n)
	}
	choice := func(f func(*record.Record) bool) float64 {
		return mean(func(r *record.Record, res record.PactResult) bool { return res.Question == record.PactChoice && f(r) })
	}
	culture = choice(func(r *record.Record) bool { return r.Culture == "korean" }) - choice(func(r *record.Record) bool { return r.Culture == "american" })
	age = choice(func(r *record.Record) bool { return r.Persona["age"] == "50+" }) - choice(func(r *record.Record) bool { return r.Persona["age"] == "18-29" })
	gender = choice(func(r *record.Record) bool { return r.Persona["gender"] == "male" }) - choice(func(r *record.Record) bool { return r.Persona["gender"] == "female" })
	framing = mean(func(_ *record.Record, res record.PactResult) bool { return res.Question == record.PactNorm }) -
		mean(func(_ *record.Record, res record.PactResult) bool { return res.Question == record.PactChoice })
	return
}

// With logprobs the fake's distribution comes back exactly, whatever the
// option order drawn, so the injected effects are recovered exactly.
func TestInjectedEffectLogprobs(t *testing.T) {
	a, _ := subject(t, "a", injected)
	b, _ := subject(t, "b", fakeng.PactBias{Base: 0.3})
	st, err := pact.New(pact.Options{Subjects: []pact.Subject{a, b}, Questions: []string{record.PactChoice, record.PactNorm},
		Method: pact.MethodLogprobs, PromptLang: pact.PromptItem, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	recs := items(3)
	res := testkit.Run(t, st, recs, 8)
	if len(res.Errors) > 0 || len(res.Out) != len(recs) {
		t.Fatalf("%d out, errors %v", len(res.Out), res.Errors)
	}
	swaps := 0
	for _, r := range res.Out {
		if len(r.Pact) != 4 {
			t.Fatalf("%s: %d results, want 2 models x 2 framings", r.ID, len(r.Pact))
		}
		for _, p := range r.Pact {
			bias := injected
			if p.Model == "b" {
				bias = fakeng.PactBias{Base: 0.3}
			}
			want := bias.PFollow(r.Culture, r.Persona, p.Question == record.PactNorm)
			if p.PFollow == nil || math.Abs(*p.PFollow-want) > 1e-9 || p.Valid != 1 || p.Samples != 1 || p.Method != pact.MethodLogprobs {
				t.Errorf("%s %s %s: %+v, want p_follow %g", r.ID, p.Model, p.Question, p, want)
				continue
			}
			wantMaj := record.PactFollow
			switch {
			case math.Abs(want-0.5) < 1e-12:
				wantMaj = "tie"
			case want < 0.5:
				wantMaj = record.PactAllow
			}
			h := -want*math.Log2(want) - (1-want)*math.Log2(1-want)
			if p.Majority != wantMaj || p.Entropy == nil || math.Abs(*p.Entropy-h) > 1e-9 {
				t.Errorf("%s %s: majority %s entropy %v, want %s %g", r.ID, p.Model, p.Majority, *p.Entropy, wantMaj, h)
			}
			if pact.Swapped(7, r.ID, p.Model, p.Question, 0) {
				swaps++
			}
		}
	}
	if n := len(res.Out) * 4; swaps < n/4 || swaps > 3*n/4 {
		t.Errorf("%d of %d calls showed the allow option first, want about half", swaps, n)
	}
	c, a1, g, f := effects(t, res.Out, "a")
	for _, e := range []struct {
		name      string
		got, want float64
	}{{"culture", c, 0.10}, {"age", a1, 0.05}, {"gender", g, 0}, {"framing", f, 0.08}} {
		if math.Abs(e.got-e.want) > 1e-9 {
			t.Errorf("%s effect %.4f, want %.2f", e.name, e.got, e.want)
		}
	}
}

// With K samples the effects are recovered within their binomial
// intervals (the fake's draws are a hash of each request: the test is
// deterministic, and the bounds are 4 standard errors).
func TestInjectedEffectSamples(t *testing.T) {
	a, _ := subject(t, "a", injected)
	const k = 60
	st, err := pact.New(pact.Options{Subjects: []pact.Subject{a}, Questions: []string{record.PactChoice, record.PactNorm},
		Method: pact.MethodSample, Samples: k, PromptLang: pact.PromptItem, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	recs := items(5)
	res := testkit.Run(t, st, recs, 8)
	if len(res.Errors) > 0 || len(res.Out) != len(recs) {
		t.Fatalf("%d out, errors %v", len(res.Out), res.Errors)
	}
	for _, r := range res.Out {
		for _, p := range r.Pact {
			if p.Samples != k || p.Valid != k || p.Error != "" {
				t.Fatalf("%s: %+v: want %d valid samples", r.ID, p, k)
			}
		}
	}
	// Each group mean pools n = items x variants/2 x k draws of p near 0.55.
	perCulture := float64(5 * 4 * k)
	se := func(n float64) float64 { return 4 * math.Sqrt(2*0.25/n) }
	c, ag, g, f := effects(t, res.Out, "a")
	for _, e := range []struct {
		name      string
		got, want float64
		n         float64
	}{{"culture", c, 0.10, perCulture}, {"age", ag, 0.05, 3 * perCulture / 2}, {"gender", g, 0, 3 * perCulture / 2}, {"framing", f, 0.08, 3 * perCulture}} {
		if math.Abs(e.got-e.want) > se(e.n) {
			t.Errorf("%s effect %.4f, want %.2f ± %.3f", e.name, e.got, e.want, se(e.n))
		}
	}
}

// A model that always answers A, whatever the options: the order drawn
// per call is undone, so p_follow is 1 exactly when the follow option was
// shown first, and the position bias averages out over the items.
func TestOrderUndone(t *testing.T) {
	s, _ := subject(t, "pos", fakeng.PactBias{}, func(o *llmtest.Options, _ *llm.Config) {
		o.Reply = func(*llmtest.ChatRequest) string { return "A" }
		o.Logprobs = nil // the default: the reply's first token, probability 1
	})
	st, err := pact.New(pact.Options{Subjects: []pact.Subject{s}, Questions: []string{record.PactChoice}, Method: pact.MethodLogprobs, PromptLang: pact.PromptEnglish, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	res := testkit.Run(t, st, items(4), 4)
	sum := 0.0
	for _, r := range res.Out {
		p := r.Pact[0]
		want := 1.0
		if pact.Swapped(1, r.ID, "pos", record.PactChoice, 0) {
			want = 0
		}
		if p.PFollow == nil || *p.PFollow != want {
			t.Errorf("%s: p_follow %v, want %g", r.ID, p.PFollow, want)
		} else {
			sum += *p.PFollow
		}
	}
	if m := sum / float64(len(res.Out)); m < 0.25 || m > 0.75 {
		t.Errorf("mean p_follow %.2f of an always-A model, want near 0.5", m)
	}
}

// Replies that name neither option are asked again, then counted as
// samples that are not valid: the record keeps samples and valid, and the
// reason, and does not fail.
func TestNeitherOption(t *testing.T) {
	s, srv := subject(t, "x", fakeng.PactBias{Neither: 1}, func(_ *llmtest.Options, c *llm.Config) { c.MaxRetries = 0 })
	st, err := pact.New(pact.Options{Subjects: []pact.Subject{s}, Questions: []string{record.PactChoice}, Method: pact.MethodSample, Samples: 3, PromptLang: pact.PromptItem})
	if err != nil {
		t.Fatal(err)
	}
	res := testkit.Run(t, st, items(1)[:1], 1)
	if len(res.Out) != 1 {
		t.Fatalf("errors %v", res.Errors)
	}
	p := res.Out[0].Pact[0]
	if p.Samples != 3 || p.Valid != 0 || p.PFollow != nil || p.Majority != "" || !strings.Contains(p.Error, "3 of 3 samples named neither option") {
		t.Errorf("%+v", p)
	}
	// Each sample: the first reply and its --max-reasks (2) re-asks.
	if n := srv.Count(); n != 3*3 {
		t.Errorf("%d requests, want 9 (3 samples x 3 asks)", n)
	}
}

// A server without logprobs: the probe before the run says so and names
// --method sample; a reply without them in the run is a result error.
func TestNoLogprobs(t *testing.T) {
	s, _ := subject(t, "nolp", fakeng.PactBias{}, func(o *llmtest.Options, _ *llm.Config) { o.NoLogprobs = true })
	err := pact.ProbeLogprobs(context.Background(), s)
	if err == nil || !strings.Contains(err.Error(), "model nolp returned no logprobs") || !strings.Contains(err.Error(), "--method sample") {
		t.Fatalf("probe: %v", err)
	}
	ok, _ := subject(t, "lp", fakeng.PactBias{})
	if err := pact.ProbeLogprobs(context.Background(), ok); err != nil {
		t.Fatalf("probe of a server with logprobs: %v", err)
	}
	st, _ := pact.New(pact.Options{Subjects: []pact.Subject{s}, Method: pact.MethodLogprobs, PromptLang: pact.PromptItem})
	res := testkit.Run(t, st, items(1)[:1], 1)
	if p := res.Out[0].Pact[0]; p.Valid != 0 || p.PFollow != nil || !strings.Contains(p.Error, "no logprobs") {
		t.Errorf("%+v", p)
	}
}

// Records that are not items fail with the reason; nothing is called.
func TestNotAnItem(t *testing.T) {
	s, srv := subject(t, "x", fakeng.PactBias{})
	st, _ := pact.New(pact.Options{Subjects: []pact.Subject{s}, Method: pact.MethodLogprobs, PromptLang: pact.PromptItem})
	noPref := items(1)[0]
	noPref.PactItem.Preference = " "
	res := testkit.Run(t, st, []*record.Record{{ID: "plain", Scenario: "x"}, noPref}, 1)
	if len(res.Out) != 0 || len(res.Errors) != 2 || srv.Count() != 0 {
		t.Fatalf("out %d errors %v calls %d", len(res.Out), res.Errors, srv.Count())
	}
	if !strings.Contains(res.Errors[0].Error, "no pact_item") || !strings.Contains(res.Errors[1].Error, "without preference") {
		t.Errorf("%v", res.Errors)
	}
}

// The prompts in Korean and Chinese (--prompt-lang item) and in English
// are read by the fake the same way: the same p_follow for every
// language, both option orders.
func TestPromptLanguages(t *testing.T) {
	s, srv := subject(t, "a", injected)
	for _, pl := range []string{pact.PromptItem, pact.PromptEnglish} {
		st, _ := pact.New(pact.Options{Subjects: []pact.Subject{s}, Questions: []string{record.PactChoice, record.PactNorm}, Method: pact.MethodLogprobs, PromptLang: pl})
		recs := itemsInLang(2)
		res := testkit.Run(t, st, recs, 4)
		for _, r := range res.Out {
			for _, p := range r.Pact {
				want := injected.PFollow(r.Culture, r.Persona, p.Question == record.PactNorm)
				if p.PFollow == nil || math.Abs(*p.PFollow-want) > 1e-9 {
					t.Errorf("%s %s lang %s: p_follow %v, want %g", pl, p.Question, r.Lang, p.PFollow, want)
				}
			}
		}
	}
	var ko, zh, en bool
	for _, rq := range srv.Requests() {
		u := rq.Request.LastUser()
		ko = ko || strings.Contains(u, "문화적 기대:")
		zh = zh || strings.Contains(u, "文化期望:")
		en = en || strings.Contains(u, "Cultural expectation:")
	}
	if !ko || !zh || !en {
		t.Errorf("prompts seen: ko %v zh %v en %v", ko, zh, en)
	}
}

// TestFramings: without --questions the stage asks the paper's two
// framings, in its authors' words; choice stays a third framing.
func TestFramings(t *testing.T) {
	s, srv := subject(t, "a", injected)
	st, err := pact.New(pact.Options{Subjects: []pact.Subject{s}, Method: pact.MethodLogprobs, PromptLang: pact.PromptItem})
	if err != nil {
		t.Fatal(err)
	}
	res := testkit.Run(t, st, items(1)[:1], 1)
	var qs []string
	for _, p := range res.Out[0].Pact {
		qs = append(qs, p.Question)
	}
	if strings.Join(qs, ",") != "personal,norm" {
		t.Errorf("default framings %v, want personal,norm", qs)
	}
	want := map[string]bool{
		"What would you personally do if you were the actor?":            false,
		"What would most people in this situation consider appropriate?": false,
	}
	for _, rq := range srv.Requests() {
		for w := range want {
			if strings.Contains(rq.Request.LastUser(), w) {
				want[w] = true
			}
		}
	}
	for w, seen := range want {
		if !seen {
			t.Errorf("no prompt asks %q", w)
		}
	}
	if qs, err := pact.ParseQuestions([]string{"choice", "personal"}); err != nil || strings.Join(qs, ",") != "choice,personal" {
		t.Errorf("ParseQuestions = %v, %v", qs, err)
	}
}

// TestPersonaPrompt: an item of the persona-prompted run asks the model to
// answer as its respondent (country and demographic group), in the item's
// language; an item without them does not, and keeps its fields through
// the stage.
func TestPersonaPrompt(t *testing.T) {
	bias := injected
	bias.Persona = map[string]float64{"age=50+": 0.05, "respondent_country=India": -0.2, "respondent_country=Brazil": 0.1}
	s, srv := subject(t, "a", bias)
	st, err := pact.New(pact.Options{Subjects: []pact.Subject{s}, Questions: []string{record.PactPersonal}, Method: pact.MethodLogprobs, PromptLang: pact.PromptItem})
	if err != nil {
		t.Fatal(err)
	}
	recs := itemsInLang(1)
	var en, ko *record.Record
	for _, r := range recs {
		switch {
		case r.Lang == "en" && en == nil:
			en = r
		case r.Lang == "ko" && ko == nil:
			ko = r
		}
	}
	en.PactItem.PersonaCountry, en.PactItem.PersonaDemo = "India", "younger female"
	ko.PactItem.PersonaCountry = "Brazil"
	res := testkit.Run(t, st, recs, 2)
	for _, r := range res.Out {
		if r.ID == en.ID && (r.PactItem.PersonaCountry != "India" || r.PactItem.PersonaDemo != "younger female") {
			t.Errorf("the persona is lost: %+v", *r.PactItem)
		}
		// the model read whom it answers as (the fake's bias by it)
		attrs := maps.Clone(r.Persona)
		if c := r.PactItem.PersonaCountry; c != "" {
			attrs["respondent_country"] = c
		}
		want := bias.PFollow(r.Culture, attrs, false)
		if p := r.Pact[0].PFollow; p == nil || math.Abs(*p-want) > 1e-9 {
			t.Errorf("%s (%s, persona %q): p_follow %v, want %g", r.ID, r.Lang, r.PactItem.PersonaCountry, p, want)
		}
	}
	var withEN, withKO, without int
	for _, rq := range srv.Requests() {
		u := rq.Request.LastUser()
		switch {
		case strings.Contains(u, "Answer as this respondent:\n- country: India\n- demographic group: younger female\n\nWhat would you personally do"):
			withEN++
		case strings.Contains(u, "다음 응답자로서 답하세요:\n- 나라: Brazil\n\n"):
			withKO++
		case strings.Contains(u, "respondent") || strings.Contains(u, "응답자") || strings.Contains(u, "受访者"):
			t.Errorf("a persona in the prompt of an item without one:\n%s", u)
		default:
			without++
		}
	}
	if withEN != 1 || withKO != 1 || without != len(recs)-2 {
		t.Errorf("prompts with the persona: en %d ko %d, without %d of %d items", withEN, withKO, without, len(recs))
	}
}

// dying serves the fake's first reply, then stops listening (the reply
// says Connection: close), as a server killed mid-run: the next attempts
// are refused. It accepts one connection: the listener is closed as it
// takes it, so that a concurrent request (the questions are asked at once)
// cannot reach the fake on a second connection accepted before the close.
func dying(t *testing.T, fake *llmtest.Server) string {
	t.Helper()
	hs := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close")
		fake.ServeHTTP(w, r)
	}))
	hs.Listener = &oneConn{Listener: hs.Listener}
	hs.Start()
	t.Cleanup(hs.Close)
	return hs.URL + "/v1"
}

// oneConn is a listener that accepts one connection and closes as it does.
type oneConn struct {
	net.Listener
	taken atomic.Bool
}

func (l *oneConn) Accept() (net.Conn, error) {
	if l.taken.Swap(true) {
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	l.Listener.Close()
	return c, err
}

// A call whose first reply names neither option and whose retries are
// then refused (the server died) fails its record, for --resume: before,
// the earlier bad reply was written as the item's result (exit 0), for
// both methods.
func TestServerDiesMidCall(t *testing.T) {
	for _, method := range []string{pact.MethodLogprobs, pact.MethodSample} {
		t.Run(method, func(t *testing.T) {
			fake := llmtest.New(llmtest.Options{
				Reply: func(*llmtest.ChatRequest) string { return "I cannot choose between these." },
				Logprobs: func(*llmtest.ChatRequest, string) []llmtest.TopLogprob {
					return []llmtest.TopLogprob{{Token: "The", Logprob: -0.1}}
				}})
			t.Cleanup(fake.Close)
			cfg := testkit.LLMConfig(dying(t, fake), "ngpact")
			cfg.MaxRetries, cfg.MaxReasks = 2, 1
			s := pact.Subject{Name: "x", Caller: testkit.Client(t, cfg)}
			st, err := pact.New(pact.Options{Subjects: []pact.Subject{s}, Method: method, Samples: 1, PromptLang: pact.PromptItem})
			if err != nil {
				t.Fatal(err)
			}
			res := testkit.Run(t, st, items(1)[:1], 1)
			if len(res.Out) != 0 || len(res.Errors) != 1 {
				t.Fatalf("written %d (%+v), failed %d: want the record failed", len(res.Out), res.Out, len(res.Errors))
			}
			if e := res.Errors[0].Error; !strings.Contains(e, "connection") {
				t.Errorf("error %q: want the refused connection", e)
			}
		})
	}
}
