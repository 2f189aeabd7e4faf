package lex

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// WrappedBold reports whether s is wrapped in ** ** or __ __ as a whole.
func WrappedBold(s string) (string, bool) {
	if len(s) < 5 {
		return "", false
	}
	for _, d := range [...]string{"**", "__"} {
		if strings.HasPrefix(s, d) && strings.HasSuffix(s, d) {
			inner := s[2 : len(s)-2]
			if !strings.Contains(inner, d) && Trim(inner) == inner && inner != "" {
				return inner, true
			}
		}
	}
	return "", false
}

// WrappedEm reports whether s is wrapped in single * * as a whole (a
// markdown-italic narration line).
func WrappedEm(s string) (string, bool) {
	if len(s) < 3 || s[0] != '*' || s[len(s)-1] != '*' || s[1] == '*' || s[len(s)-2] == '*' {
		return "", false
	}
	inner := s[1 : len(s)-1]
	if strings.IndexByte(inner, '*') >= 0 || Trim(inner) != inner {
		return "", false
	}
	return inner, true
}

func isDashRune(r rune) bool {
	return r == '—' || r == '–' || r == '―' || r == '─' || r == '━' || r == '-' || r == '~' || r == '='
}

// DashWrap reports whether s is a line marked by dashes — "——第二天——",
// "— (Later that day) —", "--- Later ---", "——当晚，…", "会议结束后——" — and
// returns what is inside. A leading run must be a wide dash or at least two
// ASCII dashes; a trailing run alone must be two or more dashes.
func DashWrap(s string) (string, bool) {
	i, nl, wideL := 0, 0, false
	for i < len(s) {
		r, w := utf8.DecodeRuneInString(s[i:])
		if !isDashRune(r) {
			break
		}
		if r >= 0x80 {
			wideL = true
		}
		nl++
		i += w
	}
	if i == len(s) {
		return "", nl > 0
	}
	j, nt := len(s), 0
	for j > i {
		r, w := utf8.DecodeLastRuneInString(s[:j])
		if !isDashRune(r) {
			break
		}
		nt++
		j -= w
	}
	lead := nl > 0 && (wideL || nl >= 2)
	if nl > 0 && !lead {
		return "", false
	}
	if !lead && nt < 2 {
		return "", false
	}
	if !lead && nt >= 2 {
		// a trailing run of ASCII '-' or '=' alone is too weak ("so--")
		r, _ := utf8.DecodeLastRuneInString(s)
		if r < 0x80 && nt < 3 {
			return "", false
		}
	}
	return Trim(s[i:j]), true
}

// StripEmphasis removes markdown emphasis delimiters (**x**, __x__, *x*)
// that open before a word and close after one; "138****8282" and a lone
// '*' stay.
func StripEmphasis(s string) (string, bool) {
	if strings.IndexByte(s, '*') < 0 && !strings.Contains(s, "__") {
		return s, false
	}
	changed := false
	for _, d := range [...]string{"**", "__", "*"} {
		for from := 0; ; {
			i := strings.Index(s[from:], d)
			if i < 0 {
				break
			}
			i += from
			// opening: not part of a longer run, before a non-space, after a
			// non-word rune
			// a delimiter after a backslash is literal, as in markdown:
			// taking it out of "\*r*" would make the escape "\r"
			if !delimOpen(s, i, len(d)) || (i > 0 && s[i-1] == '\\') {
				from = i + len(d)
				continue
			}
			j := i + len(d)
			k := -1
			for j < len(s) {
				x := strings.Index(s[j:], d)
				if x < 0 {
					break
				}
				x += j
				if delimClose(s, x, len(d)) && x > i+len(d) && s[x-1] != '\\' {
					k = x
					break
				}
				j = x + len(d)
			}
			if k < 0 {
				from = i + len(d)
				continue
			}
			s = s[:i] + s[i+len(d):k] + s[k+len(d):]
			changed = true
			from = k - len(d)
			if from < i {
				from = i
			}
		}
	}
	return s, changed
}

func delimOpen(s string, i, n int) bool {
	d := s[i]
	if i > 0 && s[i-1] == d {
		return false
	}
	if i+n >= len(s) || s[i+n] == d || s[i+n] == ' ' {
		return false
	}
	if i > 0 {
		r, _ := utf8.DecodeLastRuneInString(s[:i])
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

func delimClose(s string, i, n int) bool {
	d := s[i]
	if i+n < len(s) && s[i+n] == d {
		return false
	}
	if i == 0 || s[i-1] == d || s[i-1] == ' ' {
		return false
	}
	if i+n < len(s) {
		r, _ := utf8.DecodeRuneInString(s[i+n:])
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

var quotePairs = [...][2]string{{"“", "”"}, {"\"", "\""}, {"‘", "’"}, {"「", "」"}, {"『", "』"}, {"'", "'"}, {"«", "»"}}

// StripQuotes removes quotes that wrap the whole of s ("“…”"), repeatedly,
// when no other quote of the pair is inside.
func StripQuotes(s string) string {
	for len(s) >= 2 {
		done := true
		for _, q := range quotePairs {
			if len(s) > len(q[0])+len(q[1]) && strings.HasPrefix(s, q[0]) && strings.HasSuffix(s, q[1]) {
				inner := s[len(q[0]) : len(s)-len(q[1])]
				if strings.Contains(inner, q[1]) || (q[0] != q[1] && strings.Contains(inner, q[0])) {
					continue
				}
				if q[0] == "'" && !strings.ContainsAny(inner, " ") {
					continue
				}
				s = Trim(inner)
				done = false
				break
			}
		}
		if done {
			break
		}
	}
	return s
}

func IsQuoteStart(s string) bool {
	if s == "" {
		return false
	}
	switch s[0] {
	case '"':
		return true
	}
	for _, q := range [...]string{"“", "「", "『", "‘"} {
		if strings.HasPrefix(s, q) {
			return true
		}
	}
	return false
}
