package refine

import (
	"context"
	"slices"
	"testing"
)

// A judge of its own: every judge call goes to it, every rewrite to the
// stage's caller.
func TestJudgeOfItsOwn(t *testing.T) {
	seeds := pick(t, "american", kindClean, "apology")
	seed := seeds[0]
	writer, judge := &fakeCaller{}, &fakeCaller{}
	judge.script(seed.ID, "judge.0", judged(3, 2, 0, "Flat."))
	writer.script(seed.ID, "rewrite.1", rewritten(seeds[1]))
	judge.script(seed.ID, "judge.1", judged(4, 5, 4, "Good."))
	s := testStage(t, writer, func(o *Options) { o.Judge = judge })
	out, err := s.Process(context.Background(), seed)
	if err != nil {
		t.Fatal(err)
	}
	calls := func(f *fakeCaller) (c []string) {
		for _, r := range f.reqs {
			c = append(c, r.Call)
		}
		return c
	}
	if !slices.Equal(calls(judge), []string{"judge.0", "judge.1"}) || !slices.Equal(calls(writer), []string{"rewrite.1"}) || !out[0].Refinement.Accepted {
		t.Fatalf("judge %v, writer %v, %+v", calls(judge), calls(writer), out[0].Refinement)
	}
}
