package dialogue

import (
	"strings"
	"unicode/utf8"
)

// spk is a speaker found at the start of a line (or inside one).
type spk struct {
	full     string // name as written, bracket included
	name     string // base name, bracket removed
	paren    string // bracket content before the colon
	hasParen bool
	rest     string // after the colon, trimmed
	deco     uint32 // decoMarkdown, decoQuotes: the decorations seen around the name
	lead     string // a list number taken off before the name ("1. ", "2) ")
	weak     uint8  // 0: a sure speaker; else the weak form, decided by the whole dialogue
}

// Weak speaker forms: lines that are a turn only when the dialogue as a
// whole says so (see resolveWeak).
const (
	wLoose   uint8 = 1 + iota // "Family member: ...": lower-case words in the name
	wBracket                  // "[Sarah] ...": a bracketed name and no colon
	wDash                     // "Sarah — ...": a name and a dash
)

// Decorations around a speaker name (spk.deco); the parser reports them
// as defects.
const (
	decoMarkdown uint32 = 1 << iota // "**Mike:**", "- Mike:", "> Mike:"
	decoQuotes                      // "\"Ms. Chen:\"", "“Tom:”"
)

const maxNameBytes = 160

// parseSpeaker reports whether line starts with a speaker and splits it.
// The forms: "Name:" / "Name (x):" / "**Name:**" / "\"Name:\"" (colonSpeaker),
// "[Name]: text" and "[Name] text" (bracketSpeaker), "Name — text"
// (dashSpeaker); decorations, a list number and a timestamp before the name
// are read first.
func parseSpeaker(line string) (spk, bool) {
	var sp spk
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
func leadDecorations(line string, sp *spk) (i, marks int) {
	for i < len(line) {
		c := line[i]
		if (c == '-' || c == '+' || c == '*') && i+1 < len(line) && line[i+1] == ' ' && i == 0 {
			sp.deco |= decoMarkdown
			i += 2
			continue
		}
		if c >= '0' && c <= '9' && sp.lead == "" {
			// "1. Sarah:", "2) 小王：" — a list number, not part of the name
			if n := listNumber(line[i:]); n > 0 {
				sp.lead = line[i : i+n]
				i += n
				continue
			}
		}
		if c >= 0xE2 {
			if n := emojiRun(line[i:]); n > 0 {
				i = trimSpaceFwd(line, i+n)
				continue
			}
		}
		if c == '*' || c == '_' {
			sp.deco |= decoMarkdown
			marks++
			i++
			continue
		}
		if c == '"' {
			sp.deco |= decoQuotes
			i++
			continue
		}
		if c == '>' && i+1 < len(line) && line[i+1] == ' ' {
			sp.deco |= decoMarkdown
			i += 2
			continue
		}
		if strings.HasPrefix(line[i:], "“") {
			sp.deco |= decoQuotes
			i += len("“")
			continue
		}
		if strings.HasPrefix(line[i:], "• ") {
			sp.deco |= decoMarkdown
			i += len("• ")
			continue
		}
		break
	}
	return i, marks
}

// timestampLead takes a "[00:01:23] " before the name into sp.lead.
func timestampLead(line string, i int, sp *spk) int {
	if i < len(line) && line[i] == '[' && sp.lead == "" {
		// "[00:01:23] Sarah: hi" — a timestamp, not part of the name
		if e := strings.IndexByte(line[i:], ']'); e > 0 && isTimestamp(line[i+1:i+e]) {
			sp.lead = line[:i+e+1]
			i = trimSpaceFwd(line, i+e+1)
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
			e := matchParen(line, j)
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
				e := matchParen(line, j)
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
func colonSpeaker(line string, start, colon, cw, marks int, sp spk) (spk, bool) {
	after := colon + cw
	if cw == 1 && after < len(line) {
		c := line[after]
		if (c >= '0' && c <= '9') || c == '/' || c == ':' {
			return sp, false // 10:30, https://
		}
	}
	// name part, trailing decorations removed
	e := trimSpaceBack(line, colon)
	for e > start {
		c := line[e-1]
		if c == '*' || c == '_' {
			sp.deco |= decoMarkdown
			marks--
			e--
			continue
		}
		if c == '"' {
			sp.deco |= decoQuotes
			e--
			continue
		}
		if e-start >= 3 && line[e-3:e] == "”" {
			sp.deco |= decoQuotes
			e -= 3
			continue
		}
		break
	}
	e = trimSpaceBack(line, e)
	if e <= start {
		return sp, false
	}
	full := line[start:e]
	name := full
	if w := closeEndsAt(line, e); w > 0 {
		o := matchParenBack(line, e)
		if o < start {
			return sp, false
		}
		ow := openAt(line, o)
		paren := trim(line[o+ow : e-w])
		be := trimSpaceBack(line, o)
		stars := false
		for be > start && (line[be-1] == '*' || line[be-1] == '_') {
			be-- // "**Sarah** (smiling):"
			marks--
			stars = true
		}
		if stars {
			be = trimSpaceBack(line, be) // "A *():" — the name is "A"
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
			sp.paren = paren
			sp.hasParen = paren != ""
			if !sp.hasParen {
				full = base
			}
		}
	}
	if !validName(name, false) {
		if !looseName(name) {
			return sp, false
		}
		sp.weak = wLoose
	}
	sp.full, sp.name = full, name
	// decorations right after the colon: "**Mike:** hi", "\"Ms. Chen:\" 小钱"
	for after < len(line) {
		c := line[after]
		if (c == '*' || c == '_') && marks > 0 {
			sp.deco |= decoMarkdown
			marks--
			after++
			continue
		}
		if c == '"' && sp.deco&decoQuotes != 0 {
			after++
			continue
		}
		if strings.HasPrefix(line[after:], "”") && sp.deco&decoQuotes != 0 {
			after += len("”")
			continue
		}
		break
	}
	sp.rest = trim(line[after:])
	return sp, true
}

// boundaryBefore reports whether a speaker name may start at s[q]: at the
// start, after two spaces, or after a sentence end ("Paris. Mrs. Bennett:",
// "土了。王军:") but not after a title ("Mr. Smith").
func boundaryBefore(s string, q int) bool {
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
	i := trimSpaceBack(s, q)
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

// asciiColonOK reports whether an ASCII colon at s[c] inside a line can
// end a speaker name (not "https://"). A digit after it does not count
// against it here: where a name starts right after the colon, the digit
// may be the next name's, and "10:30" has no name before its colon anyway.
func asciiColonOK(s string, c int) bool {
	if c+1 >= len(s) {
		return true
	}
	n := s[c+1]
	return n != '/' && n != ':'
}

// nextColon finds the next ':' or '：' at or after i; it returns its index
// and width.
func nextColon(s string, i int) (int, int) {
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

// nameBefore looks at the text before a colon at s[c]: an optional bracket
// (role or direction) and the name. It returns where the name ends and the
// bracket, or ok=false.
func nameEnd(s string, c, start int) (e int, paren string, hasParen bool, ok bool) {
	e = trimSpaceBack(s, c)
	for e > start && (s[e-1] == '*' || s[e-1] == '"' || s[e-1] == '_') {
		e = trimSpaceBack(s, e-1)
	}
	if w := closeEndsAt(s, e); w > 0 {
		o := matchParenBack(s, e)
		if o < start {
			return 0, "", false, false
		}
		paren = trim(s[o+openAt(s, o) : e-w])
		hasParen = paren != ""
		e = trimSpaceBack(s, o)
	}
	return e, paren, hasParen, e > start
}

// candidateBefore finds a would-be speaker name that ends at e: up to four
// words back to a sentence boundary.
func candidateBefore(s string, e, start int) (int, bool) {
	q := e
	for words := 0; words < 4; words++ {
		j := q
		for j > start {
			r, w := utf8.DecodeLastRuneInString(s[:j])
			if isSpace(r) {
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
			if !isSpace(r) {
				// stopped at a terminator inside the word: "土了。王军";
				// an ASCII one needs a space after it ("A.B:" is no name)
				return j, j < e && r >= 0x80
			}
		}
		if boundaryBefore(s, j) || j <= start {
			return j, true
		}
		q = trimSpaceBack(s, j)
		if q <= start {
			return j, true
		}
	}
	return 0, false
}

// bracketSpeaker reads "[Sarah]: text", "【小美】：text" (a sure speaker) and
// "[Sarah] text" (wBracket: a turn only if the dialogue says so); line[i]
// opens the bracket.
func bracketSpeaker(line string, i int, sp spk) (spk, bool) {
	cls, ow := "]", 1
	if line[i] != '[' {
		cls, ow = "】", len("【")
	}
	e := strings.Index(line[i+ow:], cls)
	if e < 0 {
		return sp, false
	}
	e += i + ow
	name := trim(line[i+ow : e])
	after := trimSpaceFwd(line, e+len(cls))
	if m := after + len(line[after:]) - len(strings.TrimLeft(line[after:], "*_")); m > after && colonAt(line, m) {
		sp.deco |= decoMarkdown // "[Sarah]**:**"
		after = m
	}
	colon := colonAt(line, after) && !(line[after] == ':' && after+1 < len(line) && (line[after+1] >= '0' && line[after+1] <= '9' || line[after+1] == '/'))
	if colon {
		if line[after] == ':' {
			after++
		} else {
			after += len("：")
		}
		if !validName(name, false) {
			if !looseName(name) {
				return sp, false
			}
			sp.weak = wLoose
		}
	} else {
		if !validName(name, true) && !looseName(name) {
			return sp, false
		}
		sp.weak = wBracket
	}
	if endWord(name) || isNarrLabel(name) {
		return sp, false
	}
	sp.rest = trim(line[after:])
	if sp.weak == wBracket && sp.rest == "" {
		return sp, false
	}
	sp.full, sp.name = name, name
	return sp, true
}

// dashes that may stand between a name and its text ("Sarah — Hi").
var nameDashes = [...]string{" — ", " – ", " -- ", " - ", "——", " —", "—"}

// dashSpeaker reads "Sarah — text" (wDash: a turn only if the dialogue says
// so), the name starting at line[start] and the dash before line[lim].
func dashSpeaker(line string, start, lim int, sp spk) (spk, bool) {
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
	name := trim(line[start:best])
	for len(name) > 0 && (name[len(name)-1] == '*' || name[len(name)-1] == '_') {
		name = trim(name[:len(name)-1])
		sp.deco |= decoMarkdown
	}
	rest := trim(line[best+bw:])
	if rest == "" || name == "" || isDashRune(firstRune(rest)) || !validName(name, true) && !looseName(name) {
		return sp, false
	}
	sp.full, sp.name, sp.rest, sp.weak = name, name, rest, wDash
	return sp, true
}
