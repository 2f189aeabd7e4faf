package seed

import (
	"strings"
	"unicode"
)

// NearDupThreshold is the character n-gram Jaccard similarity (see
// shingles) at or above which two scenarios of one norm count as one.
// Measured on the release: of the ~43,000 pairs of different scenarios of
// one norm, the most similar score 0.59 (English), 0.52 (Korean) and 0.48
// (Chinese), while a scenario with only its names changed scores 0.67,
// 0.70 and 0.69 (TestNearDuplicates).
const NearDupThreshold = 0.6

// normalize lower-cases s and turns every run of characters that are
// neither letters nor digits into one space, so that case, punctuation
// and spacing do not make two scenarios different.
func normalize(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := true
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
			space = false
		} else if !space {
			b.WriteByte(' ')
			space = true
		}
	}
	return strings.TrimSpace(b.String())
}

// shingles is the set of character n-grams of a normalized text: no
// tokenizer, so the same measure works for English words, Korean
// syllables and Chinese characters. n is 3, or 2 for text mostly in Han
// or kana, where one character carries about what a syllable-word does
// (measured on the release: with 3-grams, a Chinese scenario with only
// its names changed scores 0.56; with 2-grams, 0.69).
type shingles map[string]struct{}

func newShingles(norm string) shingles {
	rs := []rune(" " + norm + " ")
	n := 3
	han, letters := 0, 0
	for _, r := range rs {
		if unicode.IsLetter(r) {
			letters++
			if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) {
				han++
			}
		}
	}
	if han*2 > letters {
		n = 2
	}
	set := make(shingles, len(rs))
	if len(rs) < n {
		set[string(rs)] = struct{}{}
		return set
	}
	for i := 0; i+n <= len(rs); i++ {
		set[string(rs[i:i+n])] = struct{}{}
	}
	return set
}

// jaccard is |a ∩ b| / |a ∪ b|, 0 for two empty sets.
func jaccard(a, b shingles) float64 {
	if len(a) > len(b) {
		a, b = b, a
	}
	inter := 0
	for g := range a {
		if _, ok := b[g]; ok {
			inter++
		}
	}
	union := len(a) + len(b) - inter
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}

// dedup keeps texts that are not near-duplicates of one kept before.
type dedup struct {
	norms []string
	sets  []shingles
}

// add keeps s and reports true unless it is a near-duplicate (the same
// normalized text, or an n-gram Jaccard similarity at or above
// NearDupThreshold) of a text kept before.
func (d *dedup) add(s string) bool {
	n := normalize(s)
	set := newShingles(n)
	for i, m := range d.norms {
		if m == n || jaccard(set, d.sets[i]) >= NearDupThreshold {
			return false
		}
	}
	d.norms = append(d.norms, n)
	d.sets = append(d.sets, set)
	return true
}
