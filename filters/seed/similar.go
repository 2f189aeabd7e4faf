package seed

import (
	"strings"
	"unicode"
)

// NearDupThreshold is the character 3-gram Jaccard similarity at or above
// which two scenarios of one norm count as the same scenario. Measured on
// the release (see similar_test.go): distinct scenarios of one norm score
// below 0.4 in all three languages, the same scenario reworded a little
// scores above 0.6.
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

// shingles is the set of character 3-grams of a normalized text; the
// same measure works for English words, Korean syllables and Chinese
// characters, with no tokenizer.
type shingles map[string]struct{}

func newShingles(norm string) shingles {
	rs := []rune(" " + norm + " ")
	set := make(shingles, len(rs))
	if len(rs) < 3 {
		set[string(rs)] = struct{}{}
		return set
	}
	for i := 0; i+3 <= len(rs); i++ {
		set[string(rs[i:i+3])] = struct{}{}
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
// normalized text, or a 3-gram Jaccard similarity at or above
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
