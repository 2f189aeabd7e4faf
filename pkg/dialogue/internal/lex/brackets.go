package lex

import "strings"

// OpenAt reports the width of an opening round bracket at s[i], or 0.
func OpenAt(s string, i int) int {
	if s[i] == '(' {
		return 1
	}
	if s[i] == 0xEF && i+2 < len(s) && s[i+1] == 0xBC && s[i+2] == 0x88 { // （
		return 3
	}
	return 0
}

// closeAt reports the width of a closing round bracket at s[i], or 0.
func closeAt(s string, i int) int {
	if s[i] == ')' {
		return 1
	}
	if s[i] == 0xEF && i+2 < len(s) && s[i+1] == 0xBC && s[i+2] == 0x89 { // ）
		return 3
	}
	return 0
}

// CloseEndsAt reports the width of a closing round bracket that ends at s[:i], or 0.
func CloseEndsAt(s string, i int) int {
	if i >= 1 && s[i-1] == ')' {
		return 1
	}
	if i >= 3 && s[i-3] == 0xEF && s[i-2] == 0xBC && s[i-1] == 0x89 {
		return 3
	}
	return 0
}

// NextOpen finds the next opening round bracket at or after i.
func NextOpen(s string, i int) int {
	a := strings.IndexByte(s[i:], '(')
	end := len(s)
	if a >= 0 {
		end = i + a
	}
	if b := strings.Index(s[i:end], "（"); b >= 0 {
		return i + b
	}
	if a >= 0 {
		return i + a
	}
	return -1
}

// MatchParen returns the index just after the bracket that closes the one
// opening at s[i] (round brackets, ASCII and full-width mixed), or -1.
func MatchParen(s string, i int) int {
	depth := 0
	for i < len(s) {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i + 1
			}
		case 0xEF:
			if i+2 < len(s) && s[i+1] == 0xBC {
				if s[i+2] == 0x88 { // （
					depth++
					i += 3
					continue
				}
				if s[i+2] == 0x89 { // ）
					depth--
					i += 3
					if depth == 0 {
						return i
					}
					continue
				}
			}
		}
		i++
	}
	return -1
}

// MatchParenBack returns the index of the bracket that opens the group
// closing just before s[:e], or -1.
func MatchParenBack(s string, e int) int {
	depth := 0
	i := e
	for i > 0 {
		if w := CloseEndsAt(s, i); w > 0 {
			depth++
			i -= w
			continue
		}
		c := s[i-1]
		if c == '(' {
			depth--
			i--
			if depth == 0 {
				return i
			}
			continue
		}
		if i >= 3 && s[i-3] == 0xEF && s[i-2] == 0xBC && s[i-1] == 0x88 {
			depth--
			i -= 3
			if depth == 0 {
				return i
			}
			continue
		}
		i--
	}
	return -1
}

// ClosePos returns the index just after the bracket that brings depth d
// down to 0 in s, or -1.
func ClosePos(s string, d int) int {
	for i := 0; i < len(s); i++ {
		if w := OpenAt(s, i); w > 0 {
			d++
			i += w - 1
		} else if w := closeAt(s, i); w > 0 {
			d--
			i += w - 1
			if d <= 0 {
				return i + 1
			}
		}
	}
	return -1
}

// Balanced reports whether the round brackets of s pair up, so that "(" + s
// + ")" is one group.
func Balanced(s string) bool {
	d := 0
	for i := 0; i < len(s); i++ {
		if w := OpenAt(s, i); w > 0 {
			d++
			i += w - 1
		} else if w := closeAt(s, i); w > 0 {
			d--
			i += w - 1
			if d < 0 {
				return false
			}
		}
	}
	return d == 0
}

// ParenDepth returns the bracket depth at the end of s, starting from d.
func ParenDepth(s string, d int) int {
	for i := 0; i < len(s); i++ {
		if s[i] == '(' {
			d++
		} else if s[i] == ')' {
			d--
		} else if s[i] == 0xEF && i+2 < len(s) && s[i+1] == 0xBC {
			if s[i+2] == 0x88 {
				d++
			} else if s[i+2] == 0x89 {
				d--
			}
		}
	}
	return d
}

// WholeBracket reports whether s is one bracketed group — (…), （…）, […]
// or 【…】, a final '.' or '。' allowed after it — and returns its content.
func WholeBracket(s string) (string, bool) {
	if s == "" {
		return "", false
	}
	body := s
	if strings.HasSuffix(body, ".") {
		body = body[:len(body)-1]
	} else if strings.HasSuffix(body, "。") {
		body = body[:len(body)-len("。")]
	}
	body = strings.TrimRight(body, " ")
	if body == "" {
		return "", false
	}
	if OpenAt(body, 0) > 0 {
		if e := MatchParen(body, 0); e == len(body) {
			w := OpenAt(body, 0)
			return Trim(body[w : e-CloseEndsAt(body, e)]), true
		}
		return "", false
	}
	var open, cls string
	switch {
	case body[0] == '[':
		open, cls = "[", "]"
	case strings.HasPrefix(body, "【"):
		open, cls = "【", "】"
	default:
		return "", false
	}
	if !strings.HasSuffix(body, cls) || len(body) < len(open)+len(cls) {
		return "", false
	}
	inner := body[len(open) : len(body)-len(cls)]
	// one group only: "[a] text [b]" is not a bracketed line
	if strings.Contains(inner, cls) {
		return "", false
	}
	return Trim(inner), true
}

// OpensParen reports whether s starts with a round bracket that the line
// does not close (a narration continued on the next lines, or never closed).
func OpensParen(s string) bool {
	return s != "" && OpenAt(s, 0) > 0 && MatchParen(s, 0) < 0
}
