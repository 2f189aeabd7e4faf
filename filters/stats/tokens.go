package stats

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"
)

// isCJKChar reports a character that is a word of its own for counting:
// Han and kana (Chinese and Japanese are written without spaces). Hangul is
// not: Korean separates words with spaces.
func isCJKChar(r rune) bool {
	return r >= 0x2E80 && (unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r))
}

// measure returns the non-space characters and the tokens of a turn's text,
// calling gram with each token's normalised hash (lower-cased, punctuation
// removed) in order. A token is a white-space separated word that holds a
// letter or digit, or one Han or kana character. buf is scratch space.
func measure(text string, buf *[]byte, gram func(h uint64)) (chars, tokens int64) {
	word := (*buf)[:0]
	flush := func() {
		if len(word) > 0 {
			tokens++
			gram(xxhash.Sum64(word))
		}
		word = word[:0]
	}
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf { // ASCII, most of the text
			i++
			switch {
			case c == ' ' || c >= '\t' && c <= '\r':
				flush()
				continue
			case c >= 'A' && c <= 'Z':
				word = append(word, c+'a'-'A')
			case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
				word = append(word, c)
			}
			chars++
			continue
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		i += n
		switch {
		case unicode.IsSpace(r):
			flush()
			continue
		case isCJKChar(r):
			flush()
			word = utf8.AppendRune(word, r)
			flush()
		case unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Mn, r):
			word = utf8.AppendRune(word, unicode.ToLower(r))
		}
		chars++
	}
	flush()
	*buf = word
	return chars, tokens
}

// shorten cuts s to about n characters for an example, on one line.
func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for k := range s {
		if i == n {
			return s[:k] + "…"
		}
		i++
	}
	return s
}
