package dialogue

import (
	"strings"

	"github.com/ngkit/ngkit/pkg/dialogue/internal/lex"
	"github.com/ngkit/ngkit/pkg/record"
)

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
			a.curBare = it.sp.Rest == ""
			a.curMult = it.multi
			a.pieces = append(a.pieces[:0], it.sp.Rest)
		case kPlain:
			dots := lex.IsDots(it.text)
			if a.cur >= 0 && (!it.blank || a.curBare || leadsWithDir(it.text)) && (a.curBare || !lex.NarrativeLine(it.text)) {
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
			case lex.IsQuoteStart(it.text) || leadsWithDir(it.text):
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
		for n := len(a.texts); n > 1 && (!plainStable(a.texts[n-1]) || lex.NarrativeLine(a.texts[n-1])); n = len(a.texts) {
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
	a.turns = append(a.turns, record.Turn{Index: idx, Speaker: it.sp.Name, Action: act, Text: text})
	a.turnIt = append(a.turnIt, curItem)
	a.tparen = append(a.tparen, parenInfo{has: it.sp.HasParen, paren: it.sp.Paren, full: it.sp.Full})
	for k := trailStart; k < len(a.narr); k++ {
		a.narr[k].at = idx + 1
	}
	a.cur = -1
}

func (p *parser) addTrailNarr(a *assembler, s string) {
	a.addNarr(s, len(a.turns)+1, a.cur)
}

// addNarr adds a narration line; an end-marker word ("~~END") is dropped as
// an end marker.
func (a *assembler) addNarr(s string, at, item int) {
	s = noEscapes(s)
	if lex.EndWord(s) {
		a.p.bits |= dEndMarker
		a.p.removed(s)
		return
	}
	a.narr = append(a.narr, narr{text: s, at: at, item: item})
}
