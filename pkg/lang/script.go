package lang

import (
	"slices"
	"unicode"
)

// Tuning constants of the script fast path. See the package doc.
const (
	// hanCharsPerWord converts Han and kana characters into word units
	// comparable with Latin words and Hangul runs.
	hanCharsPerWord = 1.7
	// kanaShare: Japanese prose has well over half kana; Chinese text may
	// contain a stray "の" or a katakana name. A quarter is safely between.
	kanaShare = 0.25
	// Letters needed for full length confidence, per deciding script. Hangul
	// and kana are unambiguous; a few Han characters could still be
	// Japanese; a short Latin string is anyone's guess for lingua.
	fullHangul = 2
	fullKana   = 2
	fullHan    = 4
	fullLatin  = 12
	// Thai and Tamil letters are unambiguous too; a few make a word.
	fullThai  = 4
	fullTamil = 4
	// thaiCharsPerWord converts Thai letters (vowel and tone marks not
	// counted) into word units: Thai writes no spaces between words.
	thaiCharsPerWord = 3.5
	// minLatinLetters: below this, Latin text is not looked at further
	// (no vote, no lingua): its length factor alone keeps the confidence
	// under MinConfidence.
	minLatinLetters = fullLatin * MinConfidence
)

// scriptCounts is a letter census of a stripped text.
type scriptCounts struct {
	hangul, kana, han, latin, thai, tamil, other int // letters
	hangulRuns, latinRuns, tamilRuns, otherRuns  int // maximal runs of one script (≈ words)
	simp, trad                                   int // Han characters only Simplified / only Traditional writes
}

const (
	clsNone = iota
	clsHangul
	clsKana
	clsHan
	clsLatin
	clsThai
	clsTamil
	clsOther
)

// nativeScripts are the letter classes of the languages written in a
// script of their own, their people's names included (a Korean name in
// Hangul, or in Han for older ones).
var nativeScripts = map[string]struct {
	name    string
	classes []int
}{
	"ko": {"Hangul", []int{clsHangul, clsHan}},
	"zh": {"Chinese characters", []int{clsHan}},
	"ja": {"Japanese script", []int{clsHan, clsKana}},
}

// NativeScript names the script a language alone is written in and tells
// whether a letter belongs to it; ok is false for a language written in a
// script others share (Latin).
func NativeScript(code string) (name string, in func(r rune) bool, ok bool) {
	s, ok := nativeScripts[Normalize(code)]
	if !ok {
		return "", nil, false
	}
	return s.name, func(r rune) bool { return slices.Contains(s.classes, classify(r)) }, true
}

func classify(r rune) int {
	if r < 0x80 {
		if (r|0x20) >= 'a' && (r|0x20) <= 'z' {
			return clsLatin
		}
		return clsNone
	}
	// Fast paths for the blocks that make up nearly all release text; the
	// unicode tables below are a binary search each.
	switch {
	case r >= 0xAC00 && r <= 0xD7A3: // Hangul syllables
		return clsHangul
	case r >= 0x4E00 && r <= 0x9FFF: // CJK unified ideographs
		return clsHan
	case r >= 0x3041 && r <= 0x3096, r >= 0x30A1 && r <= 0x30FA, r == 'ー': // kana
		return clsKana
	case r >= 0xC0 && r <= 0x24F && r != 0xD7 && r != 0xF7: // Latin-1 Supplement, Extended-A/B letters
		return clsLatin
	case r >= 0x1EA0 && r <= 0x1EF9: // Latin Extended Additional: Vietnamese letters with two marks
		return clsLatin
	case r >= 0x2000 && r <= 0x206F, r >= 0x3000 && r <= 0x3004, r >= 0x3008 && r <= 0x301F, r >= 0xFF01 && r <= 0xFF0F: // punctuation
		return clsNone
	}
	return classifySlow(r)
}

// classifySlow is classify by the unicode tables only (tested equal to the
// fast paths).
func classifySlow(r rune) int {
	if r == 'ー' {
		// U+30FC is script Common, but only Japanese writes it.
		return clsKana
	}
	switch {
	case unicode.Is(unicode.Hangul, r):
		return clsHangul
	case unicode.Is(unicode.Han, r):
		return clsHan
	case unicode.In(r, unicode.Hiragana, unicode.Katakana):
		return clsKana
	case unicode.Is(unicode.Latin, r):
		return clsLatin
	case unicode.IsMark(r):
		// Combining accents, Thai vowel and tone marks and Tamil vowel
		// signs belong to the preceding letter.
		return -1
	case !unicode.IsLetter(r):
		return clsNone
	case unicode.Is(unicode.Thai, r):
		return clsThai
	case unicode.Is(unicode.Tamil, r):
		return clsTamil
	}
	return clsOther
}

// hanForm says which written form of Chinese a Han character belongs to
// only: hanSimp, hanTrad, or 0 for characters both write (hanvariants.go).
var hanForm = func() []uint8 {
	t := make([]uint8, 0x9FFF-0x4E00+1)
	for _, r := range simplifiedOnly {
		t[r-0x4E00] = hanSimp
	}
	for _, r := range traditionalOnly {
		t[r-0x4E00] = hanTrad
	}
	return t
}()

const (
	hanSimp = 1
	hanTrad = 2
)

func census(s string) scriptCounts {
	var c scriptCounts
	prev := clsNone
	for _, r := range s {
		cls := classify(r)
		if cls == -1 {
			continue
		}
		switch cls {
		case clsHangul:
			c.hangul++
			if prev != clsHangul {
				c.hangulRuns++
			}
		case clsKana:
			c.kana++
		case clsHan:
			c.han++
			if r >= 0x4E00 && r <= 0x9FFF {
				switch hanForm[r-0x4E00] {
				case hanSimp:
					c.simp++
				case hanTrad:
					c.trad++
				}
			}
		case clsLatin:
			c.latin++
			if prev != clsLatin {
				c.latinRuns++
			}
		case clsThai:
			c.thai++
		case clsTamil:
			c.tamil++
			if prev != clsTamil {
				c.tamilRuns++
			}
		case clsOther:
			c.other++
			if prev != clsOther {
				c.otherRuns++
			}
		}
		prev = cls
	}
	return c
}

func lengthFactor(n, full int) float64 {
	if n >= full {
		return 1
	}
	return float64(n) / float64(full)
}
