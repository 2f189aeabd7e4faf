package lex

import "strings"

// EndMarkers are the end-of-dialogue tokens models leave in the text.
var EndMarkers = [...]string{"[END]", "【END】", "(END)", "（END）", "<END>", "[끝]", "【끝】", "(끝)", "[结束]", "【结束】", "[完]", "【完】",
	"[End]", "[end]", "<end>", "<End>", "【End】", "【end】", "[ END ]"}

// EndKinds reports which kinds of end marker s holds (bit set), so that a
// text's lines need only be checked for the kinds the text holds. Every
// marker ends with a closing bracket, so it looks at those only (found by
// vectorised search) and at a line "[END" cut short.
func EndKinds(s string) uint8 {
	var k uint8
	for _, cl := range [...]string{"]", ")", ">", "】", "）"} {
		for from := 0; ; {
			i := strings.Index(s[from:], cl)
			if i < 0 {
				break
			}
			i += from
			k |= tokenBefore(s[:i])
			from = i + len(cl)
		}
	}
	if strings.Contains(s, "[END") {
		k |= 1
	}
	return k
}

// tokenBefore reports the kind of end-marker word that s ends with.
func tokenBefore(s string) uint8 {
	s = strings.TrimRight(s, " ")
	n := len(s)
	if n < 3 {
		return 0
	}
	switch s[n-1] {
	case 'D':
		if s[n-3:] == "END" {
			return 1
		}
	case 'd':
		if s[n-3:] == "End" || s[n-3:] == "end" {
			return 4
		}
	case 0x9D:
		if s[n-3:] == "끝" {
			return 2
		}
	case 0x9F, 0x8C:
		if strings.HasSuffix(s, "结束") || strings.HasSuffix(s, "完") {
			return 8
		}
	}
	return 0
}

// EndWord reports whether s, in brackets, would be an end marker.
func EndWord(s string) bool {
	switch Trim(s) {
	case "END", "End", "end", "끝", "结束", "完":
		return true
	}
	return false
}

// HasEndKinds reports whether s may hold an end marker of the given kinds
// (EndKinds): a cheap test before MarkerIn or RemoveEndMarkersK.
func HasEndKinds(s string, kinds uint8) bool {
	if kinds == 1 {
		return strings.Contains(s, "END")
	}
	return EndKinds(s)&kinds != 0
}

// MarkerIn reports whether s holds an end marker that RemoveEndMarkers
// removes.
func MarkerIn(s string) bool {
	for _, m := range EndMarkers {
		if strings.Contains(s, m) {
			return true
		}
	}
	return s == "[END"
}

// RemoveEndMarkers removes end markers anywhere in s; a line that is just
// "[END" (cut short) counts too. It reports whether it removed any.
func RemoveEndMarkers(s string) (string, bool) {
	return RemoveEndMarkersK(s, 0xff)
}

// RemoveEndMarkersK is RemoveEndMarkers for the kinds of marker a text
// holds (EndKinds).
func RemoveEndMarkersK(s string, kinds uint8) (string, bool) {
	if !HasEndKinds(s, kinds) {
		return s, false
	}
	orig := s
	// until none is left: what is around a marker removed can make one
	// ("[ END[ END ]]"); each pass shortens s, so this ends
	for again := true; again; {
		again = false
		for _, m := range EndMarkers {
			if strings.Contains(s, m) {
				s = strings.ReplaceAll(s, m, " ")
				again = true
			}
		}
	}
	if Trim(s) == "[END" {
		s = "" // cut short, or left by removing a whole one ("[END[END]")
	}
	if s == orig {
		return s, false
	}
	s = Trim(s)
	if strings.Contains(s, "   ") {
		s = collapseSpaces(s)
	}
	return s, true
}

func isRuleRune(r rune) bool {
	switch r {
	case '-', '—', '–', '―', '─', '━', '=', '_', '*', '~', '·', '•', '＝', '－', ' ', '#':
		return true
	}
	return false
}

// IsRule reports whether s is a separator: only dashes, rules and the like
// (one em dash or "**" count; a single '-' or '*' does not).
func IsRule(s string) bool {
	if s == "" {
		return false
	}
	n, wide := 0, false
	for _, r := range s {
		if !isRuleRune(r) {
			return false
		}
		if r != ' ' {
			n++
			if r >= 0x80 {
				wide = true
			}
		}
	}
	return n >= 3 || (n >= 1 && wide) || s == "**" || s == "--"
}

// OnlyJunk reports whether s holds only characters left over from a JSON
// envelope or markup (quotes, braces, brackets, commas).
func OnlyJunk(s string) bool {
	if s == "" {
		return true
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"', '\'', '{', '}', '[', ']', ',', ' ', '`', '\\':
		default:
			return false
		}
	}
	return true
}

// IsDots reports whether s is only an ellipsis ("...", "…", "……").
func IsDots(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r != '.' && r != '…' && r != '·' && r != ' ' && r != '。' {
			return false
		}
	}
	return true
}
