package dialogue

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ngkit/ngkit/pkg/record"
)

// finish turns the filed lines into dialogues.
func (p *parser) finish() Result {
	p.resolveWeak()
	p.splitMerged()
	return p.assemble()
}

// splitMerged finds turns that share a line ("A: hi B: hello") and splits
// them at known speaker names.
func (p *parser) splitMerged() {
	turnLines, content := 0, 0
	colons := false
	for i := range p.items {
		it := &p.items[i]
		switch it.k {
		case kTurn:
			turnLines++
			content++
			colons = colons || strings.IndexByte(it.sp.rest, ':') >= 0 || strings.Contains(it.sp.rest, "：")
		case kPlain:
			content++
			colons = colons || strings.IndexByte(it.text, ':') >= 0 || strings.Contains(it.text, "：")
		case kNarr:
			content++
		}
	}
	if !colons {
		return
	}
	names := p.names[:0]
	for i := range p.items {
		if p.items[i].k == kTurn {
			names = addName(names, p.items[i].sp.name)
		}
	}
	defer func() { p.names = names[:0] }()
	single := turnLines == 1 && content == 1
	if single {
		names = p.discover(names)
	}
	sortByLen(names)
	var out []item
	split := false
	for i := range p.items {
		it := p.items[i]
		var segs []seg
		switch it.k {
		case kTurn:
			segs = splitRest(it.sp.rest, names, single)
		case kPlain:
			segs = splitRest(it.text, names, false)
		}
		if len(segs) <= 1 {
			if out != nil {
				out = append(out, it)
			}
			continue
		}
		split = true
		if out == nil {
			out = make([]item, 0, len(p.items)+len(segs)*2)
			out = append(out, p.items[:i]...)
		}
		first := it
		if it.k == kTurn {
			first.sp.rest = segs[0].sp.rest
			first.multi = true
			out = append(out, first)
		} else if segs[0].sp.rest != "" {
			// the line's turns follow as items of their own: unplaced,
			// this piece is kept without them
			first.text = segs[0].sp.rest
			first.raw = first.text
			out = append(out, first)
		}
		for j, sg := range segs[1:] {
			out = append(out, item{k: kTurn, sp: sg.sp, blank: sg.gap, multi: j < len(segs)-2 || single, raw: it.raw})
		}
	}
	if !split {
		return
	}
	p.items = out
	if single {
		p.bits |= dSingleLine
	} else {
		p.bits |= dMerged
	}
}

func addName(names []string, n string) []string {
	for _, x := range names {
		if x == n {
			return names
		}
	}
	return append(names, n)
}

func sortByLen(names []string) {
	for i := 1; i < len(names); i++ {
		for j := i; j > 0 && len(names[j]) > len(names[j-1]); j-- {
			names[j], names[j-1] = names[j-1], names[j]
		}
	}
}

// discover adds speaker names found before colons inside the line when the
// whole dialogue is on one line. A would-be name must follow a sentence end
// (not open the text), be a plausible name (capitalised Latin words; at
// most three words otherwise); it counts when it occurs twice, or once
// unless it only adds words before a name that is sure ("ㅇㅇ 태준").
func (p *parser) discover(names []string) []string {
	type cand struct {
		name string
		n    int
	}
	var cands []cand
	for i := range p.items {
		it := &p.items[i]
		if it.k != kTurn {
			continue
		}
		s := it.sp.rest
		for c, w := nextColon(s, 0); c >= 0; c, w = nextColon(s, c+w) {
			if w == 1 && !asciiColonOK(s, c) {
				continue
			}
			e, _, _, ok := nameEnd(s, c, 0)
			if !ok {
				continue
			}
			st, ok := candidateBefore(s, e, 0)
			if !ok || st <= textStart(s) {
				// a name right after the first colon ("A: B: hi") is
				// not taken for a speaker on its own evidence
				continue
			}
			for st < e && (s[st] == '*' || s[st] == '_' || s[st] == '"') {
				st++ // "**A:**" as clean will leave it
			}
			name := s[st:e]
			if !validName(name, true) || isNarrLabel(name) {
				continue
			}
			if _, _, hdr := parseHeader(name); hdr {
				continue // "Dialogue" is a header, not a speaker
			}
			found := false
			for k := range cands {
				if cands[k].name == name {
					cands[k].n++
					found = true
					break
				}
			}
			if !found {
				cands = append(cands, cand{name, 1})
			}
		}
	}
	// names seen at line starts or twice are sure; a name seen once counts
	// unless it only adds words before a sure one ("ㅇㅇ 태준")
	for _, c := range cands {
		if c.n >= 2 {
			names = addName(names, c.name)
		}
	}
	sure := len(names)
	for _, c := range cands {
		if c.n >= 2 {
			continue
		}
		ok := true
		for _, n := range names[:sure] {
			if strings.HasSuffix(c.name, " "+n) {
				ok = false
				break
			}
		}
		if ok {
			names = addName(names, c.name)
		}
	}
	return names
}

// spaceBefore reports whether s[q] follows a space. On a line that holds a
// whole dialogue, a non-Latin speaker name after a space starts a turn
// ("누나: ㅇㅇ 태준: ...").
func spaceBefore(s string, q int) bool {
	return q > 0 && trimSpaceBack(s, q) < q
}

// leadingEmDir reports a markdown stage direction at the start of s
// ("*smiles* Hi"): its text and where it ends.
func leadingEmDir(s string) (string, int, bool) {
	if len(s) <= 2 || s[0] != '*' || s[1] == '*' || s[1] == ' ' {
		return "", 0, false
	}
	k := strings.IndexByte(s[1:], '*')
	if k <= 0 {
		return "", 0, false
	}
	k++
	if in := s[1:k]; trim(in) != in || (k+1 < len(s) && s[k+1] == '*') || !balanced(in) || endWord(in) {
		return "", 0, false
	}
	return s[1:k], k + 1, true
}

// textStart returns where the text of a turn starts, after its leading
// directions.
func textStart(s string) int {
	i := trimSpaceFwd(s, 0)
	for i < len(s) {
		if _, end, ok := leadingEmDir(s[i:]); ok {
			i = trimSpaceFwd(s, i+end)
			continue
		}
		if openAt(s, i) > 0 {
			if e := matchParen(s, i); e >= 0 {
				i = trimSpaceFwd(s, e)
				continue
			}
		}
		if j := skipOpeners(s, i); j > i {
			i = j
			continue
		}
		break
	}
	return i
}

// skipOpeners skips spaces, opening quotes and emphasis marks from s[i]:
// what cleaning may take off the start of a text.
func skipOpeners(s string, i int) int {
	for i < len(s) {
		switch s[i] {
		case ' ', '\t', '"', '\'', '*', '_':
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		if r == '“' || r == '‘' || r == '「' || r == '『' || r == '«' || isSpace(r) {
			i += w
			continue
		}
		break
	}
	return i
}

func hasLatinLetter(s string) bool {
	for i := 0; i < len(s); i++ {
		if isLetterByte(s[i]) {
			return true
		}
	}
	return false
}

type seg struct {
	sp  spk
	gap bool // two or more spaces before the name
}

// splitRest cuts s at each known name that precedes a colon and starts the
// text or follows a sentence end (or, when loose, a space). The first
// segment's sp.rest is the text before the first cut; nil means no cut.
func splitRest(s string, names []string, loose bool) []seg {
	var segs []seg
	from, segStart := 0, 0
	var cur spk
	gap := false
	for {
		c, w := nextColon(s, from)
		if c < 0 {
			break
		}
		from = c + w
		if w == 1 && !asciiColonOK(s, c) {
			continue
		}
		e, paren, hasParen, ok := nameEnd(s, c, segStart)
		if !ok {
			continue
		}
		var name string
		for _, n := range names {
			if e-segStart >= len(n) && s[e-len(n):e] == n && (e-len(n) == segStart+textStart(s[segStart:e-len(n)]) || boundaryBefore(s, e-len(n)) || (loose && spaceBefore(s, e-len(n)) && !hasLatinLetter(n))) {
				name = n
				break
			}
		}
		if name == "" {
			continue
		}
		ns := e - len(name)
		// what came before belongs to the current turn
		cur.rest = trim(s[segStart:ns])
		segs = append(segs, seg{sp: cur, gap: gap})
		gap = ns-trimSpaceBack(s, ns) >= 2
		cur = spk{name: name, full: name, paren: paren, hasParen: hasParen}
		if hasParen {
			cur.full = s[ns:trimSpaceBack(s, c)]
			cur.full = strings.TrimRight(cur.full, "*\" ")
		}
		after := c + w
		for after < len(s) && (s[after] == '*' || s[after] == '"') {
			after++
		}
		segStart = after
		from = after
	}
	if segs == nil {
		return nil
	}
	cur.rest = trim(s[segStart:])
	return append(segs, seg{sp: cur, gap: gap})
}

// decideRoles decides, for each "Name (x):", whether x is a role (kept in
// the speaker name) or a stage direction (put first in the action): a role
// when a line of that name and x also has a direction after the colon, or
// when x is the same on all of at least two lines of that name.
func (a *assembler) decideRoles() {
	any := false
	for _, h := range a.tparen {
		if h.has {
			any = true
			break
		}
	}
	if any {
		for i := range a.turns {
			h := a.tparen[i]
			if !h.has {
				continue
			}
			role, n, bare, many := false, 0, false, false
			for j := range a.turns {
				g := a.tparen[j]
				if a.turns[j].Speaker != a.turns[i].Speaker {
					continue
				}
				if !g.has {
					bare = true
					continue
				}
				if g.paren != h.paren {
					many = true
					continue
				}
				n++
				if a.turns[j].Action != "" {
					role = true
				}
			}
			if role || (n >= 2 && !bare && !many) {
				a.tparen[i].full, a.tparen[i].role = h.full, true
			}
		}
		for i := range a.turns {
			h := a.tparen[i]
			switch {
			case !h.has:
			case h.role:
				a.turns[i].Speaker = h.full
			case endWord(h.paren):
				a.p.bits |= dEndMarker
				a.p.removed(h.paren)
			case a.turns[i].Action == "":
				a.turns[i].Action = h.paren
			default:
				a.turns[i].Action = h.paren + "; " + a.turns[i].Action
			}
		}
	}
	for i := range a.turns {
		a.turns[i].Action = noEscapes(a.turns[i].Action)
		a.names = append(a.names, baseName(a.turns[i].Speaker))
	}
}

func leadsWithDir(s string) bool {
	return s != "" && openAt(s, 0) > 0 && matchParen(s, 0) > 0
}

// narr is a narration line and where it stands.
type narr struct {
	text string
	at   int // turns before it
	item int // index of its item
}

type assembler struct {
	p       *parser
	turns   []record.Turn
	turnIt  []int  // item index of each turn
	gap     []bool // a blank line or a non-turn line before each turn
	tparen  []parenInfo
	sawGap  bool
	names   []string
	narr    []narr
	unpl    []string
	marks   []int // item indexes of marks and boundaries
	hard    []int // turn indexes where a header starts a new dialogue
	acts    []string
	texts   []string
	frags   []string
	groups  []group
	cur     int // item index of the open turn, -1 if none
	curBare bool
	pieces  []string
	curMult bool
}

// reset readies a pooled assembler for a new text, keeping its buffers.
func (a *assembler) reset(p *parser) {
	a.p = p
	a.turns = nil
	a.turnIt = a.turnIt[:0]
	a.gap = a.gap[:0]
	a.sawGap = false
	a.names = a.names[:0]
	a.tparen = a.tparen[:0]
	a.narr = a.narr[:0]
	a.unpl = nil
	a.marks = a.marks[:0]
	a.hard = a.hard[:0]
	a.cur = -1
	a.curBare = false
	a.pieces = a.pieces[:0]
	a.curMult = false
}

// parenInfo is the bracket a turn's speaker had before the colon.
type parenInfo struct {
	has   bool
	role  bool
	paren string
	full  string
}

type group struct {
	inner string
	frag  int // the group stands before frags[frag]
}

func (p *parser) assemble() Result {
	a := &p.asm
	a.reset(p)
	nTurns := 0
	for i := range p.items {
		if p.items[i].k == kTurn {
			nTurns++
		}
	}
	hasTurn := nTurns > 0
	a.turns = make([]record.Turn, 0, nTurns)
	placeholder := !hasTurn
	for i := range p.items {
		it := &p.items[i]
		if it.k != kTurn && it.k != kPlain {
			a.sawGap = true
		}
		switch it.k {
		case kTurn:
			a.flush()
			a.gap = append(a.gap, it.blank || a.sawGap)
			a.sawGap = false
			a.cur = i
			a.curBare = it.sp.rest == ""
			a.curMult = it.multi
			a.pieces = append(a.pieces[:0], it.sp.rest)
		case kPlain:
			dots := isDots(it.text)
			if a.cur >= 0 && (!it.blank || a.curBare || leadsWithDir(it.text)) && (a.curBare || !narrativeLine(it.text)) {
				a.pieces = append(a.pieces, it.text)
				a.curBare = false
				continue
			}
			a.sawGap = true
			switch {
			case !hasTurn:
				if dots {
					continue
				}
				if !(strings.HasPrefix(it.text, "...") || strings.HasPrefix(it.text, "…")) {
					placeholder = false
				}
				a.flush()
				a.unpl = append(a.unpl, it.raw)
			case dots:
				a.flush()
				a.marks = append(a.marks, i)
			case isQuoteStart(it.text) || leadsWithDir(it.text):
				a.flush()
				a.unpl = append(a.unpl, it.raw)
			default:
				a.flush()
				a.addNarr(it.text, len(a.turns), i)
			}
		case kNarr:
			a.flush()
			placeholder = false
			a.addNarr(it.text, len(a.turns), i)
		case kMark:
			a.flush()
			a.marks = append(a.marks, i)
		case kBoundary:
			a.flush()
			a.marks = append(a.marks, i)
			if len(a.hard) == 0 || a.hard[len(a.hard)-1] != len(a.turns) {
				a.hard = append(a.hard, len(a.turns))
			}
		}
	}
	a.flush()
	a.decideRoles()
	if len(a.turns) == 0 {
		p.bits |= dEmpty
		if placeholder && len(p.items) > 0 {
			p.bits |= dPlaceholder
		}
	}
	if len(a.unpl) > 0 {
		p.bits |= dUnplaced
	}
	res := Result{Unplaced: a.unpl}
	res.Dialogues = a.split()
	if len(res.Dialogues) > 1 {
		p.bits |= dMulti
	}
	res.Defects = defectList(p.bits)
	return res
}

// flush ends the open turn.
func (a *assembler) flush() {
	if a.cur < 0 {
		return
	}
	p := a.p
	curItem := a.cur
	it := &p.items[curItem]
	a.acts = a.acts[:0]
	a.texts = a.texts[:0]
	trailStart := len(a.narr)
	for k, piece := range a.pieces {
		if piece == "" {
			continue
		}
		t := a.clean(piece, a.curMult && k == 0)
		if t == "" {
			continue
		}
		a.texts = append(a.texts, t)
		for n := len(a.texts); n > 1 && (!plainStable(a.texts[n-1]) || narrativeLine(a.texts[n-1])); n = len(a.texts) {
			// this line would read as something else (a speaker, a
			// marker, narration) on a line of its own: keep it on the
			// line before, and clean that again as Parse will when it
			// reads Render's output
			m := a.clean(a.texts[n-2]+" "+a.texts[n-1], false)
			a.texts = a.texts[:n-1]
			if m == "" {
				a.texts = a.texts[:n-2]
				break
			}
			a.texts[n-2] = m
		}
	}
	var text, act string
	switch len(a.texts) {
	case 0:
	case 1:
		text = a.texts[0]
	default:
		text = strings.Join(a.texts, "\n")
	}
	switch len(a.acts) {
	case 0:
	case 1:
		act = a.acts[0]
	default:
		act = strings.Join(a.acts, "; ")
	}
	text, act = a.dropMarkersLeft(text), a.dropMarkersLeft(act)
	idx := len(a.turns)
	a.turns = append(a.turns, record.Turn{Index: idx, Speaker: it.sp.name, Action: act, Text: text})
	a.turnIt = append(a.turnIt, curItem)
	a.tparen = append(a.tparen, parenInfo{has: it.sp.hasParen, paren: it.sp.paren, full: it.sp.full})
	for k := trailStart; k < len(a.narr); k++ {
		a.narr[k].at = idx + 1
	}
	a.cur = -1
}

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
		s = trim(s)
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
	if w := closeEndsAt(s, len(s)); w > 0 {
		if o := matchParenBack(s, len(s)); o > 0 {
			return trim(s[:o])
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
			if t, ch = stripEmphasis(t); ch {
				a.p.bits |= dMarkdown
			}
		}
		t = trim(stripQuotes(trim(t)))
		if t != s && (strings.IndexByte(t, ']') >= 0 || strings.IndexByte(t, '>') >= 0 || strings.Contains(t, "】") || strings.IndexByte(t, ')') >= 0 || strings.Contains(t, "）")) {
			// removing a direction may join a marker: "[EN(x)D]"
			t = trim(removeEndMarkers(t, &a.p.bits, a.p))
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
	return nextOpen(t, 0) >= 0 || strings.IndexByte(t, '*') >= 0 || strings.Contains(t, "__") ||
		isQuoteStart(t) || strings.IndexByte(t, '\\') >= 0
}

// splitDirs takes the bracketed stage directions out of s and returns the
// text around them.
func (a *assembler) splitDirs(s string, trail bool) string {
	// a leading markdown direction: "*smiles* Hi"
	if inner, end, ok := leadingEmDir(s); ok {
		a.acts = append(a.acts, inner)
		a.p.bits |= dMarkdown
		s = trim(s[end:])
	}
	j := nextOpen(s, 0)
	if j < 0 {
		return s
	}
	if j == 0 && matchParen(s, 0) < 0 && parenDepth(s, 0) > 0 && strings.IndexByte(s[1:], '(') < 0 && closeEndsAt(s, len(s)) == 0 {
		// "(문이 열리자 조용히 내린다." — a direction whose bracket never closes
		if inner := trim(s[openAt(s, 0):]); inner != "" && nextOpen(inner, 0) < 0 && !endWord(inner) {
			a.acts = append(a.acts, inner)
			return ""
		}
	}
	frags := a.frags[:0]
	groups := a.groups[:0]
	i := 0
	for j >= 0 {
		e := matchParen(s, j)
		if e < 0 {
			break
		}
		if (s[j] == '(' && j > 0 && isASCIIWord(s[j-1])) || (s[e-1] == ')' && e < len(s) && isASCIIWord(s[e])) || (groupsThenColon(s, e) && !blankStr(s[i:j])) {
			// "f(x)", "fine(smiles)" and "(0)00" are words, not directions;
			// "Name (x):" is a name
			j = nextOpen(s, e)
			continue
		}
		frags = append(frags, s[i:j])
		groups = append(groups, group{trim(s[j+openAt(s, j) : e-closeEndsAt(s, e)]), len(frags)})
		i = e
		j = nextOpen(s, i)
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
		if endWord(g.inner) {
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
	// join the text fragments
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
		return trim(only)
	}
	var b strings.Builder
	b.Grow(len(s))
	prevSpace := false
	for k, f := range frags {
		if blankStr(f) {
			if f != "" {
				prevSpace = true
			}
			continue
		}
		t := trim(f)
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
	i := trimSpaceFwd(s, e)
	for i < len(s) {
		if openAt(s, i) > 0 {
			m := matchParen(s, i)
			if m < 0 {
				return false
			}
			i = trimSpaceFwd(s, m)
			continue
		}
		if c := s[i]; c == '*' || c == '"' || c == '_' {
			i = trimSpaceFwd(s, i+1)
			continue
		}
		break
	}
	return colonAt(s, i)
}

func colonAt(s string, i int) bool {
	return i < len(s) && (s[i] == ':' || strings.HasPrefix(s[i:], "："))
}

func isASCIIWord(c byte) bool {
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

func isWordRune(r rune) bool {
	return r < 0x3000 && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

func blankStr(s string) bool {
	return trimSpaceFwd(s, 0) == len(s)
}

func (p *parser) addTrailNarr(a *assembler, s string) {
	a.addNarr(s, len(a.turns)+1, a.cur)
}

// addNarr adds a narration line; an end-marker word ("~~END") is dropped as
// an end marker.
func (a *assembler) addNarr(s string, at, item int) {
	s = noEscapes(s)
	if endWord(s) {
		a.p.bits |= dEndMarker
		a.p.removed(s)
		return
	}
	a.narr = append(a.narr, narr{text: s, at: at, item: item})
}

// plainStable reports whether line t, on a line of its own, reads back as a
// plain line with the same text.
func plainStable(t string) bool {
	var q parser
	q.ends = endKinds(t)
	q.line(t, false)
	q.closeOpen()
	q.resolveWeak() // a weak speaker line alone is no turn
	if len(q.items) != 1 || q.items[0].k != kPlain || q.items[0].text != t {
		return false
	}
	if isDots(t) {
		return false
	}
	return true
}

// split cuts the turns into dialogues: at headers that name a new
// dialogue, and wherever the turns before and after share no speaker (at
// least three turns and two speakers on each side).
func (a *assembler) split() []Dialogue {
	n := len(a.turns)
	if n == 0 && len(a.narr) == 0 {
		return nil
	}
	cuts := a.cuts()
	if len(cuts) == 0 {
		d := Dialogue{Turns: a.turns}
		if len(a.narr) > 0 {
			d.Narration = make([]string, len(a.narr))
			d.NarrationAt = make([]int, len(a.narr))
			for i, x := range a.narr {
				d.Narration[i], d.NarrationAt[i] = x.text, x.at
			}
		}
		return []Dialogue{d}
	}
	ds := make([]Dialogue, 0, len(cuts)+1)
	bounds := append(append([]int{0}, cuts...), n)
	ni := 0
	for c := 0; c+1 < len(bounds); c++ {
		lo, hi := bounds[c], bounds[c+1]
		d := Dialogue{Turns: a.turns[lo:hi:hi]}
		for i := range d.Turns {
			d.Turns[i].Index = i
		}
		for ; ni < len(a.narr); ni++ {
			x := a.narr[ni]
			if hi < n && (x.at > hi || (x.at == hi && !a.beforeBoundary(x.item, hi))) {
				break
			}
			d.Narration = append(d.Narration, x.text)
			d.NarrationAt = append(d.NarrationAt, x.at-lo)
		}
		ds = append(ds, d)
	}
	return ds
}

// beforeBoundary reports whether item it stands before a marker that lies
// between turn cut-1 and turn cut.
func (a *assembler) beforeBoundary(it, cut int) bool {
	lo, hi := a.turnIt[cut-1], a.turnIt[cut]
	for k := len(a.marks) - 1; k >= 0; k-- {
		m := a.marks[k]
		if m > lo && m < hi {
			return it < m
		}
	}
	return false
}

func (a *assembler) cuts() []int {
	n := len(a.turns)
	var cuts []int
	for _, h := range a.hard {
		if h > 0 && h < n {
			cuts = append(cuts, h)
		}
	}
	if n < 6 {
		return cuts
	}
	// last occurrence of each speaker
	last := make([]int, n)
	for i := range n {
		last[i] = i
		for j := n - 1; j > i; j-- {
			if a.names[j] == a.names[i] {
				last[i] = j
				break
			}
		}
	}
	var dis []int
	lo := 0
	maxLast := -1
	for k := 1; k < n; k++ {
		if last[k-1] > maxLast {
			maxLast = last[k-1]
		}
		if maxLast >= k || k-lo < 3 || n-k < 3 || (!a.gap[k] && (k-lo < 4 || n-k < 4)) {
			continue
		}
		if distinct(a.names[lo:k]) < 2 || distinct(a.names[k:]) < 2 || !repeats(a.names[lo:k]) || !repeats(a.names[k:]) {
			// a dialogue is a conversation: someone on each side speaks
			// twice; a scene whose speakers rotate (远亲1 ... 远亲22, each
			// once or so) is one dialogue
			continue
		}
		dis = append(dis, k)
		lo = k
	}
	if len(dis) == 0 {
		return cuts
	}
	// merge with the header cuts, in order
	all := append(cuts, dis...)
	for i := 1; i < len(all); i++ {
		for j := i; j > 0 && all[j] < all[j-1]; j-- {
			all[j], all[j-1] = all[j-1], all[j]
		}
	}
	out := all[:0]
	for i, c := range all {
		if i == 0 || c != all[i-1] {
			out = append(out, c)
		}
	}
	return out
}

func distinct(names []string) int {
	n := 0
	for i, x := range names {
		seen := false
		for _, y := range names[:i] {
			if x == y {
				seen = true
				break
			}
		}
		if !seen {
			n++
			if n >= 2 {
				return n
			}
		}
	}
	return n
}

// repeats reports whether some name occurs twice.
func repeats(names []string) bool {
	for i, x := range names {
		for _, y := range names[:i] {
			if x == y {
				return true
			}
		}
	}
	return false
}
