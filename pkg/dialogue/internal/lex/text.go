package lex

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// IsSpace is unicode.IsSpace (trimming must agree with strings.TrimSpace)
// without its table lookup.
func IsSpace(r rune) bool {
	switch {
	case r < 0x80:
		return r == ' ' || (r >= '\t' && r <= '\r')
	case r < 0x1680:
		return r == 0x85 || r == 0xA0
	}
	switch r {
	case 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}

// Trim is strings.TrimSpace, without its slow path for text that starts or
// ends with a non-ASCII letter (most of the Chinese and Korean text).
func Trim(s string) string {
	i := TrimSpaceFwd(s, 0)
	if i == len(s) {
		return ""
	}
	return s[i:TrimSpaceBack(s, len(s))]
}

func TrimSpaceBack(s string, i int) int {
	for i > 0 {
		c := s[i-1]
		if c == ' ' || (c >= '\t' && c <= '\r') {
			i--
			continue
		}
		if c < 0x80 {
			return i
		}
		r, w := utf8.DecodeLastRuneInString(s[:i])
		if !IsSpace(r) {
			return i
		}
		i -= w
	}
	return i
}

func TrimSpaceFwd(s string, i int) int {
	for i < len(s) {
		c := s[i]
		if c == ' ' || (c >= '\t' && c <= '\r') {
			i++
			continue
		}
		if c < 0x80 {
			return i
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		if !IsSpace(r) {
			return i
		}
		i += w
	}
	return i
}

// isTerm reports whether r ends a sentence or a turn, so that a speaker name
// may follow it on the same line.
func isTerm(r rune) bool {
	switch r {
	case '.', '!', '?', '…', '。', '！', '？', '”', '"', '’', '\'', ')', '）', ']', '】',
		'」', '』', '~', '～', '—', '–', '-', '♪', '*', '»', ':', '：':
		return true
	}
	return r >= 0x1F000 || (r >= 0x2600 && r <= 0x27BF)
}

var titles = [...]string{"Mr", "Mrs", "Ms", "Mx", "Dr", "Prof", "St", "Sr", "Jr", "Mt",
	"Capt", "Gen", "Lt", "Col", "Sgt", "Rev", "Hon", "Fr", "Sen", "Rep", "Gov", "Pres", "Coach", "Mme", "Mlle"}

// isTitleBefore reports whether s ends with an abbreviated title ("Mrs")
// that starts a word, so that a following '.' does not end a sentence.
func isTitleBefore(s string) bool {
	for _, t := range titles {
		if strings.HasSuffix(s, t) {
			i := len(s) - len(t)
			if i == 0 {
				return true
			}
			r, _ := utf8.DecodeLastRuneInString(s[:i])
			if IsSpace(r) || !unicode.IsLetter(r) {
				return true
			}
		}
	}
	return false
}

func collapseSpaces(s string) string {
	var b strings.Builder
	sp := false
	for _, r := range s {
		if r == ' ' {
			if sp {
				continue
			}
			sp = true
		} else {
			sp = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

// ColonAt reports whether a colon, ASCII or full-width, stands at s[i].
func ColonAt(s string, i int) bool {
	return i < len(s) && (s[i] == ':' || strings.HasPrefix(s[i:], "："))
}

func IsASCIIWord(c byte) bool {
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}
