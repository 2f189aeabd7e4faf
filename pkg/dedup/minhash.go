// Package dedup finds duplicate and near-duplicate records in a stream:
// exact keys of dialogues and scenarios, and, for near-duplicates, MinHash
// signatures over character shingles (so that Chinese, Japanese and Korean,
// written without spaces between words or with syllable blocks, work as
// well as English), and an LSH index that clusters each new text with the
// first earlier one it is similar to.
//
// Memory is the signatures only: 256 bytes per text (128 minima of 16 bits)
// plus the band buckets, about 400 bytes a text in all; the texts are not
// kept.
package dedup

import (
	"unicode"

	"github.com/cespare/xxhash/v2"
)

// K is the number of hash functions of a signature.
const K = 128

// Signature is the MinHash of a text's shingles: for each of K hash
// functions, the low 16 bits of the least hash. Two signatures agree in a
// share of places that estimates the Jaccard similarity of the two shingle
// sets (b-bit MinHash: 16 bits add a bias of 2^-16, negligible).
type Signature [K]uint16

// Shingle widths, in characters: five for alphabetic scripts (about a
// word), three for Han, kana and Hangul, where one character carries about
// as much as a short word. Measured on the NormGenesis release: see the
// README.
const (
	WidthAlpha = 5
	WidthCJK   = 3
)

// seeds are the K hash functions: h -> a*h + b, a odd, over 64 bits, then
// the high bits (multiply-shift hashing, a universal family).
var seedA, seedB [K]uint64

func init() {
	x := uint64(0x9e3779b97f4a7c15)
	next := func() uint64 { // splitmix64
		x += 0x9e3779b97f4a7c15
		z := x
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		return z ^ (z >> 31)
	}
	for i := range seedA {
		seedA[i] = next() | 1
		seedB[i] = next()
	}
}

// Normalize is what shingles are taken from: lower case, punctuation and
// symbols removed, runs of space (and line breaks) one space, so that
// "Hello, World!" and "hello world" are the same text.
func Normalize(s string) []rune {
	out := make([]rune, 0, len(s))
	space := true // no leading space
	for _, r := range s {
		switch {
		case unicode.IsSpace(r) || unicode.IsPunct(r) || unicode.IsSymbol(r):
			// Punctuation separates like a space, so that "a,b" is "a b".
			if !space {
				out = append(out, ' ')
				space = true
			}
		default:
			out = append(out, unicode.ToLower(r))
			space = false
		}
	}
	if n := len(out); n > 0 && out[n-1] == ' ' {
		out = out[:n-1]
	}
	return out
}

// isCJK reports whether r is Han, kana or Hangul.
func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// Width is the shingle width for a normalized text: WidthCJK when most of
// its letters are Han, kana or Hangul.
func Width(text []rune) int {
	cjk, other := 0, 0
	for _, r := range text {
		switch {
		case r == ' ':
		case isCJK(r):
			cjk++
		default:
			other++
		}
	}
	if cjk > other {
		return WidthCJK
	}
	return WidthAlpha
}

// Sign returns the signature of text, and false when the text has no
// letters at all (nothing to compare: never a near-duplicate).
func Sign(text string) (Signature, bool) {
	return SignRunes(Normalize(text))
}

// SignRunes signs an already normalized text.
func SignRunes(text []rune) (Signature, bool) {
	var mins [K]uint64
	for i := range mins {
		mins[i] = ^uint64(0)
	}
	w := Width(text)
	// Shingles are hashed as byte slices of the text's UTF-8 form: off[i]
	// is where rune i starts.
	str := string(text)
	off := make([]int, 0, len(text)+1)
	for i := range str {
		off = append(off, i)
	}
	off = append(off, len(str))
	n := 0
	for i := 0; i == 0 || i+w <= len(text); i++ {
		end := min(i+w, len(text))
		if end == 0 {
			break
		}
		h := xxhash.Sum64String(str[off[i]:off[end]])
		minimize(&mins, h)
		n++
	}
	var sig Signature
	if n == 0 {
		return sig, false
	}
	for i, m := range mins {
		sig[i] = uint16(m) // the low bits: the high bits of a minimum are mostly zeros
	}
	return sig, true
}

// minimize folds the K hashes of one shingle into mins.
func minimize(mins *[K]uint64, h uint64) {
	for i := range mins {
		if v := seedA[i]*h + seedB[i]; v < mins[i] {
			mins[i] = v
		}
	}
}

// Similarity estimates the Jaccard similarity of the texts of a and b.
func Similarity(a, b *Signature) float64 {
	same := 0
	for i := range a {
		if a[i] == b[i] {
			same++
		}
	}
	return float64(same) / K
}

// Jaccard is the exact Jaccard similarity of two texts' shingle sets, for
// checking what signatures estimate (tests, measurements).
func Jaccard(a, b string) float64 {
	sa, sb := shingleSet(Normalize(a)), shingleSet(Normalize(b))
	if len(sa) == 0 && len(sb) == 0 {
		return 1
	}
	inter := 0
	for s := range sa {
		if sb[s] {
			inter++
		}
	}
	return float64(inter) / float64(len(sa)+len(sb)-inter)
}

func shingleSet(text []rune) map[string]bool {
	w := Width(text)
	set := map[string]bool{}
	if len(text) <= w {
		if len(text) > 0 {
			set[string(text)] = true
		}
		return set
	}
	for i := 0; i+w <= len(text); i++ {
		set[string(text[i:i+w])] = true
	}
	return set
}

func hashBytes(b []byte) uint64 { return xxhash.Sum64(b) }
