package sim

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ngkit/ngkit/internal/fakeng"
	"github.com/ngkit/ngkit/internal/testkit"
	"github.com/ngkit/ngkit/pkg/episode"
	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/llm/llmtest"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/record"
)

// spec is a Thai episode spec: c1 implicit, c2 explicit, c3 never.
func spec(id string) *record.Record {
	return &record.Record{ID: id, Culture: "thai", Lang: "th", Episode: &record.Episode{
		Subgroup: "a Thai Buddhist family in Chiang Mai", Domain: "food_and_dining",
		Goal: "Plan a family dinner for next weekend.",
		Constraints: []record.Constraint{
			{ID: "c1", Text: "The elders of the family must be served first and given the best seats.", Reveal: "implicit"},
			{ID: "c2", Text: "No beef may be served because the grandmother does not eat it.", Reveal: "explicit"},
			{ID: "c3", Text: "The user would lose face if the dinner looked too cheap to relatives.", Reveal: "never"},
		},
		Opening: "สวัสดีครับ ช่วยวางแผนมื้ออาหารสำหรับครอบครัวในสุดสัปดาห์หน้าได้ไหมครับ",
	}}
}

// fake is the fake server playing every role, and the model of each role.
type fake struct {
	srv *llmtest.Server
	m   *fakeng.Model
}

func newFake(t *testing.T, opt llmtest.Options) *fake {
	t.Helper()
	m, err := fakeng.New()
	if err != nil {
		t.Fatal(err)
	}
	opt.Reply = m.Reply
	f := &fake{srv: llmtest.New(opt), m: m}
	t.Cleanup(f.srv.Close)
	return f
}

// caller is a client of the fake answering as model (the fake reads its
// script from the model name).
func (f *fake) caller(t *testing.T, model, role string) llm.Caller {
	cfg := testkit.LLMConfig(f.srv.URL, "ngsim")
	cfg.Model = model
	return roleCaller{testkit.Client(t, cfg), role}
}

type roleCaller struct {
	c    llm.Caller
	role string
}

func (r roleCaller) Call(ctx context.Context, req llm.Request) (*llm.Response, error) {
	req.Role = r.role
	return r.c.Call(ctx, req)
}

// items are the work items of specs for the assistants, as ngsim makes them.
func items(t *testing.T, specs []*record.Record, mode string, aliases ...string) []*record.Record {
	t.Helper()
	return testkit.Records(t, Expand(pipeline.SliceSource(specs), aliases, mode))
}

func newStage(t *testing.T, f *fake, opt Options, assistants map[string]string, userModel string) *Stage {
	t.Helper()
	opt.User = f.caller(t, userModel, "user")
	opt.Judge = f.caller(t, "judge", "judge")
	for _, a := range sortedKeys(assistants) {
		opt.Assistants = append(opt.Assistants, Assistant{Alias: a, Caller: f.caller(t, assistants[a], "assistant")})
	}
	s, err := New(opt)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func sortedKeys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	for i := range ks {
		for j := i + 1; j < len(ks); j++ {
			if ks[j] < ks[i] {
				ks[i], ks[j] = ks[j], ks[i]
			}
		}
	}
	return ks
}

func speakers(r *record.Record) string {
	var s []string
	for _, t := range r.Turns {
		s = append(s, t.Speaker[:1])
	}
	return strings.Join(s, "")
}

// The loop: the user reveals c1 on turn 2 and c2 on turn 3 (c3 never),
// meets the goal on turn 4; the assistant acknowledges what it was told;
// two assistants run the same spec; the judge's outcomes land per
// constraint in the spec's order; every turn's language is detected.
func TestLoopTwoAssistants(t *testing.T) {
	f := newFake(t, llmtest.Options{})
	s := newStage(t, f, Options{}, map[string]string{"good": "good", "bad": "violate-c2"}, "sim")
	res := testkit.Run(t, s, items(t, []*record.Record{spec("s1")}, episode.ModeBenchmark, "good", "bad"), 4)
	if len(res.Errors) > 0 || len(res.Out) != 2 {
		t.Fatalf("out %d, errors %+v", len(res.Out), res.Errors)
	}
	for _, r := range res.Out {
		if r.ParentID != "s1" || r.ID != EpisodeID("s1", r.Sim.Assistant, "benchmark") {
			t.Errorf("ids %s / %s", r.ID, r.ParentID)
		}
		if got := speakers(r); got != "uauauau" {
			t.Errorf("%s: turns %s, want uauauau (goal met on the user's turn 4)", r.Sim.Assistant, got)
		}
		if r.Sim.End != episode.EndGoalMet || strings.Join(r.Sim.Revealed, ",") != "c1,c2" || r.Sim.Mode != "benchmark" {
			t.Errorf("%s: sim %+v", r.Sim.Assistant, r.Sim)
		}
		for _, turn := range r.Turns {
			if turn.Lang != "th" {
				t.Errorf("turn %d lang %q: %s", turn.Index, turn.Lang, turn.Text)
			}
		}
		roles := map[string]int{}
		for _, g := range r.Gen {
			roles[g.Role]++
		}
		if roles["assistant"] != 3 || roles["user"] != 3 || roles["judge"] != 1 {
			t.Errorf("%s: calls per role %v", r.Sim.Assistant, roles)
		}
	}
	bad := res.Out[0]
	if bad.Sim.Assistant != "bad" {
		bad = res.Out[1]
	}
	want := map[string]string{"bad": "inferred_and_respected,violated,not_addressed", "good": "inferred_and_respected,inferred_and_respected,not_addressed"}
	for _, r := range res.Out {
		var got []string
		for _, o := range r.Sim.Judge.Constraints {
			got = append(got, o.Outcome)
		}
		if strings.Join(got, ",") != want[r.Sim.Assistant] {
			t.Errorf("%s: outcomes %v, want %s", r.Sim.Assistant, got, want[r.Sim.Assistant])
		}
	}
	if bad.Sim.Judge.Assistance != 4 || bad.Sim.Judge.Cultural != 3 || bad.Sim.Judge.Language != 5 {
		t.Errorf("judge %+v", bad.Sim.Judge)
	}
}

// --max-turns stops a user who never meets the goal after N assistant
// replies, without asking the user again.
func TestMaxTurns(t *testing.T) {
	f := newFake(t, llmtest.Options{})
	s := newStage(t, f, Options{MaxTurns: 3}, map[string]string{"a": "good"}, "sim-never-end")
	res := testkit.Run(t, s, items(t, []*record.Record{spec("s1")}, "benchmark", "a"), 2)
	if len(res.Out) != 1 {
		t.Fatalf("errors %+v", res.Errors)
	}
	r := res.Out[0]
	if speakers(r) != "uauaua" || r.Sim.End != episode.EndMaxTurns {
		t.Errorf("turns %s, end %s", speakers(r), r.Sim.End)
	}
	// 3 assistant calls, 2 user calls, 1 judge call.
	if n := f.srv.Count(); n != 6 {
		t.Errorf("%d requests, want 6", n)
	}
	// A user that meets the goal at once: one exchange and its closing.
	f2 := newFake(t, llmtest.Options{})
	s2 := newStage(t, f2, Options{}, map[string]string{"a": "good"}, "sim-end-2")
	res = testkit.Run(t, s2, items(t, []*record.Record{spec("s1")}, "benchmark", "a"), 2)
	if r := res.Out[0]; speakers(r) != "uau" || r.Sim.End != episode.EndGoalMet {
		t.Errorf("turns %s, end %s", speakers(r), r.Sim.End)
	}
}

// The modes, on the requests the assistant got: gold system prompts hold
// every constraint, benchmark ones none of them (nor any request's other
// message).
func TestModesOnTheWire(t *testing.T) {
	for _, mode := range []string{episode.ModeBenchmark, episode.ModeGold} {
		f := newFake(t, llmtest.Options{})
		s := newStage(t, f, Options{Mode: mode, AssistantSystem: "You are the assistant of a travel agency."}, map[string]string{"a": "good"}, "sim")
		res := testkit.Run(t, s, items(t, []*record.Record{spec("s1")}, mode, "a"), 2)
		if len(res.Out) != 1 {
			t.Fatalf("%s: errors %+v", mode, res.Errors)
		}
		n := 0
		for _, rq := range f.srv.Requests() {
			if rq.Request.SchemaName() != "" {
				continue
			}
			n++
			sys := rq.Request.Messages[0]
			if sys.Role != "system" || !strings.HasPrefix(sys.Text(), "You are the assistant of a travel agency.") {
				t.Fatalf("%s: system message %q", mode, sys.Text())
			}
			for _, c := range spec("s1").Episode.Constraints {
				in := strings.Contains(sys.Text(), c.Text)
				if in != (mode == episode.ModeGold) {
					t.Errorf("%s: constraint %s in the system prompt: %v", mode, c.ID, in)
				}
				for _, m := range rq.Request.Messages[1:] {
					if strings.Contains(m.Text(), c.Text) {
						t.Errorf("%s: constraint %s in a %s message", mode, c.ID, m.Role)
					}
				}
			}
			if rq.Request.ResponseFormat != nil {
				t.Errorf("%s: the assistant was sent a response_format", mode)
			}
		}
		if n != 3 {
			t.Errorf("%s: %d assistant requests, want 3", mode, n)
		}
		var outs []string
		for _, o := range res.Out[0].Sim.Judge.Constraints {
			outs = append(outs, o.Outcome)
		}
		if mode == episode.ModeGold && outs[2] != record.OutcomeRespected {
			t.Errorf("gold outcomes %v", outs)
		}
	}
}

// A simulator turn that copies a constraint, or is in English, is asked
// again; the episode then goes on as scripted.
func TestReasks(t *testing.T) {
	for _, model := range []string{"sim-leak", "sim-english"} {
		f := newFake(t, llmtest.Options{})
		s := newStage(t, f, Options{}, map[string]string{"a": "good"}, model)
		res := testkit.Run(t, s, items(t, []*record.Record{spec("s1")}, "benchmark", "a"), 2)
		if len(res.Out) != 1 {
			t.Fatalf("%s: errors %+v", model, res.Errors)
		}
		r := res.Out[0]
		if speakers(r) != "uauauau" {
			t.Errorf("%s: turns %s", model, speakers(r))
		}
		reasks := 0
		for _, g := range r.Gen {
			if g.Role == "user" {
				reasks += g.Retries
			}
		}
		if reasks != 3 {
			t.Errorf("%s: %d re-asks of the user, want 3 (one per user turn)", model, reasks)
		}
		for _, turn := range r.Turns {
			for _, c := range r.Episode.Constraints {
				if episode.Leaks(turn.Text, c.Text) {
					t.Errorf("%s: turn %d leaks %s", model, turn.Index, c.ID)
				}
			}
		}
	}
}

// Faults in the middle of an episode are retried with the conversation
// kept: every episode finishes, as without faults.
func TestFaultsMidEpisode(t *testing.T) {
	clean := newFake(t, llmtest.Options{})
	var specs []*record.Record
	for _, id := range []string{"s1", "s2", "s3", "s4", "s5", "s6"} {
		specs = append(specs, spec(id))
	}
	want := testkit.Run(t, newStage(t, clean, Options{}, map[string]string{"a": "good"}, "sim"), items(t, specs, "benchmark", "a"), 4)
	faulty := newFake(t, llmtest.Options{FaultRate: 0.3, Faults: []llmtest.Fault{llmtest.RateLimit, llmtest.ServerError, llmtest.Drop, llmtest.Malformed, llmtest.Empty}})
	got := testkit.Run(t, newStage(t, faulty, Options{}, map[string]string{"a": "good"}, "sim"), items(t, specs, "benchmark", "a"), 4)
	if len(got.Errors) > 0 || len(got.Out) != len(want.Out) {
		t.Fatalf("out %d, errors %+v", len(got.Out), got.Errors)
	}
	for i := range want.Out {
		a, b := texts(want.Out[i]), texts(got.Out[i])
		if a != b {
			t.Errorf("%s: transcript differs with faults:\n%s\nvs\n%s", want.Out[i].ID, a, b)
		}
	}
	if faulty.srv.Count() <= clean.srv.Count() {
		t.Errorf("no faults injected: %d requests vs %d", faulty.srv.Count(), clean.srv.Count())
	}
}

func texts(r *record.Record) string {
	var s []string
	for _, t := range r.Turns {
		s = append(s, t.Speaker+": "+t.Text)
	}
	return strings.Join(s, "\n")
}

// An episode that cannot finish goes to the errors file with its partial
// transcript and the reason; the other episode of the spec is written.
func TestFailedEpisodeKeepsPartialTranscript(t *testing.T) {
	// The assistant's third call (the last user message reveals c2) is
	// refused for good.
	f2 := newFake(t, llmtest.Options{Rules: []llmtest.Rule{{Contains: "‹c2›", Status: 400, Message: "scripted refusal"}}})
	s := newStage(t, f2, Options{}, map[string]string{"a": "good"}, "sim")
	res := testkit.Run(t, s, items(t, []*record.Record{spec("s1")}, "benchmark", "a"), 2)
	if len(res.Out) != 0 || len(res.Errors) != 1 {
		t.Fatalf("out %d, errors %d", len(res.Out), len(res.Errors))
	}
	e := res.Errors[0]
	if !strings.Contains(e.Error, "turn 3, assistant") || !strings.Contains(e.Error, "scripted refusal") {
		t.Errorf("error %q", e.Error)
	}
	if e.Record == nil || speakers(e.Record) != "uauau" || e.Record.ID != EpisodeID("s1", "a", "benchmark") {
		t.Errorf("partial record %+v", e.Record)
	}
}

// A rerun with the cache and --resume pays only for what was not done:
// the finished episode is skipped, the failed one replays its finished
// turns from the cache and makes only the calls that had failed.
func TestResumeWithCache(t *testing.T) {
	inner := newFake(t, llmtest.Options{})
	var broken atomic.Bool
	broken.Store(true)
	// In front of the fake: while broken, every call whose conversation
	// has revealed c2 gets a 500 (the server is down for it).
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if broken.Load() && (bytes.Contains(body, []byte("‹c2›")) || bytes.Contains(body, []byte(`\u2039c2\u203a`))) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(500)
			w.Write([]byte(`{"error":{"message":"down"}}`))
			return
		}
		req, _ := http.NewRequest(r.Method, strings.TrimSuffix(inner.srv.URL, "/v1")+r.URL.Path, bytes.NewReader(body))
		req.Header = r.Header.Clone()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			w.WriteHeader(502)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body)
	}))
	defer proxy.Close()
	cfg := testkit.LLMConfig(proxy.URL+"/v1", "ngsim")
	cfg.CacheDir = filepath.Join(t.TempDir(), "cache")
	cfg.MaxRetries = 1
	mk := func(model, role string) llm.Caller {
		c := cfg
		c.Model = model
		return roleCaller{testkit.Client(t, c), role}
	}
	// s1 reveals c2 on turn 3 and fails there; s2 never reveals c2 and
	// finishes.
	s2 := spec("s2")
	s2.Episode.Constraints[1].Reveal = episode.RevealNever
	s2.Episode.Constraints[2].Reveal = episode.RevealExplicit
	work := items(t, []*record.Record{spec("s1"), s2}, "benchmark", "a")
	run := func(done map[string]struct{}) (*testkit.Sink, pipeline.Stats, []pipeline.ErrorRecord) {
		st, err := New(Options{User: mk("sim", "user"), Judge: mk("judge", "judge"),
			Assistants: []Assistant{{Alias: "a", Caller: mk("good", "assistant")}}})
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "errors.jsonl")
		elog, _ := pipeline.OpenErrorLog(path)
		sink := &testkit.Sink{}
		stats, err := pipeline.Run(context.Background(), pipeline.Config{Stage: st, Source: pipeline.SliceSource(work), Sink: sink,
			Errors: elog, Workers: 2, Done: done})
		if err != nil {
			t.Fatal(err)
		}
		elog.Close()
		return sink, stats, testkit.ReadErrors(t, path)
	}
	sink, _, errs := run(nil)
	if len(sink.Records()) != 1 || len(errs) != 1 || errs[0].ID != work[0].ID {
		t.Fatalf("first run: out %d, errors %+v", len(sink.Records()), errs)
	}
	before := inner.srv.Count()
	broken.Store(false)
	done := map[string]struct{}{sink.Records()[0].ID: {}}
	sink, stats, errs := run(done)
	if len(errs) > 0 || len(sink.Records()) != 1 || stats.Resumed != 1 {
		t.Fatalf("rerun: out %d, resumed %d, errors %+v", len(sink.Records()), stats.Resumed, errs)
	}
	r := sink.Records()[0]
	if speakers(r) != "uauauau" || r.Sim.Judge == nil {
		t.Errorf("rerun episode: turns %s, judge %v", speakers(r), r.Sim.Judge)
	}
	// Only the assistant's third reply, the user's closing and the judge
	// were paid for; the four finished calls came from the cache.
	if n := inner.srv.Count() - before; n != 3 {
		t.Errorf("the rerun made %d requests, want 3", n)
	}
	hits := 0
	for _, g := range r.Gen {
		if g.CacheHit {
			hits++
		}
	}
	if hits != 4 {
		t.Errorf("%d cache hits, want 4", hits)
	}
}

// sentSchema is the JSON Schema a recorded request sent as
// response_format, decoded; nil when it sent none.
func sentSchema(t *testing.T, rq llmtest.Recorded) map[string]any {
	t.Helper()
	rf := rq.Request.ResponseFormat
	if rf == nil || rf.JSONSchema == nil {
		return nil
	}
	var doc map[string]any
	if err := json.Unmarshal(rf.JSONSchema.Schema, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// dig is the value at a path of object keys in a decoded JSON document.
func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	return v
}

// strs is a decoded JSON array of strings, joined with commas.
func strs(v any) string {
	a, _ := v.([]any)
	var s []string
	for _, x := range a {
		s = append(s, fmt.Sprint(x))
	}
	return strings.Join(s, ",")
}

// Each episode's simulator and judge requests carry a schema whose
// constraint ids are the enum of exactly that episode's ids: the
// simulator's revealed items the ids it may reveal (c3 is never to be),
// each at most once; the judge's constraints an object with one required
// property per id and no other. Two episodes with other constraints get
// other enums; the assistant gets no schema at all.
func TestSchemaPerEpisode(t *testing.T) {
	k := spec("k")
	k.Episode.Constraints = []record.Constraint{
		{ID: "k7", Text: "Chopsticks must never be left standing upright in the rice bowl.", Reveal: "explicit"},
		{ID: "k9", Text: "The youngest person at the table pours drinks for the others.", Reveal: "never"},
	}
	// n reveals nothing: its revealed list can only be empty.
	n := spec("n")
	n.Episode.Constraints = []record.Constraint{
		{ID: "n1", Text: "Shoes come off before entering the house.", Reveal: "never"},
		{ID: "n2", Text: "Gifts are not opened in front of the giver.", Reveal: "never"},
	}
	f := newFake(t, llmtest.Options{})
	s := newStage(t, f, Options{}, map[string]string{"a": "good"}, "sim")
	res := testkit.Run(t, s, items(t, []*record.Record{spec("s1"), k, n}, episode.ModeBenchmark, "a"), 2)
	if len(res.Out) != 3 || len(res.Errors) > 0 {
		t.Fatalf("out %d, errors %+v", len(res.Out), res.Errors)
	}
	// Which episode a request is for: the constraint texts in its prompt.
	want := map[string]struct{ revealable, all string }{
		spec("s1").Episode.Constraints[0].Text: {"c1,c2", "c1,c2,c3"},
		k.Episode.Constraints[0].Text:          {"k7", "k7,k9"},
		n.Episode.Constraints[0].Text:          {"", "n1,n2"},
	}
	seen := map[string]int{}
	for _, rq := range f.srv.Requests() {
		name := rq.Request.SchemaName()
		doc := sentSchema(t, rq)
		if name == "" {
			if doc != nil || rq.Request.Schema() != nil {
				t.Errorf("the assistant was sent a schema: %s", rq.Body)
			}
			continue
		}
		var w struct{ revealable, all string }
		for text, ids := range want {
			if strings.Contains(string(rq.Body), text) {
				w = ids
			}
		}
		if w.all == "" || doc == nil {
			t.Fatalf("%s request for no known episode, or without a schema: %s", name, rq.Body)
		}
		switch name {
		case "sim_user":
			revealed := dig(doc, "properties", "revealed")
			enum, most := w.revealable, float64(strings.Count(w.revealable, ",")+1)
			if enum == "" { // no enum can be empty: the ids, none allowed
				enum, most = w.all, 0
			}
			if got := strs(dig(revealed, "items", "enum")); got != enum {
				t.Errorf("sim_user for %s: revealed enum %q, want %q", w.all, got, enum)
			}
			if dig(revealed, "uniqueItems") != true || dig(revealed, "maxItems") != most {
				t.Errorf("sim_user for %s: revealed %v", w.all, revealed)
			}
		case "sim_judge":
			cons := dig(doc, "properties", "constraints")
			props, _ := dig(cons, "properties").(map[string]any)
			var keys []string
			for id, p := range props {
				keys = append(keys, id)
				if strs(dig(p, "properties", "outcome", "enum")) != strings.Join(Outcomes, ",") {
					t.Errorf("sim_judge for %s: %s: %v", w.all, id, p)
				}
			}
			slices.Sort(keys)
			if strings.Join(keys, ",") != w.all || strs(dig(cons, "required")) != w.all || dig(cons, "additionalProperties") != false {
				t.Errorf("sim_judge for %s: constraints %v", w.all, cons)
			}
		default:
			t.Errorf("schema %s", name)
		}
		seen[name+" "+w.all]++
	}
	// s1: 3 user turns and the judge; k: 2 user turns (k7 out, then the
	// goal) and the judge; n: the goal at once, and the judge.
	if seen["sim_user c1,c2,c3"] != 3 || seen["sim_judge c1,c2,c3"] != 1 || seen["sim_user k7,k9"] != 2 || seen["sim_judge k7,k9"] != 1 ||
		seen["sim_user n1,n2"] != 1 || seen["sim_judge n1,n2"] != 1 {
		t.Errorf("requests by schema and episode: %v", seen)
	}
}

// A server that ignores schemas can still write an id that is not the
// episode's: the simulator's and the judge's replies are refused and
// asked again with the reason, and the episode finishes.
func TestWrongIDsRefused(t *testing.T) {
	m, err := fakeng.New()
	if err != nil {
		t.Fatal(err)
	}
	var userBad, judgeBad atomic.Bool
	reply := func(req *llmtest.ChatRequest) string {
		out := m.Reply(req)
		var v map[string]any
		json.Unmarshal([]byte(out), &v)
		switch req.SchemaName() {
		case "sim_user":
			if userBad.CompareAndSwap(false, true) {
				v["revealed"] = []string{"c1", "made-up"}
			}
		case "sim_judge":
			if judgeBad.CompareAndSwap(false, true) {
				v["constraints"].(map[string]any)["c9"] = map[string]string{"outcome": "violated", "rationale": "x"}
			}
		}
		b, _ := json.Marshal(v)
		return string(b)
	}
	f := &fake{srv: llmtest.New(llmtest.Options{Reply: reply}), m: m}
	t.Cleanup(f.srv.Close)
	s := newStage(t, f, Options{}, map[string]string{"a": "good"}, "sim")
	res := testkit.Run(t, s, items(t, []*record.Record{spec("s1")}, episode.ModeBenchmark, "a"), 2)
	if len(res.Out) != 1 || len(res.Errors) > 0 {
		t.Fatalf("out %d, errors %+v", len(res.Out), res.Errors)
	}
	r := res.Out[0]
	if strings.Join(r.Sim.Revealed, ",") != "c1,c2" || len(r.Sim.Judge.Constraints) != 3 {
		t.Errorf("sim %+v, judge %+v", r.Sim, r.Sim.Judge)
	}
	var reasks []string
	for _, rq := range f.srv.Requests() {
		if last := rq.Request.Messages[len(rq.Request.Messages)-1]; len(rq.Request.Messages) > 2 && last.Role == "user" && rq.Request.SchemaName() != "" {
			reasks = append(reasks, rq.Request.SchemaName()+": "+last.Text())
		}
	}
	if len(reasks) != 2 || !strings.Contains(reasks[0], "/revealed/1") || !strings.Contains(reasks[1], "c9") {
		t.Errorf("re-asks %q", reasks)
	}
}

// The judge's reply: every constraint once, keyed by id, comes back in
// the spec's order; an unknown id, a repeated one, a missing one, an
// unknown outcome and the old list form are refused with the reason.
func TestParseJudge(t *testing.T) {
	cons := []record.Constraint{{ID: "c1"}, {ID: "c2"}}
	head := `{"assistance":4,"assistance_rationale":"a","cultural":3,"cultural_rationale":"b","language":5,"language_rationale":"c","constraints":`
	o := func(outcome string) string { return `{"outcome":"` + outcome + `","rationale":" r "}` }
	j, err := parseJudge([]byte(head+`{"c2":`+o("violated")+`,"c1":`+o("not_addressed")+`}}`), cons)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(j.Constraints); got != "[{c1 not_addressed r} {c2 violated r}]" || j.Assistance != 4 || j.Cultural != 3 || j.Language != 5 {
		t.Errorf("verdict %s %+v", got, j)
	}
	for reply, want := range map[string]string{
		`{"c1":` + o("violated") + `,"c2":` + o("violated") + `,"c3":` + o("violated") + `}`: `"c3" is not a constraint of the episode (ids: c1, c2)`,
		`{"c1":` + o("violated") + `,"c1":` + o("violated") + `,"c2":` + o("violated") + `}`: `c1 is judged twice`,
		`{"c2":` + o("violated") + `}`:                                        `no outcome for c1`,
		`{"c1":` + o("violated") + `,"c2":` + o("fine") + `}`:                 `c2: outcome "fine"`,
		`[{"id":"c1","outcome":"violated"},{"id":"c2","outcome":"violated"}]`: `want an object with an outcome per constraint id`,
		`{"c1":"violated","c2":` + o("violated") + `}`:                        `constraints: c1:`,
	} {
		if _, err := parseJudge([]byte(head+reply+`}`), cons); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", reply, err, want)
		}
	}
}

// The stage makes an episode's schemas once per list of ids and reveal
// modes: the same list shares them, a change of either does not.
func TestSchemasSharedByIDs(t *testing.T) {
	s := newStage(t, newFake(t, llmtest.Options{}), Options{}, map[string]string{"a": "good"}, "sim")
	get := func(cons []record.Constraint) replySchemas {
		t.Helper()
		rs, err := s.schemas(cons)
		if err != nil {
			t.Fatal(err)
		}
		return rs
	}
	base := get(spec("s1").Episode.Constraints)
	if get(spec("s2").Episode.Constraints) != base {
		t.Error("the same ids and reveal modes made new schemas")
	}
	other := spec("s3").Episode.Constraints
	other[1].Reveal = episode.RevealNever
	if rs := get(other); rs.user == base.user || rs.judge == base.judge {
		t.Error("other reveal modes shared the schemas")
	}
	other = spec("s4").Episode.Constraints[:2]
	if rs := get(other); rs.user == base.user || rs.judge == base.judge {
		t.Error("other ids shared the schemas")
	}
}
