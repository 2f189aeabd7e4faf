package normbank

import (
	"math"
	"sort"
	"strings"
	"unicode"
)

// Index finds the exemplars most similar to a text by TF-IDF cosine over
// character 2- and 3-grams. Character n-grams need no tokenizer, so the
// same measure works for English words, Korean syllables and Chinese
// characters. Build one per pool (a culture and category) and reuse it; it
// is immutable and safe for concurrent use.
//
// Text is lower-cased and every run of characters that are neither
// letters nor digits becomes one space (the text is padded with one at
// each end), so n-grams see word starts and ends but not punctuation. A
// gram's weight is (1 + ln tf) × idf with idf = ln((1+N)/(1+df)) + 1 over
// the N exemplars of the pool. Results are deterministic: they do not
// depend on the order of the pool, and equal scores are broken by id.
type Index struct {
	pool  []Exemplar
	docs  []vector
	vocab map[string]int32 // gram -> id; ids follow the sorted order of grams
	idf   []float64
}

// vector is a sparse vector sorted by gram id, with its Euclidean norm.
type vector struct {
	ids  []int32
	w    []float64
	norm float64
}

// Match is an exemplar and its cosine similarity to the query, in [0, 1].
type Match struct {
	Exemplar Exemplar
	Score    float64
}

// NewIndex indexes the exemplars' Text (scenario and situation).
func NewIndex(pool []Exemplar) *Index {
	ix := &Index{pool: append([]Exemplar(nil), pool...), vocab: map[string]int32{}}
	counts := make([]map[string]int, len(ix.pool))
	df := map[string]int{}
	for i := range ix.pool {
		counts[i] = grams(ix.pool[i].Text())
		for g := range counts[i] {
			df[g]++
		}
	}
	all := make([]string, 0, len(df))
	for g := range df {
		all = append(all, g)
	}
	sort.Strings(all)
	ix.idf = make([]float64, len(all))
	n := float64(len(ix.pool))
	for i, g := range all {
		ix.vocab[g] = int32(i)
		ix.idf[i] = math.Log((1+n)/(1+float64(df[g]))) + 1
	}
	ix.docs = make([]vector, len(ix.pool))
	for i, c := range counts {
		ix.docs[i] = ix.vector(c)
	}
	return ix
}

// unseenIDF is the idf of a query gram no exemplar has (df = 0). Such
// grams only lengthen the query vector, which scales every score alike.
func (ix *Index) unseenIDF() float64 { return math.Log(1+float64(len(ix.pool))) + 1 }

// vector weighs gram counts; grams outside the vocabulary count only
// toward the norm. Sums run in a fixed order so that scores are the same
// bit for bit on every run.
func (ix *Index) vector(counts map[string]int) vector {
	type entry struct {
		id int32
		tf int
	}
	var seen []entry
	var unseen []int
	for g, tf := range counts {
		if id, ok := ix.vocab[g]; ok {
			seen = append(seen, entry{id, tf})
		} else {
			unseen = append(unseen, tf)
		}
	}
	sort.Slice(seen, func(a, b int) bool { return seen[a].id < seen[b].id })
	sort.Ints(unseen)
	v := vector{ids: make([]int32, len(seen)), w: make([]float64, len(seen))}
	var sq float64
	for i, e := range seen {
		v.ids[i] = e.id
		v.w[i] = (1 + math.Log(float64(e.tf))) * ix.idf[e.id]
		sq += v.w[i] * v.w[i]
	}
	for _, tf := range unseen {
		w := (1 + math.Log(float64(tf))) * ix.unseenIDF()
		sq += w * w
	}
	v.norm = math.Sqrt(sq)
	return v
}

func cosine(a, b vector) float64 {
	if a.norm == 0 || b.norm == 0 {
		return 0
	}
	var dot float64
	for i, j := 0, 0; i < len(a.ids) && j < len(b.ids); {
		switch {
		case a.ids[i] < b.ids[j]:
			i++
		case a.ids[i] > b.ids[j]:
			j++
		default:
			dot += a.w[i] * b.w[j]
			i++
			j++
		}
	}
	s := dot / (a.norm * b.norm)
	// Rounded so that scores equal in exact arithmetic compare equal and
	// the id decides, whatever rounding the sums met.
	return math.Round(s*1e12) / 1e12
}

// Search returns the k exemplars most similar to text, best first, with
// their scores; equal scores are ordered by id. k <= 0 gives none; a k
// larger than the pool gives the whole pool.
func (ix *Index) Search(text string, k int) []Match {
	if k <= 0 || len(ix.pool) == 0 {
		return nil
	}
	q := ix.vector(grams(text))
	ms := make([]Match, len(ix.pool))
	for i := range ix.pool {
		ms[i] = Match{Exemplar: ix.pool[i], Score: cosine(q, ix.docs[i])}
	}
	sort.Slice(ms, func(a, b int) bool {
		if ms[a].Score != ms[b].Score {
			return ms[a].Score > ms[b].Score
		}
		return ms[a].Exemplar.ID < ms[b].Exemplar.ID
	})
	if k < len(ms) {
		ms = ms[:k]
	}
	return ms
}

// Nearest returns the k exemplars most similar to text, best first.
func (ix *Index) Nearest(text string, k int) []Exemplar {
	ms := ix.Search(text, k)
	if len(ms) == 0 {
		return nil
	}
	out := make([]Exemplar, len(ms))
	for i, m := range ms {
		out[i] = m.Exemplar
	}
	return out
}

// Nearest returns the k exemplars of pool most similar to seedText (use
// SeedText(scenario, situation)), best first; see Index. It indexes the
// pool on every call: for many seeds, build an Index once.
func Nearest(seedText string, pool []Exemplar, k int) []Exemplar {
	return NewIndex(pool).Nearest(seedText, k)
}

// grams counts the character 2- and 3-grams of normalized text.
func grams(text string) map[string]int {
	rs := normalizeRunes(text)
	out := map[string]int{}
	for n := 2; n <= 3; n++ {
		for i := 0; i+n <= len(rs); i++ {
			out[string(rs[i:i+n])]++
		}
	}
	return out
}

// normalizeRunes lower-cases text and turns each run of other characters
// than letters and digits into one space, with a space at each end.
func normalizeRunes(text string) []rune {
	rs := make([]rune, 0, len(text)+2)
	rs = append(rs, ' ')
	for _, r := range strings.ToLower(text) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			rs = append(rs, r)
		} else if rs[len(rs)-1] != ' ' {
			rs = append(rs, ' ')
		}
	}
	if rs[len(rs)-1] != ' ' {
		rs = append(rs, ' ')
	}
	if len(rs) == 1 {
		return nil
	}
	return rs
}
