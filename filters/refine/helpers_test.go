package refine

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/prompt"
	"github.com/ngkit/ngkit/pkg/record"
)

var fixtureOnce = sync.OnceValues(func() ([]*record.Record, error) {
	b, err := os.ReadFile(fixturePath)
	if err != nil {
		return nil, err
	}
	var out []*record.Record
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		r := &record.Record{}
		if err := r.UnmarshalJSON(sc.Bytes()); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, sc.Err()
})

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
		if err := req.Check(resp); err != nil {
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

// judged is a judge reply; sp 0 leaves semantic preservation out.
func judged(tr, lq, sp int, critique string) string {
	m := map[string]any{"task_relevance": tr, "linguistic_quality": lq, "critique": critique}
	if sp > 0 {
		m["semantic_preservation"] = sp
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// rewritten is a rewrite reply of the release record r's texts.
func rewritten(r *record.Record) string {
	b, _ := json.Marshal(map[string]string{"scenario": r.Scenario, "situation": r.Situation})
	return string(b)
}

// pick returns fixture records of a culture and kind, in fixture order,
// optionally of a category ("" for any).
func pick(t testing.TB, culture, kind, category string) []*record.Record {
	t.Helper()
	var out []*record.Record
	for _, r := range fixture(t) {
		k, _ := r.ExtraString("fixture")
		if r.Culture == culture && k == kind && (category == "" || r.Category == category) {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no %s %s records of category %q in the fixture", culture, kind, category)
	}
	return out
}

func testStage(t testing.TB, c Caller, mod func(*Options)) *Stage {
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
