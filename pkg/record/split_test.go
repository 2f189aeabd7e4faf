package record

import (
	"strconv"
	"testing"
)

func TestParseSplits(t *testing.T) {
	s, err := ParseSplits("train=0.8, dev=0.1,test=0.1")
	if err != nil || len(s) != 3 || s[1].Name != "dev" {
		t.Fatalf("%v %v", s, err)
	}
	for _, bad := range []string{"train=0.5", "train=1.1", "a=0.5,a=0.5", "=1", "train", "a=x,b=1", "a=-0.5,b=1.5"} {
		if _, err := ParseSplits(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestAssignShares(t *testing.T) {
	s, _ := ParseSplits("train=0.9,test=0.1")
	n := map[string]int{}
	for i := 0; i < 20000; i++ {
		n[AssignSplit(s, NewID(strconv.Itoa(i)))]++
	}
	if n["test"] < 1800 || n["test"] > 2200 {
		t.Errorf("test share %d of 20000", n["test"])
	}
	// Pinned: a split must not move between versions.
	if a, b := AssignSplit(s, "e3782b806605f052"), AssignSplit(s, "0b918943df0962bc"); a != "train" || b != "test" {
		t.Errorf("Assign = %s, %s", a, b)
	}
}
