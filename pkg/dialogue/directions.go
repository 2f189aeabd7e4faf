package dialogue

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ngkit/ngkit/pkg/dialogue/internal/lex"
)

// dropMarkersLeft removes from a turn's text or direction the end markers
// that cleaning left, as EndMarkerIn (the audit's test) finds them: nested
// brackets and markers made by removing others ("((完))", "[ END[ END ]]")
// take many shapes, and this keeps the parser and the audit agreeing on
// every one. Every form needs a bracket and an end word, so most turns
// cost a few scans (mayHoldMarker).
func (a *assembler) dropMarkersLeft(s string) string {
	for range 8 {
		if !mayHoldMarker(s) {
			return s
		}
		m := EndMarkerIn(s)
		i := strings.Index(s, m)
		if m == "" || i < 0 {
			return s
		}
		a.p.bits |= dEndMarker
		a.p.removed(m)
		pre, post := strings.TrimRight(s[:i], " \t"), strings.TrimLeft(s[i+len(m):], " \t")
		switch {
		case strings.HasSuffix(pre, "\n") && strings.HasPrefix(post, "\n"):
			s = pre + post[1:]
		case pre == "" || post == "" || strings.HasSuffix(pre, "\n") || strings.HasPrefix(post, "\n"):
			s = pre + post
		default:
			s = pre + " " + post
		}
		s = lex.Trim(s)
	}
	return s
}

// mayHoldMarker reports whether s has what every end marker has: a
// bracket and an end word (a cheap test before EndMarkerIn).
func mayHoldMarker(s string) bool {
	// the ASCII set first: IndexAny with non-ASCII runes goes rune by rune
	if !strings.ContainsAny(s, "[(<") && !strings.Contains(s, "（") && !strings.Contains(s, "【") {
		return false
	}
	for _, w := range [...]string{"END", "End", "end", "끝", "结束", "完"} {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// baseName is a speaker name without its role bracket, for comparing
// speakers across dialogues.
func baseName(s string) string {
	if w := lex.CloseEndsAt(s, len(s)); w > 0 {
		if o := lex.MatchParenBack(s, len(s)); o > 0 {
			return lex.Trim(s[:o])
		}
	}
	return s
}

// clean takes directions, emphasis and wrapping quotes off one piece of
// turn text. With trail set, brackets that close the piece after its text
// become narration.
func (a *assembler) clean(s string, trail bool) string {
	t := a.clean0(s, trail)
	if t == "[END" {
		// the end marker cut short, as the whole of a turn's text ("A: [END")
		a.p.bits |= dEndMarker
		a.p.removed(t)
		return ""
	}
	return t
}

func (a *assembler) clean0(s string, trail bool) string {
	for range 8 {
		t := a.splitDirs(s, trail)
		if strings.IndexByte(t, '*') >= 0 || strings.Contains(t, "__") {
			var ch bool
			if t, ch = lex.StripEmphasis(t); ch {
				a.p.bits |= dMarkdown
			}
		}
		t = lex.Trim(lex.StripQuotes(lex.Trim(t)))
		if t != s && (strings.IndexByte(t, ']') >= 0 || strings.IndexByte(t, '>') >= 0 || strings.Contains(t, "】") || strings.IndexByte(t, ')') >= 0 || strings.Contains(t, "）")) {
			// removing a direction may join a marker: "[EN(x)D]"
			t = lex.Trim(a.p.dropEndMarkers(t, 0xff))
		}
		t = noEscapes(t)
		if t == s || !mayClean(t) {
			return t
		}
		s = t
	}
	return s
}

// mayClean reports whether another cleaning pass could change t.
func mayClean(t string) bool {
	return lex.NextOpen(t, 0) >= 0 || strings.IndexByte(t, '*') >= 0 || strings.Contains(t, "__") ||
		lex.IsQuoteStart(t) || strings.IndexByte(t, '\\') >= 0
}

// splitDirs takes the bracketed stage directions out of s and returns the
// text around them.
func (a *assembler) splitDirs(s string, trail bool) string {
	// a leading markdown direction: "*smiles* Hi"
	if inner, end, ok := leadingEmDir(s); ok {
		a.acts = append(a.acts, inner)
		a.p.bits |= dMarkdown
		s = lex.Trim(s[end:])
	}
	j := lex.NextOpen(s, 0)
	if j < 0 {
		return s
	}
	if j == 0 && lex.MatchParen(s, 0) < 0 && lex.ParenDepth(s, 0) > 0 && strings.IndexByte(s[1:], '(') < 0 && lex.CloseEndsAt(s, len(s)) == 0 {
		// "(문이 열리자 조용히 내린다." — a direction whose bracket never closes
		if inner := lex.Trim(s[lex.OpenAt(s, 0):]); inner != "" && lex.NextOpen(inner, 0) < 0 && !lex.EndWord(inner) {
			a.acts = append(a.acts, inner)
			return ""
		}
	}
	frags := a.frags[:0]
	groups := a.groups[:0]
	i := 0
	for j >= 0 {
		e := lex.MatchParen(s, j)
		if e < 0 {
			break
		}
		if (s[j] == '(' && j > 0 && lex.IsASCIIWord(s[j-1])) || (s[e-1] == ')' && e < len(s) && lex.IsASCIIWord(s[e])) || (groupsThenColon(s, e) && !blankStr(s[i:j])) {
			// "f(x)", "fine(smiles)" and "(0)00" are words, not directions;
			// "Name (x):" is a name
			j = lex.NextOpen(s, e)
			continue
		}
		frags = append(frags, s[i:j])
		groups = append(groups, group{lex.Trim(s[j+lex.OpenAt(s, j) : e-lex.CloseEndsAt(s, e)]), len(frags)})
		i = e
		j = lex.NextOpen(s, i)
	}
	frags = append(frags, s[i:])
	a.frags, a.groups = frags, groups
	if len(groups) == 0 {
		return s
	}
	// groups after the last text are trailing
	lastText := -1
	for k := len(frags) - 1; k >= 0; k-- {
		if !blankStr(frags[k]) {
			lastText = k
			break
		}
	}
	firstGroupAct := true
	for _, g := range groups {
		if g.inner == "" {
			continue
		}
		if lex.EndWord(g.inner) {
			// "( END )": an end marker, not a direction
			a.p.bits |= dEndMarker
			a.p.removed(g.inner)
			continue
		}
		trailing := g.frag > lastText
		if trail && trailing && (lastText >= 0 || !firstGroupAct) {
			a.p.addTrailNarr(a, g.inner)
			continue
		}
		firstGroupAct = false
		a.acts = append(a.acts, g.inner)
	}
	return joinFrags(frags, len(s))
}

// joinFrags joins the text fragments around the directions taken out
// (size: the length of the text they are from), a space between two
// where there was one, or where two words would touch.
func joinFrags(frags []string, size int) string {
	n, only := 0, ""
	for _, f := range frags {
		if !blankStr(f) {
			n++
			only = f
		}
	}
	if n == 0 {
		return ""
	}
	if n == 1 {
		return lex.Trim(only)
	}
	var b strings.Builder
	b.Grow(size)
	prevSpace := false
	for k, f := range frags {
		if blankStr(f) {
			if f != "" {
				prevSpace = true
			}
			continue
		}
		t := lex.Trim(f)
		if b.Len() > 0 {
			lead := f[0] == ' ' || f != strings.TrimLeft(f, " \u3000")
			last, _ := utf8.DecodeLastRuneInString(b.String())
			first, _ := utf8.DecodeRuneInString(t)
			if prevSpace || lead || (isWordRune(last) && isWordRune(first)) {
				b.WriteByte(' ')
			}
		}
		_ = k
		b.WriteString(t)
		prevSpace = strings.TrimRight(f, " \u3000") != f
	}
	return b.String()
}

// groupsThenColon reports whether only brackets and spaces stand between
// s[e] and a colon.
func groupsThenColon(s string, e int) bool {
	i := lex.TrimSpaceFwd(s, e)
	for i < len(s) {
		if lex.OpenAt(s, i) > 0 {
			m := lex.MatchParen(s, i)
			if m < 0 {
				return false
			}
			i = lex.TrimSpaceFwd(s, m)
			continue
		}
		if c := s[i]; c == '*' || c == '"' || c == '_' {
			i = lex.TrimSpaceFwd(s, i+1)
			continue
		}
		break
	}
	return lex.ColonAt(s, i)
}

func isWordRune(r rune) bool {
	return r < 0x3000 && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

func blankStr(s string) bool {
	return lex.TrimSpaceFwd(s, 0) == len(s)
}

// plainStable reports whether line t, on a line of its own, reads back as a
// plain line with the same text.
func plainStable(t string) bool {
	var q parser
	q.ends = lex.EndKinds(t)
	q.line(t, false)
	q.closeOpen()
	q.resolveWeak() // a weak speaker line alone is no turn
	if len(q.items) != 1 || q.items[0].k != kPlain || q.items[0].text != t {
		return false
	}
	if lex.IsDots(t) {
		return false
	}
	return true
}
