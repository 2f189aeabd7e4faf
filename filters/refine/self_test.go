package refine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/record"
)

// kiwi is a culture with a profile (the American one, renamed) and no
// exemplars: a new culture.
func kiwi(t *testing.T) func(string) (*normbank.Culture, error) {
	am, err := normbank.BuiltinProfile("american")
	if err != nil {
		t.Fatal(err)
	}
	c := *am
	c.Name, c.DisplayName = "kiwi", "Kiwi"
	return func(name string) (*normbank.Culture, error) {
		if name == "kiwi" {
			return &c, nil
		}
		return normbank.Profile(name)
	}
}

// kiwiSeeds are n clean American apology seeds of the fixture, as kiwi ones.
func kiwiSeeds(t *testing.T, n int) []*record.Record {
	rs := pick(t, "american", kindClean, "apology")
	if len(rs) < n+1 {
		t.Fatalf("only %d fixture seeds", len(rs))
	}
	out := make([]*record.Record, n)
	for i := range out {
		c := *rs[i]
		c.Culture = "kiwi"
		out[i] = &c
	}
	return out
}

type warnings struct {
	mu    sync.Mutex
	lines []string
}

func (w *warnings) warn(format string, args ...any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.lines = append(w.lines, strings.TrimSpace(fmt.Sprintf(format, args...)))
}

// --exemplars self: the first pass judges every seed once, the best-judged
// become the exemplars of the others, and a seed under the bar is
// rewritten toward them; no judge.0 call is made twice.
func TestSelfExemplars(t *testing.T) {
	seeds := kiwiSeeds(t, 5)
	rws := pick(t, "american", kindClean, "apology")[5:]
	f := &fakeCaller{}
	for i, s := range []string{judged(5, 5, 0, "a"), judged(5, 4, 0, "b"), judged(4, 4, 0, "c"), judged(4, 5, 0, "d"), judged(2, 3, 0, "Flat.")} {
		f.script(seeds[i].ID, "judge.0", s)
	}
	f.script(seeds[4].ID, "rewrite.1", rewritten(rws[0]))
	f.script(seeds[4].ID, "judge.1", judged(4, 4, 4, "Good."))
	var w warnings
	st := testStage(t, f, func(o *Options) { o.Exemplars, o.Self, o.Profile, o.Warn = nil, true, kiwi(t), w.warn })
	sum, err := st.FirstPass(context.Background(), seeds, 3)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Judged != 5 || sum.Failed != 0 || sum.Exemplars != DefaultK+1 || !slices.Equal(sum.Groups, []string{"kiwi/apology"}) || len(sum.Without) != 0 {
		t.Fatalf("summary %+v", sum)
	}
	// The best by lowest score, then total, then id.
	best := []string{seeds[0].ID}
	tie := []string{seeds[1].ID, seeds[3].ID}
	slices.Sort(tie)
	best = append(append(best, tie...), seeds[2].ID)
	var got []string
	for _, e := range st.opt.Exemplars {
		got = append(got, e.ID)
	}
	if !slices.Equal(got, best) {
		t.Errorf("exemplars %v, want %v", got, best)
	}
	outs := map[string]*record.Record{}
	for _, s := range seeds {
		in := *s
		out, err := st.Process(context.Background(), &in)
		if err != nil {
			t.Fatalf("%s: %v", s.ID, err)
		}
		outs[s.ID] = out[0]
	}
	judge0 := map[string]int{}
	var rewrite string
	for _, r := range f.reqs {
		if r.Call == "judge.0" {
			judge0[r.ID]++
		}
		if r.Call == "rewrite.1" {
			rewrite = r.Messages[1].Content
		}
	}
	for _, s := range seeds {
		ref := outs[s.ID].Refinement
		if judge0[s.ID] != 1 || slices.Contains(ref.ExemplarIDs, s.ID) || len(ref.ExemplarIDs) != DefaultK {
			t.Errorf("%s: %d judge.0 calls, exemplars %v", s.ID, judge0[s.ID], ref.ExemplarIDs)
		}
		if calls := outs[s.ID].Gen; len(calls) == 0 || calls[0].Call != "judge.0" {
			t.Errorf("%s: gen %+v", s.ID, calls)
		}
	}
	if r := outs[seeds[4].ID]; !r.Refinement.Accepted || r.Refinement.Rounds != 1 || r.Scenario != rws[0].Scenario {
		t.Errorf("the weak seed: %+v", r.Refinement)
	}
	if !strings.Contains(rewrite, "<exemplar 1>") || !strings.Contains(rewrite, seeds[0].Scenario) {
		t.Errorf("the rewrite prompt has not the best seed as an exemplar:\n%s", rewrite)
	}
	if len(w.lines) != 0 {
		t.Errorf("warnings %q", w.lines)
	}
}

// No seed of a category reaches the bar: no exemplars, said once, and its
// seeds are rewritten with the critique alone.
func TestSelfExemplarsNoneQualifies(t *testing.T) {
	seeds := kiwiSeeds(t, 3)
	rws := pick(t, "american", kindClean, "apology")[3:]
	f := &fakeCaller{}
	for i, s := range seeds {
		f.script(s.ID, "judge.0", judged(3, 3, 0, "Weak."))
		f.script(s.ID, "rewrite.1", rewritten(rws[i]))
		f.script(s.ID, "judge.1", judged(4, 4, 4, "Better."))
	}
	var w warnings
	st := testStage(t, f, func(o *Options) { o.Exemplars, o.Self, o.Profile, o.Warn = nil, true, kiwi(t), w.warn })
	sum, err := st.FirstPass(context.Background(), seeds, 2)
	if err != nil || sum.Exemplars != 0 || !slices.Equal(sum.Without, []string{"kiwi/apology"}) {
		t.Fatalf("summary %+v, %v", sum, err)
	}
	for _, s := range seeds {
		in := *s
		out, err := st.Process(context.Background(), &in)
		if err != nil || !out[0].Refinement.Accepted || len(out[0].Refinement.ExemplarIDs) != 0 {
			t.Fatalf("%s: %v %+v", s.ID, err, out)
		}
	}
	for _, r := range f.reqs {
		if r.Call == "rewrite.1" && strings.Contains(r.Messages[1].Content, "<exemplar") {
			t.Errorf("a rewrite prompt with exemplars:\n%s", r.Messages[1].Content)
		}
	}
	if len(w.lines) != 1 || !strings.Contains(w.lines[0], "no seed of kiwi/apology reached --min-score 4 in the first pass") {
		t.Errorf("warnings %q", w.lines)
	}
}

// Without --exemplars self, a culture with no exemplars is named once,
// and each of its seeds fails with a short reason.
func TestNoExemplarsSaidOnce(t *testing.T) {
	seeds := kiwiSeeds(t, 3)
	var w warnings
	st := testStage(t, &fakeCaller{}, func(o *Options) { o.Profile, o.Warn = kiwi(t), w.warn })
	for _, s := range seeds {
		in := *s
		if _, err := st.Process(context.Background(), &in); err == nil || err.Error() != `no exemplars of culture "kiwi" in --exemplars builtin (try --exemplars self)` {
			t.Errorf("%s: %v", s.ID, err)
		}
	}
	if len(w.lines) != 1 || w.lines[0] != `no exemplars of culture "kiwi" in --exemplars builtin: its seeds fail; refine them toward the run's own best seeds with --exemplars self, or give exemplars with --exemplars FILE` {
		t.Errorf("warnings %q", w.lines)
	}
}
