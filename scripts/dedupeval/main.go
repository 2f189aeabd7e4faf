// Command dedupeval scores near-duplicate finders against the exact
// Jaccard similarity of the texts' shingle sets (pkg/dedup's shingles:
// 5 characters, 3 for Han, kana and Hangul, of the normalized text), for
// scripts/bench-peers.sh:
//
//	go run ./scripts/dedupeval -texts T.jsonl -threshold 0.6 ngkit=A.tsv datatrove=B.tsv
//
// T.jsonl holds {"id", "text"} lines; each TOOL=FILE is a TSV of "id
// cluster" lines, one per record the tool put in a cluster of two or more
// (records it left alone are absent). The pairs judged are pooled: every
// pair of records that any tool put in one cluster (at most -max-pairs per
// tool, drawn at random) and every pair of a random sample of -sample
// records. For each tool it prints one line:
//
//	TOOL precision P recall R pairs N
//
// precision: the share of the tool's pairs at or above the threshold;
// recall: the share of the pooled pairs at or above the threshold that the
// tool put in one cluster.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"hash/maphash"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strings"

	"github.com/ngkit/ngkit/pkg/dedup"
)

func main() {
	texts := flag.String("texts", "", "JSONL `FILE` of {\"id\", \"text\"}")
	threshold := flag.Float64("threshold", 0.6, "similarity `T` at which a pair is a near-duplicate")
	sample := flag.Int("sample", 2000, "records of the random sample whose every pair is judged, `N`")
	maxPairs := flag.Int("max-pairs", 200000, "most pairs judged of each tool, `N`")
	flag.Parse()
	if *texts == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: dedupeval -texts T.jsonl TOOL=CLUSTERS.tsv ...")
		os.Exit(2)
	}
	ids, docs, err := readTexts(*texts)
	if err != nil {
		fail(err)
	}
	var tools []tool
	for _, arg := range flag.Args() {
		name, file, ok := strings.Cut(arg, "=")
		if !ok {
			fail(fmt.Errorf("%s: want TOOL=FILE", arg))
		}
		cl, err := readClusters(file, ids)
		if err != nil {
			fail(err)
		}
		tools = append(tools, tool{name, cl})
	}
	for _, line := range score(docs, tools, *threshold, *sample, *maxPairs, rand.New(rand.NewPCG(42, 42))) {
		fmt.Println(line)
	}
}

type tool struct {
	name    string
	cluster []int // per record: its cluster, or -1
}

type pair struct{ a, b int }

func ordered(a, b int) pair {
	if a > b {
		a, b = b, a
	}
	return pair{a, b}
}

// score judges the pooled pairs and returns one line per tool.
func score(docs [][]uint64, tools []tool, threshold float64, sample, maxPairs int, rng *rand.Rand) []string {
	pool := map[pair]bool{}
	own := make([][]pair, len(tools))
	for i, t := range tools {
		own[i] = clusterPairs(t.cluster, maxPairs, rng)
		for _, p := range own[i] {
			pool[p] = true
		}
	}
	idx := rng.Perm(len(docs))[:min(sample, len(docs))]
	for i, a := range idx {
		for _, b := range idx[i+1:] {
			pool[ordered(a, b)] = true
		}
	}
	near := map[pair]bool{}
	for p := range pool {
		if jaccard(docs[p.a], docs[p.b]) >= threshold {
			near[p] = true
		}
	}
	var lines []string
	for i, t := range tools {
		hit := 0
		for _, p := range own[i] {
			if near[p] {
				hit++
			}
		}
		found := 0
		for p := range near {
			if t.cluster[p.a] >= 0 && t.cluster[p.a] == t.cluster[p.b] {
				found++
			}
		}
		lines = append(lines, fmt.Sprintf("%s precision %s recall %s pairs %d near %d",
			t.name, share(hit, len(own[i])), share(found, len(near)), len(own[i]), len(near)))
	}
	return lines
}

func share(a, b int) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.4f", float64(a)/float64(b))
}

// clusterPairs lists every pair of records in one cluster, or maxPairs of
// them drawn at random when there are more.
func clusterPairs(cluster []int, maxPairs int, rng *rand.Rand) []pair {
	members := map[int][]int{}
	for i, c := range cluster {
		if c >= 0 {
			members[c] = append(members[c], i)
		}
	}
	total := 0
	for _, m := range members {
		total += len(m) * (len(m) - 1) / 2
	}
	keep := 1.0
	if total > maxPairs {
		keep = float64(maxPairs) / float64(total)
	}
	var out []pair
	for _, m := range members {
		for i, a := range m {
			for _, b := range m[i+1:] {
				if keep == 1 || rng.Float64() < keep {
					out = append(out, ordered(a, b))
				}
			}
		}
	}
	return out
}

var seed = maphash.MakeSeed()

// shingles is the sorted set of hashes of a text's shingles, as
// dedup.Jaccard takes them.
func shingles(text string) []uint64 {
	rs := dedup.Normalize(text)
	w := dedup.Width(rs)
	var out []uint64
	if len(rs) <= w {
		if len(rs) > 0 {
			out = append(out, maphash.String(seed, string(rs)))
		}
		return out
	}
	for i := 0; i+w <= len(rs); i++ {
		out = append(out, maphash.String(seed, string(rs[i:i+w])))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func jaccard(a, b []uint64) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	inter, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			inter++
			i++
			j++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

func readTexts(path string) (map[string]int, [][]uint64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	ids := map[string]int{}
	var docs [][]uint64
	dec := json.NewDecoder(bufio.NewReader(f))
	for n := 1; ; n++ {
		var d struct{ ID, Text string }
		if err := dec.Decode(&d); err == io.EOF {
			break
		} else if err != nil {
			return nil, nil, fmt.Errorf("%s: record %d: %v", path, n, err)
		}
		if _, dup := ids[d.ID]; dup {
			return nil, nil, fmt.Errorf("%s: record %d: id %q twice", path, n, d.ID)
		}
		ids[d.ID] = len(docs)
		docs = append(docs, shingles(d.Text))
	}
	return ids, docs, nil
}

func readClusters(path string, ids map[string]int) ([]int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cluster := make([]int, len(ids))
	for i := range cluster {
		cluster[i] = -1
	}
	names := map[string]int{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		id, c, ok := strings.Cut(sc.Text(), "\t")
		i, known := ids[id]
		if !ok || !known {
			return nil, fmt.Errorf("%s:%d: want \"id<TAB>cluster\" with an id of the texts", path, n)
		}
		if _, seen := names[c]; !seen {
			names[c] = len(names)
		}
		cluster[i] = names[c]
	}
	return cluster, sc.Err()
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "dedupeval: %v\n", err)
	os.Exit(2)
}
