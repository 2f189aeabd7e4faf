package seed

import (
	"testing"

	"github.com/ngkit/ngkit/filters/seed/seedtest"
	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/record"
)

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"  Mike apologises, quickly!  ": "mike apologises quickly",
		"小王向李经理道歉。":                     "小王向李经理道歉",
		"민수는 — 부장님께   사과한다.":            "민수는 부장님께 사과한다",
		"":    "",
		"...": "",
	} {
		if got := normalize(in); got != want {
			t.Errorf("normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

// A scenario with only its names changed, or the same text with other
// case and punctuation, is a near-duplicate in all three languages; the
// release's distinct scenarios of one category are not.
func TestNearDuplicates(t *testing.T) {
	for _, p := range [][2]string{
		{"Minsu apologises to his manager Mr Kim after arriving late to the Monday meeting.",
			"Jiwoo apologises to her manager Mr Park after arriving late to the Monday meeting."},
		{"민수는 월요일 회의에 늦은 뒤 김 부장님께 변명 없이 사과한다.", "지우는 월요일 회의에 늦은 뒤 박 부장님께 변명 없이 사과한다."},
		{"小王在周一的会议上迟到后，立刻向李经理道歉。", "小张在周一的会议上迟到后，立刻向刘经理道歉。"},
		{"Mike thanks his neighbour.", "MIKE thanks his neighbour!!"},
	} {
		var d dedup
		if !d.add(p[0]) || d.add(p[1]) {
			t.Errorf("not a near-duplicate (%.2f):\n%s\n%s", jaccard(newShingles(normalize(p[0])), newShingles(normalize(p[1]))), p[0], p[1])
		}
	}
	// A paraphrase is beyond a cheap measure: kept.
	var d dedup
	if !d.add("小王在周一的会议上迟到后，立刻向李经理道歉。") || !d.add("周一开会时小王迟到了，他马上向李经理道歉。") {
		t.Error("a paraphrase counted as a near-duplicate")
	}
	pool, err := seedtest.Load("")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range normbank.NormCultures() {
		for _, cat := range normbank.Categories() {
			var d dedup
			for _, x := range pool.Pairs(c, cat, record.TypeAdherence) {
				if !d.add(x.Scenario) {
					t.Errorf("%s %s: release scenario %s dropped as a near-duplicate", c, cat, x.ID)
				}
			}
		}
	}
}

func TestPick(t *testing.T) {
	list := []string{"a", "b", "c", "d", "e"}
	got := pick(list, 3, "norm-1")
	if len(got) != 3 || got[0] == got[1] {
		t.Fatalf("pick: %v", got)
	}
	if again := pick(list, 3, "norm-1"); again[0] != got[0] {
		t.Error("pick is not stable")
	}
	if all := pick(list, 9, "x"); len(all) != 5 {
		t.Errorf("pick more than the list: %v", all)
	}
}
