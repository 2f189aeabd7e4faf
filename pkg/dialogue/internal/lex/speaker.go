package lex

import (
	"strings"
	"unicode/utf8"
)

// Speaker is a speaker found at the start of a line (or inside one).
type Speaker struct {
	Full     string // name as written, bracket included
	Name     string // base name, bracket removed
	Paren    string // bracket content before the colon
	HasParen bool
	Rest     string // after the colon, trimmed
	Deco     uint32 // DecoMarkdown, DecoQuotes: the decorations seen around the name
	Lead     string // a list number taken off before the name ("1. ", "2) ")
	Weak     uint8  // 0: a sure speaker; else the weak form, decided by the whole dialogue
}

// Weak speaker forms: lines that are a turn only when the dialogue as a
// whole says so (pkg/dialogue's resolveWeak).
const (
	WeakLoose   uint8 = 1 + iota // "Family member: ...": lower-case words in the name
	WeakBracket                  // "[Sarah] ...": a bracketed name and no colon
	WeakDash                     // "Sarah — ...": a name and a dash
)

// Decorations around a speaker name (Speaker.Deco); the parser reports them
// as defects.
const (
	DecoMarkdown uint32 = 1 << iota // "**Mike:**", "- Mike:", "> Mike:"
	DecoQuotes                      // "\"Ms. Chen:\"", "“Tom:”"
)

const maxNameBytes = 160

// ParseSpeaker reports whether line starts with a speaker and splits it.
// The forms: "Name:" / "Name (x):" / "**Name:**" / "\"Name:\"" (colonSpeaker),
// "[Name]: text" and "[Name] text" (bracketSpeaker), "Name — text"
// (dashSpeaker); decorations, a list number and a timestamp before the name
// are read first.
func ParseSpeaker(line string) (Speaker, bool) {
	var sp Speaker
	i, marks := leadDecorations(line, &sp)
	i = timestampLead(line, i, &sp)
	start := i
	if i < len(line) && (line[i] == '[' || strings.HasPrefix(line[i:], "【")) {
		return bracketSpeaker(line, i, sp)
	}
	colon, cw, lim := findColon(line, start)
	if colon < 0 {
		return dashSpeaker(line, start, lim, sp)
	}
	return colonSpeaker(line, start, colon, cw, marks, sp)
}

// leadDecorations skips the markdown, quotes, emoji and list number before a
// name; it returns where the name may start and how many emphasis marks were
// opened before it (to be closed before or after the colon).
func leadDecorations(line string, sp *Speaker) (i, marks int) {
	for i < len(line) {
		c := line[i]
		if (c == '-' || c == '+' || c == '*') && i+1 < len(line) && line[i+1] == ' ' && i == 0 {
			sp.Deco |= DecoMarkdown
			i += 2
			continue
		}
		if c >= '0' && c <= '9' && sp.Lead == "" {
			// "1. Sarah:", "2) 小王：" — a list number, not part of the name
			if n := listNumber(line[i:]); n > 0 {
				sp.Lead = line[i : i+n]
				i += n
				continue
			}
		}
		if c >= 0xE2 {
			if n := emojiRun(line[i:]); n > 0 {
				i = TrimSpaceFwd(line, i+n)
				continue
			}
		}
		if c == '*' || c == '_' {
			sp.Deco |= DecoMarkdown
			marks++
			i++
			continue
		}
		if c == '"' {
			sp.Deco |= DecoQuotes
			i++
			continue
		}
		if c == '>' && i+1 < len(line) && line[i+1] == ' ' {
			sp.Deco |= DecoMarkdown
			i += 2
			continue
		}
		if strings.HasPrefix(line[i:], "“") {
			sp.Deco |= DecoQuotes
			i += len("“")
			continue
		}
		if strings.HasPrefix(line[i:], "• ") {
			sp.Deco |= DecoMarkdown
			i += len("• ")
			continue
		}
		break
	}
	return i, marks
}

// timestampLead takes a "[00:01:23] " before the name into sp.Lead.
func timestampLead(line string, i int, sp *Speaker) int {
	if i < len(line) && line[i] == '[' && sp.Lead == "" {
		// "[00:01:23] Sarah: hi" — a timestamp, not part of the name
		if e := strings.IndexByte(line[i:], ']'); e > 0 && isTimestamp(line[i+1:i+e]) {
			sp.Lead = line[:i+e+1]
			i = TrimSpaceFwd(line, i+e+1)
		}
	}
	return i
}

// findColon looks for the colon that ends a name starting at line[start].
// It returns the colon's index and width, or colon -1 and where a dash form
// must look before (a mark no name holds, or the end of the line).
func findColon(line string, start int) (colon, cw, lim int) {
	colon, cw = -1, 0
scan:
	for j := start; j < len(line) && j-start < maxNameBytes; {
		c := line[j]
		switch {
		case c == ':':
			colon, cw = j, 1
			break scan
		case c == '(':
			e := MatchParen(line, j)
			if e < 0 {
				return -1, 0, j
			}
			j = e
			continue
		case c == '!' || c == '?' || c == ';' || c == '"' || c == '[' || c == ']' || c == '\\':
			return -1, 0, j
		case c == 0xEF && j+2 < len(line) && line[j+1] == 0xBC:
			switch line[j+2] {
			case 0x9A: // ：
				colon, cw = j, 3
				break scan
			case 0x88: // （
				e := MatchParen(line, j)
				if e < 0 {
					return -1, 0, j
				}
				j = e
				continue
			case 0x8C, 0x81, 0x9F, 0x9B: // ， ！ ？ ；
				return -1, 0, j
			}
			j += 3
			continue
		case c == 0xE3 && j+2 < len(line) && line[j+1] == 0x80 && (line[j+2] == 0x82 || line[j+2] == 0x8C || line[j+2] == 0x90): // 。「【
			return -1, 0, j
		case c == 0xE2 && j+2 < len(line) && line[j+1] == 0x80 && (line[j+2] == 0xA6 || line[j+2] == 0x9D): // … ”
			if line[j+2] == 0x9D && j+3 < len(line) && (line[j+3] == ':' || strings.HasPrefix(line[j+3:], "：")) {
				j += 3 // “Name”:
				continue
			}
			return -1, 0, j
		}
		j++
	}
	if colon < 0 {
		return -1, 0, len(line)
	}
	return colon, cw, 0
}

// colonSpeaker reads "Name:", "Name (x):", "**Name:**", "\"Name:\"" once the
// colon is found at line[colon] (width cw): the name before it, its bracket,
// and the decorations after it.
func colonSpeaker(line string, start, colon, cw, marks int, sp Speaker) (Speaker, bool) {
	after := colon + cw
	if cw == 1 && after < len(line) {
		c := line[after]
		if (c >= '0' && c <= '9') || c == '/' || c == ':' {
			return sp, false // 10:30, https://
		}
	}
	// name part, trailing decorations removed
	e := TrimSpaceBack(line, colon)
	for e > start {
		c := line[e-1]
		if c == '*' || c == '_' {
			sp.Deco |= DecoMarkdown
			marks--
			e--
			continue
		}
		if c == '"' {
			sp.Deco |= DecoQuotes
			e--
			continue
		}
		if e-start >= 3 && line[e-3:e] == "”" {
			sp.Deco |= DecoQuotes
			e -= 3
			continue
		}
		break
	}
	e = TrimSpaceBack(line, e)
	if e <= start {
		return sp, false
	}
	full := line[start:e]
	name := full
	if w := CloseEndsAt(line, e); w > 0 {
		o := MatchParenBack(line, e)
		if o < start {
			return sp, false
		}
		ow := OpenAt(line, o)
		paren := Trim(line[o+ow : e-w])
		be := TrimSpaceBack(line, o)
		stars := false
		for be > start && (line[be-1] == '*' || line[be-1] == '_') {
			be-- // "**Sarah** (smiling):"
			marks--
			stars = true
		}
		if stars {
			be = TrimSpaceBack(line, be) // "A *():" — the name is "A"
		}
		base := line[start:max(start, be)]
		if stars {
			full = base + " " + line[o:e]
		}
		if base == "" {
			// "（同学们一起）: 刘老师好" — the bracket is all there is
			full, name = paren, paren
		} else {
			name = base
			sp.Paren = paren
			sp.HasParen = paren != ""
			if !sp.HasParen {
				full = base
			}
		}
	}
	if !ValidName(name, false) {
		if !looseName(name) {
			return sp, false
		}
		sp.Weak = WeakLoose
	}
	sp.Full, sp.Name = full, name
	// decorations right after the colon: "**Mike:** hi", "\"Ms. Chen:\" 小钱"
	for after < len(line) {
		c := line[after]
		if (c == '*' || c == '_') && marks > 0 {
			sp.Deco |= DecoMarkdown
			marks--
			after++
			continue
		}
		if c == '"' && sp.Deco&DecoQuotes != 0 {
			after++
			continue
		}
		if strings.HasPrefix(line[after:], "”") && sp.Deco&DecoQuotes != 0 {
			after += len("”")
			continue
		}
		break
	}
	sp.Rest = Trim(line[after:])
	return sp, true
}

// BoundaryBefore reports whether a speaker name may start at s[q]: at the
// start, after two spaces, or after a sentence end ("Paris. Mrs. Bennett:",
// "土了。王军:") but not after a title ("Mr. Smith").
func BoundaryBefore(s string, q int) bool {
	// opening quotes and emphasis marks before the name go with it
	for q > 0 {
		c := s[q-1]
		if c == '*' || c == '_' || c == '"' {
			q--
			continue
		}
		if q >= 3 && (s[q-3:q] == "“" || s[q-3:q] == "‘" || s[q-3:q] == "「") {
			q -= 3
			continue
		}
		break
	}
	if q == 0 {
		return true
	}
	i := TrimSpaceBack(s, q)
	if i == 0 {
		return true
	}
	if q-i >= 2 {
		return true
	}
	r, w := utf8.DecodeLastRuneInString(s[:i])
	if !isTerm(r) {
		return false
	}
	if r < 0x80 && i == q {
		// "A.B:" — an ASCII mark must be followed by a space ("。王军:"
		// needs none)
		return false
	}
	if r == '.' && isTitleBefore(s[:i-w]) {
		return false
	}
	return true
}

// ASCIIColonOK reports whether an ASCII colon at s[c] inside a line can
// end a speaker name (not "https://"). A digit after it does not count
// against it here: where a name starts right after the colon, the digit
// may be the next name's, and "10:30" has no name before its colon anyway.
func ASCIIColonOK(s string, c int) bool {
	if c+1 >= len(s) {
		return true
	}
	n := s[c+1]
	return n != '/' && n != ':'
}

// NextColon finds the next ':' or '：' at or after i; it returns its index
// and width.
func NextColon(s string, i int) (int, int) {
	for ; i < len(s); i++ {
		c := s[i]
		if c == ':' {
			return i, 1
		}
		if c == 0xEF && i+2 < len(s) && s[i+1] == 0xBC && s[i+2] == 0x9A {
			return i, 3
		}
	}
	return -1, 0
}

// NameEnd looks at the text before a colon at s[c]: an optional bracket
// (role or direction) and the name. It returns where the name ends and the
// bracket, or ok=false.
func NameEnd(s string, c, start int) (e int, paren string, hasParen bool, ok bool) {
	e = TrimSpaceBack(s, c)
	for e > start && (s[e-1] == '*' || s[e-1] == '"' || s[e-1] == '_') {
		e = TrimSpaceBack(s, e-1)
	}
	if w := CloseEndsAt(s, e); w > 0 {
		o := MatchParenBack(s, e)
		if o < start {
			return 0, "", false, false
		}
		paren = Trim(s[o+OpenAt(s, o) : e-w])
		hasParen = paren != ""
		e = TrimSpaceBack(s, o)
	}
	return e, paren, hasParen, e > start
}

// CandidateBefore finds a would-be speaker name that ends at e: up to four
// words back to a sentence boundary.
func CandidateBefore(s string, e, start int) (int, bool) {
	q := e
	for words := 0; words < 4; words++ {
		j := q
		for j > start {
			r, w := utf8.DecodeLastRuneInString(s[:j])
			if IsSpace(r) {
				break
			}
			if isTerm(r) && r != '.' && r != '\'' && r != '’' && r != '-' && r != '*' {
				break
			}
			if r == '.' && j < q && !isTitleBefore(s[:j-w]) {
				// "。" handled above; a '.' inside the word ends a sentence
				// unless the word before it is a title
				break
			}
			j -= w
		}
		if j == q {
			return 0, false
		}
		if j > start {
			r, _ := utf8.DecodeLastRuneInString(s[:j])
			if !IsSpace(r) {
				// stopped at a terminator inside the word: "土了。王军";
				// an ASCII one needs a space after it ("A.B:" is no name)
				return j, j < e && r >= 0x80
			}
		}
		if BoundaryBefore(s, j) || j <= start {
			return j, true
		}
		q = TrimSpaceBack(s, j)
		if q <= start {
			return j, true
		}
	}
	return 0, false
}

// bracketSpeaker reads "[Sarah]: text", "【小美】：text" (a sure speaker) and
// "[Sarah] text" (WeakBracket: a turn only if the dialogue says so); line[i]
// opens the bracket.
func bracketSpeaker(line string, i int, sp Speaker) (Speaker, bool) {
	cls, ow := "]", 1
	if line[i] != '[' {
		cls, ow = "】", len("【")
	}
	e := strings.Index(line[i+ow:], cls)
	if e < 0 {
		return sp, false
	}
	e += i + ow
	name := Trim(line[i+ow : e])
	after := TrimSpaceFwd(line, e+len(cls))
	if m := after + len(line[after:]) - len(strings.TrimLeft(line[after:], "*_")); m > after && ColonAt(line, m) {
		sp.Deco |= DecoMarkdown // "[Sarah]**:**"
		after = m
	}
	colon := ColonAt(line, after) && !(line[after] == ':' && after+1 < len(line) && (line[after+1] >= '0' && line[after+1] <= '9' || line[after+1] == '/'))
	if colon {
		if line[after] == ':' {
			after++
		} else {
			after += len("：")
		}
		if !ValidName(name, false) {
			if !looseName(name) {
				return sp, false
			}
			sp.Weak = WeakLoose
		}
	} else {
		if !ValidName(name, true) && !looseName(name) {
			return sp, false
		}
		sp.Weak = WeakBracket
	}
	if EndWord(name) || IsNarrLabel(name) {
		return sp, false
	}
	sp.Rest = Trim(line[after:])
	if sp.Weak == WeakBracket && sp.Rest == "" {
		return sp, false
	}
	sp.Full, sp.Name = name, name
	return sp, true
}

// dashes that may stand between a name and its text ("Sarah — Hi").
var nameDashes = [...]string{" — ", " – ", " -- ", " - ", "——", " —", "—"}

// dashSpeaker reads "Sarah — text" (WeakDash: a turn only if the dialogue says
// so), the name starting at line[start] and the dash before line[lim].
func dashSpeaker(line string, start, lim int, sp Speaker) (Speaker, bool) {
	lim = min(lim, start+maxNameBytes/2)
	best, bw := -1, 0
	for _, d := range nameDashes {
		if k := strings.Index(line[start:lim], d); k > 0 && (best < 0 || start+k < best) {
			best, bw = start+k, len(d)
		}
	}
	if best < 0 {
		return sp, false
	}
	name := Trim(line[start:best])
	for len(name) > 0 && (name[len(name)-1] == '*' || name[len(name)-1] == '_') {
		name = Trim(name[:len(name)-1])
		sp.Deco |= DecoMarkdown
	}
	rest := Trim(line[best+bw:])
	if rest == "" || name == "" || isDashRune(firstRune(rest)) || !ValidName(name, true) && !looseName(name) {
		return sp, false
	}
	sp.Full, sp.Name, sp.Rest, sp.Weak = name, name, rest, WeakDash
	return sp, true
}
