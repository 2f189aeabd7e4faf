package refine

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/ngkit/ngkit/filters/refine/refinetest"
	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/prompt"
	"github.com/ngkit/ngkit/pkg/record"
)

var fixtureOnce = sync.OnceValues(func() ([]*record.Record, error) { return refinetest.LoadFixture(fixturePath) })

// fixture returns copies of the release records of testdata/refine.
func fixture(t testing.TB) []*record.Record {
	t.Helper()
	recs, err := fixtureOnce()
	if err != nil {
		t.Fatal(err)
	}
	out := make([]*record.Record, len(recs))
	for i, r := range recs {
		c := *r
		out[i] = &c
	}
	return out
}

// fakeCaller answers calls in memory, by record id and call name, and
// keeps every request: for tests of the loop and of the prompts.
type fakeCaller struct {
	mu   sync.Mutex
	reqs []llm.Request
	// replies[id][call] is the reply content; a missing one is an error.
	replies map[string]map[string]string
}

func (f *fakeCaller) Call(_ context.Context, req llm.Request) (*llm.Response, error) {
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	content, ok := f.replies[req.ID][req.Call]
	f.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("call %s: no reply scripted for %s", req.Call, req.ID)
	}
	resp := &llm.Response{Text: content, JSON: json.RawMessage(content), Gen: record.Gen{Stage: "ngrefine", Call: req.Call, PromptPack: req.PromptPack}}
	if req.Check != nil {
		if err := req.RunCheck(resp); err != nil {
			return nil, fmt.Errorf("call %s: reply failed the check: %w", req.Call, err)
		}
	}
	return resp, nil
}

func (f *fakeCaller) script(id, call, content string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.replies == nil {
		f.replies = map[string]map[string]string{}
	}
	if f.replies[id] == nil {
		f.replies[id] = map[string]string{}
	}
	f.replies[id][call] = content
}

func judged(tr, lq, sp int, critique string) string { return refinetest.Judged(tr, lq, sp, critique) }

func rewritten(r *record.Record) string { return refinetest.Rewritten(r.Scenario, r.Situation) }

// pick returns fixture records of a culture and kind, in fixture order,
// optionally of a category ("" for any).
func pick(t testing.TB, culture, kind, category string) []*record.Record {
	t.Helper()
	var out []*record.Record
	for _, r := range fixture(t) {
		if r.Culture == culture && refinetest.FixtureKind(r) == kind && (category == "" || r.Category == category) {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no %s %s records of category %q in the fixture", culture, kind, category)
	}
	return out
}

func testStage(t testing.TB, c llm.Caller, mod func(*Options)) *Stage {
	t.Helper()
	opt := Options{K: DefaultK, MinScore: DefaultMinScore, MaxRounds: DefaultMaxRounds,
		Exemplars: normbank.BuiltinExemplars(), Pack: prompt.Builtin()}
	if mod != nil {
		mod(&opt)
	}
	s, err := New(c, opt)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
