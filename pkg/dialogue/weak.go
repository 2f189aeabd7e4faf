package dialogue

import (
	"github.com/ngkit/ngkit/pkg/dialogue/internal/lex"
	"strings"
)

// weakLine is a line that reads as a turn in a weak form (lex.WeakLoose, lex.WeakBracket,
// lex.WeakDash) and the items it files as when it is not a turn.
type weakLine struct {
	item int    // index of its kTurn item
	alt  []item // the line filed without weak forms
	bits uint32 // defect bits of alt
}

// addWeak files a weak speaker line: a kTurn item for now, and what the
// line would be otherwise, for resolveWeak to choose from.
func (p *parser) addWeak(sp lex.Speaker, line, raw string, blank, narr bool) {
	n, bits, had := len(p.items), p.bits, p.hadTurnLine
	p.noWeak = true
	p.classify(line, raw, blank, narr)
	p.noWeak = false
	alt := append([]item(nil), p.items[n:]...)
	w := weakLine{item: n, alt: alt, bits: p.bits &^ bits}
	p.items, p.bits, p.hadTurnLine = p.items[:n], bits, had
	p.weak = append(p.weak, w)
	p.add(item{k: kTurn, blank: blank, sp: sp, raw: raw})
}

// resolveWeak decides the weak speaker lines by the dialogue as a whole.
// A weak line is a turn:
//   - "Family member: ..." (lower-case words): when its name recurs at the
//     start of another line, when the context (the situation) names it,
//     or when a turn of another
//     speaker stands before or after it (up to four lines away),
//     or the line is all the text holds, and the name holds no word of
//     prose ("The answer is: ...");
//   - "[Sarah] ..." and "Sarah — ...": when at least two lines of the text
//     have that form, with two names or more, and either a name recurs or
//     the text has no other turns (or the context names the speaker); never
//     right after a speaker alone on a line (that is the speaker's text);
//     a lower-case name as for "Family member: ..." (unless it recurs or
//     the context names it, it holds no word of prose).
//
// The others are filed as they would be without weak forms (continuation,
// narration, unplaced).
func (p *parser) resolveWeak() {
	if len(p.weak) == 0 {
		return
	}
	forms, sure := p.weakForms()
	keep, rejected := p.keepWeak(forms, sure)
	p.fileWeak(keep, rejected)
}

// weakForm is what a text holds of one weak form.
type weakForm struct {
	lines, names int
	recurs       bool
	first        string
}

// turnCount is how many turns speaker name has.
func (p *parser) turnCount(name string) int {
	n := 0
	for i := range p.items {
		if p.items[i].k == kTurn && p.items[i].sp.Name == name {
			n++
		}
	}
	return n
}

// weakForms says, per weak form, how many lines and names have it and
// whether a name recurs; sure is the number of turns of no weak form.
func (p *parser) weakForms() (forms [lex.WeakDash + 1]weakForm, sure int) {
	for i := range p.items {
		if p.items[i].k == kTurn && p.items[i].sp.Weak == 0 {
			sure++
		}
	}
	for _, w := range p.weak {
		sp := &p.items[w.item].sp
		f := &forms[sp.Weak]
		f.lines++
		if f.first == "" {
			f.first, f.names = sp.Name, 1
		} else if f.names == 1 && sp.Name != f.first {
			f.names = 2
		}
		if p.turnCount(sp.Name) >= 2 {
			f.recurs = true
		}
	}
	return forms, sure
}

// turnNear: the nearest turn before (step -1) or after (+1), at most
// four lines away (narration, markers and the lines of a turn's text
// between), is another speaker's
func (p *parser) turnNear(i, step int, name string) bool {
	for n := 0; n < 4; n++ {
		if i += step; i < 0 || i >= len(p.items) {
			return false
		}
		if sp := &p.items[i].sp; p.items[i].k == kTurn && sp.Weak <= lex.WeakLoose {
			return sp.Name != name
		}
	}
	return false
}

// keepWeak decides which weak turns are turns.
func (p *parser) keepWeak(forms [lex.WeakDash + 1]weakForm, sure int) (keep []bool, rejected int) {
	// a text that is one weak "Name: text" turn (its text on the lines
	// after it included) and nothing else is a turn
	lone := len(p.weak) == 1 && sure == 0
	for i := range p.items[:min(p.weak[0].item, len(p.items))] {
		if k := p.items[i].k; k != kMark && k != kNarr {
			lone = false
		}
	}
	keep = make([]bool, len(p.weak))
	for k, w := range p.weak {
		sp := &p.items[w.item].sp
		var ok bool
		switch {
		case sp.Weak != lex.WeakLoose && w.item > 0 && p.items[w.item-1].k == kTurn && p.items[w.item-1].sp.Rest == "" && !p.items[w.item].blank:
			// "[Smiling] ..." or "Sure — ..." after a speaker alone on a
			// line is that speaker's text
		case sp.Weak == lex.WeakLoose:
			ok = p.turnCount(sp.Name) >= 2 || p.named(sp.Name) ||
				(lone || p.turnNear(w.item, -1, sp.Name) || p.turnNear(w.item, 1, sp.Name)) && !lex.HasProseWord(sp.Name)
		default:
			// "[Sarah] ..." and "Sarah — ...": a form the text keeps to
			f := forms[sp.Weak]
			ok = f.lines >= 2 && f.names >= 2 && (f.recurs || sure == 0) || p.named(sp.Name) && f.lines >= 2
			// Render writes the turn "Name: text", where a name that only
			// looseName allows is a loose turn, kept when its name recurs,
			// the context names it or it holds no word of prose: ask the
			// same here, so that the dialogue reads back from its
			// rendering ("a I—0\na0 I—0" is not a dialogue of "a I" and
			// "a0 I", as "a I: 0\na0 I: 0" is not).
			if ok && p.turnCount(sp.Name) < 2 && !p.named(sp.Name) && lex.HasProseWord(sp.Name) && !lex.ValidName(sp.Name, false) {
				ok = false
			}
		}
		keep[k] = ok
		if !ok {
			rejected++
		}
	}
	return keep, rejected
}

// fileWeak files the weak turns kept as turns, the others as they would
// be without weak forms.
func (p *parser) fileWeak(keep []bool, rejected int) {
	for k, w := range p.weak {
		if keep[k] {
			it := &p.items[w.item]
			p.bits |= decoBits(it.sp.Deco)
			if it.sp.Lead != "" {
				p.removed(it.sp.Lead)
			}
			p.hadTurnLine = true
			p.weakTurns = true
		}
	}
	if rejected == 0 {
		return
	}
	out := make([]item, 0, len(p.items)+rejected)
	next := 0
	for k, w := range p.weak {
		out = append(out, p.items[next:w.item]...)
		next = w.item + 1
		if keep[k] {
			out = append(out, p.items[w.item])
			continue
		}
		p.bits |= w.bits
		out = append(out, w.alt...)
	}
	p.items = append(out, p.items[next:]...)
}

// named reports whether the context names a speaker (as a word or words
// of its own, any case).
func (p *parser) named(name string) bool {
	if p.hint == "" || len(name) < 2 {
		return false
	}
	h := p.hint
	if !isASCII(name) {
		return strings.Contains(h, name)
	}
	lh, ln := strings.ToLower(h), strings.ToLower(name)
	for from := 0; ; {
		i := strings.Index(lh[from:], ln)
		if i < 0 {
			return false
		}
		i += from
		e := i + len(ln)
		if (i == 0 || !lex.IsASCIIWord(lh[i-1])) && (e == len(lh) || !lex.IsASCIIWord(lh[e])) {
			return true
		}
		from = i + 1
	}
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
