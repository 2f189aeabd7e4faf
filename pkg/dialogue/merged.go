package dialogue

import (
	"strings"
	"unicode/utf8"

	"github.com/ngkit/ngkit/pkg/dialogue/internal/lex"
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
			colons = colons || strings.IndexByte(it.sp.Rest, ':') >= 0 || strings.Contains(it.sp.Rest, "：")
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
			names = addName(names, p.items[i].sp.Name)
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
			segs = splitRest(it.sp.Rest, names, single)
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
			first.sp.Rest = segs[0].sp.Rest
			first.multi = true
			out = append(out, first)
		} else if segs[0].sp.Rest != "" {
			// the line's turns follow as items of their own: unplaced,
			// this piece is kept without them
			first.text = segs[0].sp.Rest
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
		s := it.sp.Rest
		for c, w := lex.NextColon(s, 0); c >= 0; c, w = lex.NextColon(s, c+w) {
			if w == 1 && !lex.ASCIIColonOK(s, c) {
				continue
			}
			e, _, _, ok := lex.NameEnd(s, c, 0)
			if !ok {
				continue
			}
			st, ok := lex.CandidateBefore(s, e, 0)
			if !ok || st <= textStart(s) {
				// a name right after the first colon ("A: B: hi") is
				// not taken for a speaker on its own evidence
				continue
			}
			for st < e && (s[st] == '*' || s[st] == '_' || s[st] == '"') {
				st++ // "**A:**" as clean will leave it
			}
			name := s[st:e]
			if !lex.ValidName(name, true) || lex.IsNarrLabel(name) {
				continue
			}
			if _, _, hdr := lex.ParseHeader(name); hdr {
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
	return q > 0 && lex.TrimSpaceBack(s, q) < q
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
	if in := s[1:k]; lex.Trim(in) != in || (k+1 < len(s) && s[k+1] == '*') || !lex.Balanced(in) || lex.EndWord(in) {
		return "", 0, false
	}
	return s[1:k], k + 1, true
}

// textStart returns where the text of a turn starts, after its leading
// directions.
func textStart(s string) int {
	i := lex.TrimSpaceFwd(s, 0)
	for i < len(s) {
		if _, end, ok := leadingEmDir(s[i:]); ok {
			i = lex.TrimSpaceFwd(s, i+end)
			continue
		}
		if lex.OpenAt(s, i) > 0 {
			if e := lex.MatchParen(s, i); e >= 0 {
				i = lex.TrimSpaceFwd(s, e)
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
		if r == '“' || r == '‘' || r == '「' || r == '『' || r == '«' || lex.IsSpace(r) {
			i += w
			continue
		}
		break
	}
	return i
}

func hasLatinLetter(s string) bool {
	for i := 0; i < len(s); i++ {
		if lex.IsLetterByte(s[i]) {
			return true
		}
	}
	return false
}

type seg struct {
	sp  lex.Speaker
	gap bool // two or more spaces before the name
}

// splitRest cuts s at each known name that precedes a colon and starts the
// text or follows a sentence end (or, when loose, a space). The first
// segment's sp.Rest is the text before the first cut; nil means no cut.
func splitRest(s string, names []string, loose bool) []seg {
	var segs []seg
	from, segStart := 0, 0
	var cur lex.Speaker
	gap := false
	for {
		c, w := lex.NextColon(s, from)
		if c < 0 {
			break
		}
		from = c + w
		if w == 1 && !lex.ASCIIColonOK(s, c) {
			continue
		}
		e, paren, hasParen, ok := lex.NameEnd(s, c, segStart)
		if !ok {
			continue
		}
		var name string
		for _, n := range names {
			if e-segStart >= len(n) && s[e-len(n):e] == n && (e-len(n) == segStart+textStart(s[segStart:e-len(n)]) || lex.BoundaryBefore(s, e-len(n)) || (loose && spaceBefore(s, e-len(n)) && !hasLatinLetter(n))) {
				name = n
				break
			}
		}
		if name == "" {
			continue
		}
		ns := e - len(name)
		// what came before belongs to the current turn
		cur.Rest = lex.Trim(s[segStart:ns])
		segs = append(segs, seg{sp: cur, gap: gap})
		gap = ns-lex.TrimSpaceBack(s, ns) >= 2
		cur = lex.Speaker{Name: name, Full: name, Paren: paren, HasParen: hasParen}
		if hasParen {
			cur.Full = s[ns:lex.TrimSpaceBack(s, c)]
			cur.Full = strings.TrimRight(cur.Full, "*\" ")
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
	cur.Rest = lex.Trim(s[segStart:])
	return append(segs, seg{sp: cur, gap: gap})
}
