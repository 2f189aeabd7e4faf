// Package dedup finds duplicate and near-duplicate records in a stream:
// exact keys of dialogues and scenarios, and, for near-duplicates, MinHash
// signatures over character shingles (so that Chinese, Japanese and Korean,
// written without spaces between words or with syllable blocks, work as
// well as English), and an LSH index that clusters each new text with the
// first earlier one it is similar to.
//
// Memory is the signatures and the LSH table only, no texts: 256 bytes a
// signature, and per band a 4-byte link and a table slot of 12 bytes at a
// load of at most 3/4: about 1 KB a text at the default threshold 0.6 (42
// bands of 3 rows).
package dedup

import (
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"
)

// K is the number of places of a signature.
const K = 128

// binBits: the top bits of a shingle's hash pick its place (K = 2^binBits).
const binBits = 7

var _ = [1]struct{}{}[K-1<<binBits] // K must be 1 << binBits

// Signature is the one-permutation MinHash of a text's shingles: each
// shingle is hashed once, the top binBits bits of the hash pick one of K
// bins and each bin keeps the least hash that fell in it, of which the
// signature keeps the low 16 bits; a bin no shingle fell in borrows the
// value of a filled bin (optimal densification: Shrivastava, ICML 2017),
// so that two signatures agree in a share of places that estimates the
// Jaccard similarity of the two shingle sets with the variance of K
// independent hash functions, for one hash per shingle instead of K
// (b-bit MinHash: 16 bits add a bias of 2^-16, negligible).
type Signature [K]uint16

// Shingle widths, in characters: five for alphabetic scripts (about a
// word), three for Han, kana and Hangul, where one character carries about
// as much as a short word. Measured on the NormGenesis release: see
// docs/quality-loop.md.
const (
	WidthAlpha = 5
	WidthCJK   = 3
)

// isSep reports whether Normalize turns r into a separator.
func isSep(r rune) bool {
	return unicode.IsSpace(r) || unicode.IsPunct(r) || unicode.IsSymbol(r)
}

// asciiNorm is what Normalize makes of an ASCII byte: its lower case, or
// asciiSep for a separator.
var asciiNorm [utf8.RuneSelf]byte

const asciiSep = 0x80

func init() {
	for c := range asciiNorm {
		if isSep(rune(c)) {
			asciiNorm[c] = asciiSep
		} else {
			asciiNorm[c] = byte(unicode.ToLower(rune(c)))
		}
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
		case isSep(r):
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

// normText is a text normalized as by Normalize, in UTF-8 (b) with where
// each character starts (off, and len(b) last), and the counts Width
// takes; Sign reuses one from a pool, so signing allocates nothing.
type normText struct {
	b          []byte
	off        []int32
	cjk, other int
}

var normPool = sync.Pool{New: func() any { return new(normText) }}

// normalize sets t to Normalize(s) (tested against it).
func (t *normText) normalize(s string) {
	t.b, t.off, t.cjk, t.other = t.b[:0], t.off[:0], 0, 0
	space := true
	for i := 0; i < len(s); {
		var r rune
		if c := s[i]; c < utf8.RuneSelf {
			i++
			if n := asciiNorm[c]; n != asciiSep {
				t.off = append(t.off, int32(len(t.b)))
				t.b = append(t.b, n)
				t.other++
				space = false
				continue
			}
			r = ' '
		} else {
			var w int
			r, w = utf8.DecodeRuneInString(s[i:])
			i += w
			if !isSep(r) {
				r = unicode.ToLower(r)
				t.off = append(t.off, int32(len(t.b)))
				t.b = utf8.AppendRune(t.b, r)
				if isCJK(r) {
					t.cjk++
				} else {
					t.other++
				}
				space = false
				continue
			}
		}
		if !space { // a separator
			t.off = append(t.off, int32(len(t.b)))
			t.b = append(t.b, ' ')
			space = true
		}
	}
	if space && len(t.b) > 0 { // a trailing space
		t.b, t.off = t.b[:len(t.b)-1], t.off[:len(t.off)-1]
	}
	t.off = append(t.off, int32(len(t.b)))
}

// Sign returns the signature of text, and false when the text has no
// letters at all (nothing to compare: never a near-duplicate).
func Sign(text string) (Signature, bool) {
	t := normPool.Get().(*normText)
	t.normalize(text)
	sig, ok := t.sign()
	normPool.Put(t)
	return sig, ok
}

func (t *normText) sign() (Signature, bool) {
	var sig Signature
	n := len(t.off) - 1 // characters
	if n == 0 {
		return sig, false
	}
	w := WidthAlpha
	if t.cjk > t.other {
		w = WidthCJK
	}
	var mins [K]uint64
	var filled [K / 64]uint64
	for i := range mins {
		mins[i] = ^uint64(0)
	}
	// Shingles are the byte slices of w characters (the whole text when it
	// is shorter).
	for i := 0; i <= max(n-w, 0); i++ {
		h := xxhash.Sum64(t.b[t.off[i]:t.off[min(i+w, n)]])
		bin := h >> (64 - binBits)
		mins[bin] = min(mins[bin], h)
		filled[bin/64] |= 1 << (bin % 64)
	}
	for i := range sig {
		j := i
		if filled[i/64]>>(i%64)&1 == 0 {
			j = borrow(i, &filled)
		}
		// The low bits: the high ones are the bin's number.
		sig[i] = uint16(mins[j])
	}
	return sig, true
}

// borrow picks the filled bin an empty bin i takes its value from: the
// first filled one of a pseudo-random sequence of bins that depends on i
// only, so that two texts with the same bins filled borrow alike.
func borrow(i int, filled *[K / 64]uint64) int {
	x := uint64(i)
	for range 4 * K {
		x += 0x9e3779b97f4a7c15 // splitmix64
		z := (x ^ x>>30) * 0xbf58476d1ce4e5b9
		z = (z ^ z>>27) * 0x94d049bb133111eb
		j := (z ^ z>>31) >> (64 - binBits)
		if filled[j/64]>>(j%64)&1 != 0 {
			return int(j)
		}
	}
	for j := i + 1; ; j++ { // one filled bin of K: (1-1/K)^(4K) = 2%
		if j %= K; filled[j/64]>>(j%64)&1 != 0 {
			return j
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
