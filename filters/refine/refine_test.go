package refine

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/prompt"
	"github.com/ngkit/ngkit/pkg/record"
)

// scripted runs one seed of culture/category through the stage with the
// judge replies given for each version (the seed first) and rewrites
// taken from the fixture, and returns the output, the rewrites used, the
// calls made and the error.
func scripted(t *testing.T, seed *record.Record, mod func(*Options), judges ...string) ([]*record.Record, []*record.Record, []string, error) {
	t.Helper()
	f := &fakeCaller{}
	rws := pick(t, seed.Culture, kindClean, seed.Category)
	rws = slices.DeleteFunc(rws, func(r *record.Record) bool { return r.ID == seed.ID })
	for i, j := range judges {
		f.script(seed.ID, "judge."+itoa(i), j)
		if i > 0 {
			f.script(seed.ID, "rewrite."+itoa(i), rewritten(rws[i-1]))
		}
	}
	in := *seed
	out, err := testStage(t, f, mod).Process(context.Background(), &in)
	var calls []string
	for _, r := range f.reqs {
		calls = append(calls, r.Call)
	}
	return out, rws, calls, err
}

func itoa(i int) string { return string(rune('0' + i)) }

func TestAcceptedAsItCame(t *testing.T) {
	seed := pick(t, "korean", kindClean, "thanks")[0]
	out, _, calls, err := scripted(t, seed, nil, judged(5, 4, 0, "좋습니다."))
	if err != nil {
		t.Fatal(err)
	}
	r := out[0]
	ref := r.Refinement
	if !ref.Accepted || ref.Rounds != 0 || *ref.Before != *ref.After || ref.After.TaskRelevance != 5 || ref.After.LinguisticQuality != 4 || ref.Critique != "좋습니다." {
		t.Errorf("refinement %+v before %+v after %+v", ref, ref.Before, ref.After)
	}
	if r.ID != seed.ID || r.Scenario != seed.Scenario || r.Situation != seed.Situation {
		t.Error("an accepted seed changed")
	}
	if !slices.Equal(calls, []string{"judge.0"}) || len(r.Gen) != 1 || r.Gen[0].Call != "judge.0" || r.Gen[0].PromptPack != prompt.Builtin().Version() {
		t.Errorf("calls %v gen %+v", calls, r.Gen)
	}
	if len(ref.ExemplarIDs) != DefaultK {
		t.Errorf("exemplars %v", ref.ExemplarIDs)
	}
	for _, id := range ref.ExemplarIDs {
		i := slices.IndexFunc(normbank.BuiltinExemplars(), func(e normbank.Exemplar) bool { return e.ID == id })
		if i < 0 || normbank.BuiltinExemplars()[i].Category != "thanks" || normbank.BuiltinExemplars()[i].Culture != "korean" {
			t.Errorf("exemplar %s is not a korean thanks exemplar", id)
		}
	}
}

func TestAcceptedAfterRounds(t *testing.T) {
	for _, tc := range []struct {
		culture string
		judges  []string
	}{
		{"american", []string{judged(3, 2, 0, "Flat."), judged(4, 5, 4, "Good.")}},
		{"chinese", []string{judged(2, 3, 0, "Off the norm."), judged(3, 4, 4, "Closer."), judged(4, 5, 4, "Good.")}},
		{"korean", []string{judged(2, 3, 0, "호칭이 어색합니다."), judged(4, 4, 3, "원래 인물이 사라졌습니다."), judged(5, 5, 4, "좋습니다.")}},
	} {
		t.Run(tc.culture, func(t *testing.T) {
			seed := pick(t, tc.culture, kindClean, "apology")[0]
			out, rws, calls, err := scripted(t, seed, nil, tc.judges...)
			if err != nil {
				t.Fatal(err)
			}
			rounds := len(tc.judges) - 1
			r, ref := out[0], out[0].Refinement
			last := rws[rounds-1]
			if !ref.Accepted || ref.Rounds != rounds || r.Scenario != last.Scenario || r.Situation != last.Situation || r.ID != seed.ID {
				t.Fatalf("refinement %+v, scenario %q", ref, r.Scenario)
			}
			if ref.Before.SemanticPreservation != 0 || ref.After.SemanticPreservation == 0 || ref.Before.TaskRelevance == ref.After.TaskRelevance {
				t.Errorf("before %+v after %+v", ref.Before, ref.After)
			}
			want := []string{"judge.0"}
			for i := 1; i <= rounds; i++ {
				want = append(want, "rewrite."+itoa(i), "judge."+itoa(i))
			}
			if !slices.Equal(calls, want) || len(r.Gen) != len(want) {
				t.Errorf("calls %v, %d gen", calls, len(r.Gen))
			}
		})
	}
}

// Never good enough: the best version is kept (highest lowest score, ties
// to the later), with accepted=false and its scores and critique.
func TestNeverAcceptedKeepsBest(t *testing.T) {
	seed := pick(t, "chinese", kindClean, "request")[0]
	out, rws, _, err := scripted(t, seed, nil,
		judged(2, 2, 0, "v0"), judged(3, 3, 4, "v1"), judged(2, 4, 4, "v2"), judged(3, 4, 3, "v3"))
	if err != nil {
		t.Fatal(err)
	}
	r, ref := out[0], out[0].Refinement
	if ref.Accepted || ref.Rounds != 3 || ref.Critique != "v3" || r.Scenario != rws[2].Scenario || *ref.After != (record.Scores{TaskRelevance: 3, LinguisticQuality: 4, SemanticPreservation: 3}) {
		t.Errorf("kept %+v after %+v, scenario %q", ref, ref.After, r.Scenario)
	}
	// A later version that is worse does not replace the best.
	out, rws, _, err = scripted(t, seed, nil,
		judged(2, 2, 0, "v0"), judged(3, 3, 4, "v1"), judged(2, 4, 4, "v2"), judged(4, 4, 2, "v3"))
	if err != nil || out[0].Scenario != rws[0].Scenario || out[0].Refinement.Critique != "v1" {
		t.Errorf("%v: kept %q", err, out[0].Refinement.Critique)
	}
	// Every rewrite worse than the seed: the seed is kept.
	out, _, _, err = scripted(t, seed, nil,
		judged(3, 3, 0, "v0"), judged(2, 3, 4, "v1"), judged(2, 4, 4, "v2"), judged(1, 4, 2, "v3"))
	if err != nil || out[0].Scenario != seed.Scenario || out[0].Refinement.Critique != "v0" || out[0].Refinement.Rounds != 3 {
		t.Errorf("%v: kept %+v", err, out[0].Refinement)
	}
}

func TestDropRejected(t *testing.T) {
	seed := pick(t, "american", kindClean, "greeting")[0]
	drop := func(o *Options) { o.DropRejected, o.MaxRounds = true, 2 }
	in := *seed
	out, _, calls, err := scripted(t, &in, drop, judged(2, 2, 0, "v0"), judged(3, 3, 4, "Still stiff."), judged(2, 4, 4, "v2"))
	if err == nil || out != nil {
		t.Fatal("a rejected seed was kept")
	}
	for _, want := range []string{"not accepted after 2 rewrite round(s)", "task_relevance 3, linguistic_quality 3, semantic_preservation 4", "want 4 or more", "Still stiff."} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if len(calls) != 5 || in.Refinement != nil || in.Scenario != seed.Scenario || in.Gen != nil {
		t.Errorf("calls %v; the failed record changed: %+v", calls, in.Refinement)
	}
	// An accepted seed is kept as usual.
	if out, _, _, err := scripted(t, seed, drop, judged(4, 4, 0, "ok")); err != nil || !out[0].Refinement.Accepted {
		t.Errorf("%v", err)
	}
}

// A seed that breaks the exemplar rule (here: a Korean seed written in
// English) is rewritten even when the judge is content, and the rewrite
// prompt names the rules it breaks.
func TestFlawedSeedIsRewritten(t *testing.T) {
	for _, culture := range []string{"american", "chinese", "korean"} {
		seed := pick(t, culture, kindFlawed, "")[0]
		f := &fakeCaller{}
		rw := pick(t, culture, kindClean, seed.Category)[0]
		f.script(seed.ID, "judge.0", judged(5, 5, 0, "Fine."))
		f.script(seed.ID, "rewrite.1", rewritten(rw))
		f.script(seed.ID, "judge.1", judged(5, 5, 5, "Fine."))
		out, err := testStage(t, f, nil).Process(context.Background(), seed)
		if err != nil {
			t.Fatal(err)
		}
		if ref := out[0].Refinement; !ref.Accepted || ref.Rounds != 1 || out[0].Scenario != rw.Scenario {
			t.Errorf("%s: %+v", culture, ref)
		}
		if p := f.reqs[1].Messages[1].Content; !strings.Contains(p, "sentences, want 3-5") && !strings.Contains(p, "want "+seed.Lang) {
			t.Errorf("%s: the rewrite prompt does not name the broken rule:\n%s", culture, p)
		}
	}
	// With no rounds allowed, it is kept as it came, not accepted.
	seed := pick(t, "korean", kindFlawed, "")[0]
	f := &fakeCaller{}
	f.script(seed.ID, "judge.0", judged(5, 5, 0, "Fine."))
	out, err := testStage(t, f, func(o *Options) { o.MaxRounds = 0 }).Process(context.Background(), seed)
	if err != nil || out[0].Refinement.Accepted || out[0].Refinement.Rounds != 0 || out[0].Scenario != seed.Scenario {
		t.Errorf("%v %+v", err, out[0].Refinement)
	}
}

// Rewrites that break a rule are refused (the runtime asks again).
func TestRewriteChecks(t *testing.T) {
	seed := pick(t, "korean", kindClean, "leave")[0]
	en := pick(t, "american", kindClean, "leave")[0]
	long := pick(t, "korean", kindFlawed, "respond_compliments")[0]
	for name, tc := range map[string]struct{ reply, want string }{
		"english":   {rewritten(en), "scenario is in en"},
		"too long":  {rewritten(long), "situation has"},
		"unchanged": {rewritten(seed), "the rewrite is the seed unchanged"},
		"markers":   {`{"scenario": "**민수**가 부장님께 인사한다.", "situation": "민수는 퇴근 전에 부장님께 인사를 드렸다. 부장님은 웃으며 고개를 끄덕였다. 민수는 내일 뵙겠다고 말했다. [END]"}`, "format marker"},
	} {
		f := &fakeCaller{}
		f.script(seed.ID, "judge.0", judged(2, 2, 0, "Weak."))
		f.script(seed.ID, "rewrite.1", tc.reply)
		_, err := testStage(t, f, nil).Process(context.Background(), seed)
		if err == nil || !strings.Contains(err.Error(), "call rewrite.1") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestNotASeed(t *testing.T) {
	s := testStage(t, &fakeCaller{}, nil)
	seed := pick(t, "korean", kindClean, "leave")[0]
	for name, tc := range map[string]struct {
		mod  func(*record.Record)
		want string
	}{
		"no norm":          {func(r *record.Record) { r.Norm = "" }, "not a seed to refine: no norm"},
		"nothing":          {func(r *record.Record) { *r = record.Record{ID: "x"} }, "no culture, category, norm, scenario, situation"},
		"unknown culture":  {func(r *record.Record) { r.Culture = "atlantean" }, `unknown culture "atlantean"`},
		"unknown category": {func(r *record.Record) { r.Category = "haggling" }, `no exemplars of culture "korean" and category "haggling" in --exemplars builtin`},
	} {
		r := *seed
		tc.mod(&r)
		if _, err := s.Process(context.Background(), &r); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// Refining a built-in exemplar never shows it itself as an exemplar.
func TestSeedIsNotItsOwnExemplar(t *testing.T) {
	e := normbank.Exemplars("chinese", "thanks", "adherence")[0]
	seed := e.Record()
	f := &fakeCaller{}
	f.script(seed.ID, "judge.0", judged(5, 5, 0, "ok"))
	out, err := testStage(t, f, nil).Process(context.Background(), seed)
	if err != nil {
		t.Fatal(err)
	}
	if ids := out[0].Refinement.ExemplarIDs; len(ids) != DefaultK || slices.Contains(ids, e.ID) {
		t.Errorf("exemplars %v include the seed %s", ids, e.ID)
	}
	if strings.Contains(f.reqs[0].Messages[1].Content, "<exemplar") {
		t.Error("the judge prompt shows exemplars")
	}
}

// User exemplars replace the built-in ones; K bounds how many are used.
func TestUserExemplars(t *testing.T) {
	seed := pick(t, "american", kindClean, "empathy")[0]
	var pool []normbank.Exemplar
	for _, r := range pick(t, "american", kindClean, "empathy")[1:] {
		e, err := normbank.ExemplarFromRecord(r)
		if err != nil {
			t.Fatal(err)
		}
		pool = append(pool, e)
	}
	f := &fakeCaller{}
	f.script(seed.ID, "judge.0", judged(2, 2, 0, "Weak."))
	f.script(seed.ID, "rewrite.1", rewritten(pick(t, "american", kindClean, "empathy")[1]))
	f.script(seed.ID, "judge.1", judged(5, 5, 5, "Good."))
	s := testStage(t, f, func(o *Options) { o.Exemplars, o.ExemplarSource, o.K = pool, "mine.jsonl", 2 })
	out, err := s.Process(context.Background(), seed)
	if err != nil {
		t.Fatal(err)
	}
	ids := out[0].Refinement.ExemplarIDs
	if len(ids) != 2 || !slices.ContainsFunc(pool, func(e normbank.Exemplar) bool { return e.ID == ids[0] }) {
		t.Errorf("exemplars %v", ids)
	}
	if n := strings.Count(f.reqs[1].Messages[1].Content, "</exemplar>"); n != 2 {
		t.Errorf("%d exemplars in the rewrite prompt", n)
	}
	r := *pick(t, "chinese", kindClean, "empathy")[0]
	if _, err := s.Process(context.Background(), &r); err == nil || !strings.Contains(err.Error(), "in --exemplars mine.jsonl") {
		t.Errorf("%v", err)
	}
}

func TestOptions(t *testing.T) {
	base := Options{K: 3, MinScore: 4, MaxRounds: 3, Exemplars: normbank.BuiltinExemplars(), Pack: prompt.Builtin()}
	for _, tc := range []struct {
		mod  func(*Options)
		want string
	}{
		{func(o *Options) { o.K = 0 }, "--k 0"},
		{func(o *Options) { o.MinScore = 6 }, "--min-score 6: want 1-5"},
		{func(o *Options) { o.MaxRounds = -1 }, "--max-rounds -1"},
		{func(o *Options) { o.Exemplars = nil }, "no exemplars"},
	} {
		o := base
		tc.mod(&o)
		if _, err := New(&fakeCaller{}, o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v, want %q", err, tc.want)
		}
	}
}

// A failed call fails the record, which reaches the errors file unchanged.
func TestCallErrorKeepsRecord(t *testing.T) {
	seed := pick(t, "korean", kindClean, "leave")[0]
	in := *seed
	f := &fakeCaller{}
	f.script(seed.ID, "judge.0", judged(2, 2, 0, "Weak."))
	_, err := testStage(t, f, nil).Process(context.Background(), &in)
	if err == nil || !strings.Contains(err.Error(), "rewrite.1") || in.Refinement != nil || in.Gen != nil {
		t.Errorf("%v %+v", err, in.Refinement)
	}
}
