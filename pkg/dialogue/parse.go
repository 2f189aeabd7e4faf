package dialogue

import (
	"strings"
	"sync"

	"github.com/ngkit/ngkit/pkg/dialogue/internal/lex"
)

// trace collects, for tests, the pieces of text Parse removes on purpose
// (markers, headers, reasoning), so that a test can check that nothing else
// is lost.
type trace struct {
	removed []string
	// decoded pairs each dialogue string of a JSON envelope as written
	// (escaped, without its quotes) with what it decodes to.
	decoded [][2]string
}

type kind uint8

const (
	kTurn     kind = iota // a speaker turn
	kPlain                // a line of no speaker: continuation, narration or unplaced
	kNarr                 // narration
	kMark                 // a removed marker line (separator, end marker, header)
	kBoundary             // a header that starts a new dialogue
)

type item struct {
	k     kind
	blank bool        // a blank line came before it
	multi bool        // a turn on a line of several turns: its closing brackets are narration
	sp    lex.Speaker // kTurn
	text  string
	raw   string // the line as written (trimmed), for Unplaced
}

type parser struct {
	bits uint32
	// removed counts the pieces of text taken out as markers, headers,
	// separators, list numbers or leaked reasoning (Result.Removed).
	nRemoved int
	items    []item
	tr       *trace

	// a narration opened by '(' and not yet closed on its line
	open      []string
	openRaw   []string
	openDepth int
	openBlank bool

	hadTurnLine bool
	// weakTurns: a weak speaker form ("[Sarah] hi", "Sarah — hi") made a
	// turn, which Render writes in the colon form
	weakTurns bool
	// weak speaker lines (see resolveWeak) and what each line is if not a turn
	weak   []weakLine
	noWeak bool
	hint   string   // text that names the speakers (the situation), or ""
	names  []string // scratch: speaker names
	// ends: the kinds of end marker the text holds; lines are checked
	// for those only
	ends uint8

	asm assembler
}

// parsers are pooled: Parse runs once per record of an import, and the
// buffers it needs would otherwise be allocated anew each time.
var parsers = sync.Pool{New: func() any { return new(parser) }}

func getParser(tr *trace) *parser {
	p := parsers.Get().(*parser)
	items, names, weak := p.items[:0], p.names[:0], p.weak[:0]
	asm := p.asm
	*p = parser{tr: tr, items: items, names: names, asm: asm, weak: weak}
	return p
}

func putParser(p *parser) {
	if cap(p.items) > 4096 {
		return // do not keep what a huge text grew
	}
	for i := range p.items {
		p.items[i] = item{}
	}
	clear(p.asm.pieces[:cap(p.asm.pieces)])
	clear(p.asm.frags[:cap(p.asm.frags)])
	clear(p.asm.narr[:cap(p.asm.narr)])
	clear(p.asm.acts[:cap(p.asm.acts)])
	clear(p.asm.texts[:cap(p.asm.texts)])
	clear(p.asm.groups[:cap(p.asm.groups)])
	clear(p.asm.names[:cap(p.asm.names)])
	clear(p.asm.tparen[:cap(p.asm.tparen)])
	clear(p.names[:cap(p.names)])
	clear(p.weak[:cap(p.weak)])
	p.hint = ""
	p.asm.p = nil
	p.asm.turns = nil
	p.asm.unpl = nil
	p.tr = nil
	parsers.Put(p)
}

// Parse parses one text field into dialogues. It never fails: what it
// cannot place is in Result.Unplaced.
func Parse(text string) Result {
	return parse(text, "", nil)
}

// ParseContext is Parse with context: text about the dialogue (its
// situation or scenario) that may name its speakers. A line that could be a
// speaker's or prose ("Security guard: ...") is a turn when the context
// names that speaker.
func ParseContext(text, context string) Result {
	return parse(text, context, nil)
}

func parse(text, hint string, tr *trace) Result {
	res := parse1(text, hint, tr)
	for i := range res.Dialogues {
		res.Dialogues[i] = stabilize(res.Dialogues[i], res.prepared, res.weak)
	}
	return res
}

func parse1(text, hint string, tr *trace) Result {
	p := getParser(tr)
	p.hint = hint
	defer putParser(p)
	texts := p.prepare(text)
	if len(texts) == 1 {
		res := p.run(texts[0])
		res.Removed = p.nRemoved
		res.prepared = texts[0]
		res.weak = p.weakTurns
		return res
	}
	// a JSON envelope with several dialogues
	var res Result
	bits := p.bits
	for _, t := range texts {
		q := getParser(tr)
		q.bits = bits
		q.hint = hint
		r := q.run(t)
		res.Dialogues = append(res.Dialogues, r.Dialogues...)
		res.Unplaced = append(res.Unplaced, r.Unplaced...)
		res.Removed += q.nRemoved
		res.weak = res.weak || q.weakTurns
		bits |= q.bits
		putParser(q)
	}
	if len(res.Dialogues) > 1 {
		bits |= dMulti
	}
	if len(res.Dialogues) > 0 {
		bits &^= dEmpty
	}
	res.Defects = defectList(bits)
	res.Removed += p.nRemoved
	return res
}

func (p *parser) run(text string) Result {
	if text == "" {
		p.bits |= dEmpty
		return Result{Defects: defectList(p.bits)}
	}
	p.ends = lex.EndKinds(text)
	p.run0(text)
	return p.finish()
}

// run0 files the lines of text.
func (p *parser) run0(text string) {
	blank := false
	for len(text) > 0 {
		var line string
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			line, text = text, ""
		}
		line = lex.Trim(line)
		for strings.HasPrefix(line, lex.BOM) {
			line = lex.Trim(line[len(lex.BOM):])
		}
		if line == "" {
			blank = true
			p.closeOpen()
			continue
		}
		p.line(line, blank)
		blank = false
	}
	p.closeOpen()
}

func (p *parser) add(it item) {
	p.items = append(p.items, it)
}

func (p *parser) mark(blank bool) {
	p.add(item{k: kMark, blank: blank})
}

// closeOpen ends a narration opened by '(' on a line of its own. When a
// later line closes the bracket, the lines between are one narration; when
// none does, only the first line is narration and the others are read
// again on their own.
func (p *parser) closeOpen() {
	if p.open == nil {
		return
	}
	open, raws, blank, depth := p.open, p.openRaw, p.openBlank, p.openDepth
	p.open, p.openRaw = nil, nil
	if depth > 0 && len(open) > 1 {
		p.emitNarr(open[0], raws[0], blank, false)
		for _, l := range open[1:] {
			p.line(l, false)
		}
		p.closeOpen()
		return
	}
	text, raw := open[0], raws[0]
	if len(open) > 1 {
		text, raw = strings.Join(open, "\n"), strings.Join(raws, "\n")
	}
	p.emitNarr(text, raw, blank, depth <= 0)
}

func (p *parser) emitNarr(text, raw string, blank, closed bool) {
	if closed {
		// drop the closing bracket (and a final '.')
		text = lex.Trim(strings.TrimSuffix(strings.TrimSuffix(text, "."), "。"))
		if w := lex.CloseEndsAt(text, len(text)); w > 0 {
			text = text[:len(text)-w]
		}
	}
	text = lex.Trim(text[lex.OpenAt(text, 0):])
	if inner, ok := lex.WholeBracket(text); ok && lex.EndWord(inner) {
		text = inner // "((完)": an end marker in the unclosed bracket
	}
	if lex.EndWord(text) {
		p.bits |= dEndMarker // "(END" cut short
		p.removed(text)
		text = ""
	}
	if text == "" {
		p.add(item{k: kMark, blank: blank})
	} else {
		p.add(item{k: kNarr, blank: blank, text: text, raw: raw})
	}
}

func (p *parser) line(line string, blank bool) {
	if p.open != nil {
		if _, ok := lex.ParseSpeaker(line); ok || (p.ends != 0 && lex.HasEndKinds(line, p.ends) && lex.MarkerIn(line)) {
			p.closeOpen()
		} else {
			e := lex.ClosePos(line, p.openDepth)
			if e < 0 {
				p.open = append(p.open, line)
				p.openRaw = append(p.openRaw, line)
				p.openDepth = lex.ParenDepth(line, p.openDepth)
				return
			}
			if rest := lex.Trim(line[e:]); rest == "" || rest == "." || rest == "。" {
				p.open = append(p.open, line)
				p.openRaw = append(p.openRaw, line)
				p.openDepth = 0
				p.closeOpen()
				return
			}
			// the bracket closes inside this line: the lines before were
			// no narration of their own
			p.closeOpen()
		}
	}
	raw := line
	if p.ends != 0 {
		line = p.dropEndMarkers(line, p.ends)
	}
	if line == "" || lex.OnlyJunk(line) {
		if line != "" {
			p.bits |= dJSON
		}
		p.mark(blank)
		return
	}
	if lex.IsRule(line) {
		p.bits |= dSeparator
		p.mark(blank)
		return
	}
	if lex.IsDots(line) {
		p.add(item{k: kPlain, blank: blank, text: line, raw: raw})
		return
	}
	p.classify(line, raw, blank, false)
}

// header files a header line ("Dialogue 2:"): a new dialogue when it names
// one after the first or comes after turns.
func (p *parser) header(num int, text string, blank bool) {
	p.bits |= dHeader
	p.removed(text)
	if num > 1 || p.hadTurnLine {
		p.add(item{k: kBoundary, blank: blank})
	} else {
		p.mark(blank)
	}
}

// classify files one line (markers already removed).
func (p *parser) classify(line, raw string, blank, narr bool) {
	if line == "" {
		p.mark(blank)
		return
	}
	if line[0] == '#' {
		var h bool
		if line, h = lex.StripHeading(line); h {
			p.bits |= dMarkdown
		}
		if line == "" {
			p.mark(blank)
			return
		}
	}
	if inner, ok := lex.WrappedBold(line); ok {
		p.bits |= dMarkdown
		line = inner
	}
	if num, rest, ok := lex.ParseHeader(line); ok {
		if p.header(num, line[:len(line)-len(rest)], blank); rest == "" {
			return
		}
		line, raw = rest, rest // the header is removed (and counted) already
	}
	if inner, ok := lex.WholeBracket(line); ok {
		if lex.EndWord(inner) {
			p.bits |= dEndMarker // "( END )"
			p.removed(inner)
			inner = ""
		}
		if inner == "" {
			p.mark(blank)
			return
		}
		p.add(item{k: kNarr, blank: blank, text: inner, raw: raw})
		return
	}
	if inner, ok := lex.WrappedEm(line); ok {
		p.bits |= dMarkdown
		p.classify(inner, raw, blank, true)
		return
	}
	if lex.OpensParen(line) {
		p.open = append(p.open[:0], line)
		p.openRaw = append(p.openRaw[:0], raw)
		p.openDepth = lex.ParenDepth(line, 0)
		p.openBlank = blank
		return
	}
	if inner, ok := lex.QuotedLine(line); ok {
		// "\"Sarah: Hi.\"" — a whole line in quotes
		p.bits |= dJSON
		line = inner
	}
	if sp, ok := lex.ParseSpeaker(line); ok && (sp.Weak == 0 || !p.noWeak) {
		p.speakerLine(sp, line, raw, blank, narr)
		return
	}
	if inner, ok := lex.DashWrap(line); ok {
		p.bits |= dSeparator
		if inner == "" {
			p.mark(blank)
			return
		}
		p.classify(inner, raw, blank, true)
		return
	}
	if narr {
		p.add(item{k: kNarr, blank: blank, text: line, raw: raw})
		return
	}
	p.add(item{k: kPlain, blank: blank, text: line, raw: raw})
}

// speakerLine files a line that starts with a speaker's name (or a
// header or narration label that looks like one).
func (p *parser) speakerLine(sp lex.Speaker, line, raw string, blank, narr bool) {
	num, _, hdr := lex.ParseHeader(sp.Name)
	if !hdr && sp.Deco != 0 {
		// "*A Dialog*:" is the header "A Dialog:" once the markdown
		// is off (as Render writes it)
		num, _, hdr = lex.ParseHeader(sp.Name + ":")
	}
	if hdr {
		// "**Dialogue 2**:" — a header in markdown
		p.bits |= decoBits(sp.Deco)
		if p.header(num, sp.Full, blank); sp.Rest != "" {
			p.classify(sp.Rest, sp.Rest, false, narr) // the header is removed (and counted) already
		}
		return
	}
	if lex.IsNarrLabel(sp.Name) {
		if sp.Rest != "" {
			p.add(item{k: kNarr, blank: blank, text: sp.Rest, raw: raw})
			p.removed(sp.Full)
		} else {
			p.mark(blank)
			p.removed(sp.Full)
		}
		return
	}
	if sp.Weak != 0 {
		p.addWeak(sp, line, raw, blank, narr)
		return
	}
	p.bits |= decoBits(sp.Deco)
	if sp.Lead != "" {
		p.removed(sp.Lead)
	}
	p.hadTurnLine = true
	p.add(item{k: kTurn, blank: blank, sp: sp, raw: raw})
}

// decoBits are the defects that the decorations around a speaker name
// show: markdown, or quotes left by a JSON string.
func decoBits(deco uint32) uint32 {
	var bits uint32
	if deco&lex.DecoMarkdown != 0 {
		bits |= dMarkdown
	}
	if deco&lex.DecoQuotes != 0 {
		bits |= dJSON
	}
	return bits
}

// endMarkerTrace stands in the trace for the end markers removed from a
// line (the test takes them from the input lines itself).
const endMarkerTrace = "\x00end marker"
