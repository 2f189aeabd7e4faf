package record

import (
	"fmt"
	"math"
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

// TestAssignShares holds each split's share within sampling error on the
// id shapes users have: hashes (ngkit's own ids), sequential row numbers,
// bare numbers and zero-padded names.
func TestAssignShares(t *testing.T) {
	s, _ := ParseSplits("train=0.9,test=0.1")
	shapes := map[string]func(int) string{
		"ngkit ids":  func(i int) string { return NewID(strconv.Itoa(i)) },
		"row-N":      func(i int) string { return "row-" + strconv.Itoa(i) },
		"N":          strconv.Itoa,
		"item_0000N": func(i int) string { return fmt.Sprintf("item_%05d", i) },
	}
	for name, id := range shapes {
		for _, n := range []int{1000, 20000} {
			test := 0
			for i := 1; i <= n; i++ {
				if AssignSplit(s, id(i)) == "test" {
					test++
				}
			}
			// Four standard deviations of a binomial(n, 0.1) count.
			want, sd := 0.1*float64(n), math.Sqrt(float64(n)*0.1*0.9)
			if math.Abs(float64(test)-want) > 4*sd {
				t.Errorf("%s, %d ids: %d in test, want %.0f ± %.0f", name, n, test, want, 4*sd)
			}
		}
	}
	// Pinned: a split must not move between versions.
	if a, b := AssignSplit(s, "e3782b806605f052"), AssignSplit(s, "row-2"); a != "train" || b != "test" {
		t.Errorf("Assign = %s, %s", a, b)
	}
}
