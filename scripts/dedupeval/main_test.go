package main

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// Three texts: a and b differ by one word (Jaccard of 5-character shingles
// well above 0.6), c is another text. A tool that clusters a with b is
// right; one that clusters a with c has precision 0 and recall 0.
func TestScore(t *testing.T) {
	a := "the quick brown fox jumps over the lazy dog near the river bank today"
	b := "the quick brown fox jumps over the lazy dog near the river bank"
	c := "completely different words about a meeting at the office next week"
	if j := jaccard(shingles(a), shingles(b)); j < 0.6 || j >= 1 {
		t.Fatalf("jaccard(a, b) = %.2f, want in [0.6, 1)", j)
	}
	if j := jaccard(shingles(a), shingles(c)); j >= 0.6 {
		t.Fatalf("jaccard(a, c) = %.2f, want < 0.6", j)
	}
	docs := [][]uint64{shingles(a), shingles(b), shingles(c)}
	right := tool{"right", []int{0, 0, -1}}
	wrong := tool{"wrong", []int{0, -1, 0}}
	none := tool{"none", []int{-1, -1, -1}}
	got := score(docs, []tool{right, wrong, none}, 0.6, 3, 100, rand.New(rand.NewPCG(1, 1)))
	want := []string{
		"right precision 1.0000 recall 1.0000 pairs 1 near 1",
		"wrong precision 0.0000 recall 0.0000 pairs 1 near 1",
		"none precision - recall 0.0000 pairs 0 near 1",
	}
	if !slices.Equal(got, want) {
		t.Errorf("score:\n got %q\nwant %q", got, want)
	}
}

// A cluster of 4 has 6 pairs; capped at 3, about half are drawn.
func TestClusterPairsCap(t *testing.T) {
	cl := []int{0, 0, 0, 0, -1}
	if n := len(clusterPairs(cl, 100, rand.New(rand.NewPCG(1, 1)))); n != 6 {
		t.Errorf("pairs = %d, want 6", n)
	}
	if n := len(clusterPairs(cl, 3, rand.New(rand.NewPCG(1, 1)))); n == 0 || n == 6 {
		t.Errorf("capped pairs = %d, want some but not all", n)
	}
}
