package dialogue

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Hand-written scanners: Parse runs on every record of an import, so the hot
// path avoids regexp and allocations.

// isSpace is unicode.IsSpace (trimming must agree with strings.TrimSpace)
// without its table lookup.
func isSpace(r rune) bool {
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

// trim is strings.TrimSpace, without its slow path for text that starts or
// ends with a non-ASCII letter (most of the Chinese and Korean text).
func trim(s string) string {
	i := trimSpaceFwd(s, 0)
	if i == len(s) {
		return ""
	}
	return s[i:trimSpaceBack(s, len(s))]
}

func trimSpaceBack(s string, i int) int {
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
		if !isSpace(r) {
			return i
		}
		i -= w
	}
	return i
}

func trimSpaceFwd(s string, i int) int {
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
		if !isSpace(r) {
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
			if isSpace(r) || !unicode.IsLetter(r) {
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

// colonAt reports whether a colon, ASCII or full-width, stands at s[i].
func colonAt(s string, i int) bool {
	return i < len(s) && (s[i] == ':' || strings.HasPrefix(s[i:], "："))
}

func isASCIIWord(c byte) bool {
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}
