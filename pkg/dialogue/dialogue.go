// Package dialogue parses and renders dialogue text: one "Name: (action)
// text" turn per line, the form LLM replies and foreign datasets (the
// NormGenesis release) hold dialogues in (DEVELOPING.md, "Dialogue
// text").
//
// Parse is tolerant. It accepts:
//
//   - ASCII and full-width colons ("Mike: hi", "小王：你好");
//   - stage directions in (...) and （...）, before or after the colon
//     ("Mike: (smiling) Hi", "Mike (smiling): Hi"), anywhere in the text,
//     and a leading markdown one ("Mike: *smiles* Hi");
//   - speaker names with spaces, dots, commas, '#' and roles
//     ("Mrs. Thompson", "Customer #2", "Ben’s Sister, Rachel",
//     "Sarah (VP of Operations)"), decorated or not ("**Mike:**",
//     "\"Ms. Chen:\"", "- Mike:", "😀 Mike:"), bracketed ("[Sarah]: hi",
//     "【小美】：你好", "[Sarah] hi"), numbered ("1. Sarah:", "2) Tom:", the
//     number removed), or with a dash ("Sarah — hi");
//   - names in any case and with numbers ("Family member", "Team member
//     2", "C senior", "高管1"); where such a line could be prose ("The
//     thing is: ..."), the dialogue as a whole decides (see resolveWeak):
//     a name that recurs, stands next to another speaker's turn, or is
//     named by the context (ParseContext: the situation) is a speaker;
//   - zero-width spaces, BOMs at line starts, HTML entities (&amp;, &#39;,
//     &nbsp;) and a whole line in quotes ("\"Sarah: Hi.\"");
//   - prose labels in English, Chinese and Korean ("Note: ...", "规范：...",
//     "상황: ...", NarrationLabels), read as narration;
//   - narrative lines in (...), （...）, [...], 【...】, *...* or between
//     dashes ("——第二天早上——") that belong to no speaker, also over
//     several lines or without the closing bracket; "Scene:" lines;
//   - a speaker alone on a line with the text on the next lines, and lines
//     that continue the previous turn (letters, paragraphs);
//   - end markers ([END], 【END】, (END), [끝], [结束], ...), separators (---,
//     ——, ***), headers ("Dialogue:", "Dialogue 2:", "Dialogues:", "A
//     Dialogue:", "对话：", "대화:"; HeaderWords, HeaderLeads);
//   - literal backslash-n instead of newlines and the other JSON-string
//     escapes, the quotes of a JSON string around the whole text, a stray
//     quote or brace after the end marker, a JSON object {"dialogue": ...}
//     (also {"dialogues": [...]}, also in a ```json fence);
//   - whole dialogues on one line ("A: hi B: hello");
//   - quotes around a turn's text (“...”, "...", ‘...’, 「...」);
//   - several dialogues in one text, empty text, placeholder text ("..."),
//     and model reasoning leaked before the answer
//     ("analysis...assistantfinal{...}", "<think>...</think>").
//
// Nothing is dropped in silence: a line the parser cannot place is returned
// verbatim in Result.Unplaced, and every quirk found is named in
// Result.Defects (record.Defect* names, plus DefectPlaceholder,
// DefectJSONResidue and DefectMergedTurns defined here). What is removed on
// purpose is markup only: end markers, separators, headers, markdown,
// escapes, brackets and quotes, and leaked reasoning.
//
// Choices a caller should know:
//
//   - Several stage directions in one turn ("(a) text (b) more") are joined
//     with "; " into Turn.Action in order of appearance ("a; b"), so that
//     Turn.Text is speech only; where in the text a direction stood is lost.
//     A direction written before the colon comes first. A bracket glued to
//     a Latin word ("f(x)") or standing right before a colon is no
//     direction and stays in the text.
//   - "Name (x):" keeps x in the speaker name, as a role, when a line of
//     that name and x also has a direction after the colon
//     ("Sarah (VP): (quietly) ..."), or when x is the same on all of at
//     least two lines of that name; otherwise x is a stage direction.
//   - A line that follows a turn with no blank line between (or follows a
//     speaker alone on a line, or starts with a direction) continues the
//     turn; its text is joined with "\n". A plain line after a blank line
//     or after narration is narration, and so is a line that reads as
//     narration (Korean narrative "...흐른다", "两人相视一笑…"); a line that
//     starts there with a quote, or a direction and text, is speech of no
//     known speaker: unplaced.
//   - Narration keeps its position: Dialogue.NarrationAt[i] is the number of
//     turns before Narration[i]; Render puts it back there.
//   - A text holds several dialogues when a header names a new one
//     ("Dialogue 2:") or where the turns can be cut into runs that share no
//     speaker, each of at least three turns and two speakers, one of whom
//     speaks twice, with a blank line, narration or a marker between them
//     (four turns each when nothing stands between). A scene whose speakers
//     rotate, each speaking once or so, stays one dialogue.
//   - Every letter of every line ends in a turn, narration, Unplaced, or a
//     piece removed on purpose (a marker, header, separator, list number,
//     prose label, reasoning); the tests check it on the release, on
//     generated dialogues and under fuzzing. Text must be UTF-8: importers
//     refuse other text before it gets here.
//   - On a line that holds several turns, a turn starts at a speaker name
//     known from the line starts when it follows a sentence end (". ", "。",
//     "? ", two spaces) and precedes a colon. When the whole dialogue is on
//     one line, names are also found from the text: a capitalised name (or
//     a short non-Latin one) before a colon after a sentence end; there a
//     bracket that closes a turn after its text is narration.
//   - Parse(Render(d)) == d for every dialogue d that Parse returns: where
//     cleaning a turn leaves a colon that would read as a new speaker on a
//     line of its own, Parse returns what it reads from Render's output.
//
// The code is in two layers. The scanners of one line (speaker labels in
// all their forms, names, headers, prose labels, end markers, separators,
// brackets, quotes, emphasis, entities) are internal/lex's: they keep no
// state and report what they find. This package holds what works on the
// whole text: unwrapping it (reasoning, JSON envelopes, escapes:
// prepare.go), filing each line as a turn, narration or marker (parse.go),
// deciding the weak speaker forms (weak.go), splitting turns that share a
// line (merged.go), assembling turns with their directions and roles
// (assemble.go, directions.go, roles.go), cutting several dialogues apart
// (split.go) and making Render's output read back (stabilize.go); and the
// vocabulary the audits share (vocab.go), Render, Clean and Transcript.
package dialogue

import (
	"strings"

	"github.com/ngkit/ngkit/pkg/dialogue/internal/lex"
	"github.com/ngkit/ngkit/pkg/record"
)

// Defect names found by Parse in addition to the record.Defect* ones.
const (
	// DefectPlaceholder: the text is a placeholder such as "..." or
	// "...full dialogue..." instead of a dialogue.
	DefectPlaceholder = "placeholder"
	// DefectJSONResidue: JSON syntax left in the text: a JSON object
	// envelope, escaped quotes (\"), a stray quote or brace at the ends.
	DefectJSONResidue = "json_residue"
	// DefectMergedTurns: several turns on one line of a multi-line text
	// (a whole dialogue on one line is record.DefectSingleLine).
	DefectMergedTurns = "merged_turns"
)

// Result of parsing one text field.
type Result struct {
	Dialogues []Dialogue // usually one; more when the text holds several dialogues
	Unplaced  []string   // lines that could not be placed, verbatim (trimmed) — never silently dropped
	Defects   []string   // defect names of the quirks found (each once, stable order)
	// Removed counts the pieces of text taken out as format markers,
	// headers, separators, list numbers or leaked reasoning (Defects name
	// the kinds): with the turns, narration and Unplaced, every line of
	// the input is accounted for.
	Removed int
	// prepared is the text the dialogues were read from, unwrapped and
	// unescaped (see prepare), when it was one text
	prepared string
	// weak: a weak speaker form made turns (see parser.weakTurns)
	weak bool
}

// Dialogue is one parsed dialogue.
type Dialogue struct {
	// Turns are numbered 0..n-1. Speaker is the name as written (a role in
	// brackets included), Action the stage direction(s) without brackets,
	// Text the speech with markers, markdown and directions removed.
	// Lang, Stage and Labels are left empty.
	Turns []record.Turn
	// Narration holds narrative lines (of no speaker), brackets removed.
	Narration []string
	// NarrationAt[i] is the number of turns before Narration[i]. It may be
	// nil or shorter than Narration: the rest then goes after the last turn.
	NarrationAt []int
}

// defect bits, in the order Defects lists them.
const (
	dEmpty uint32 = 1 << iota
	dEndMarker
	dSeparator
	dHeader
	dLiteralNewline
	dMarkdown
	dReasoning
	dJSON
	dPlaceholder
	dMulti
	dSingleLine
	dMerged
	dUnplaced
)

var defectNames = [...]string{
	record.DefectEmptyDialogue,
	record.DefectEndMarker,
	record.DefectSeparator,
	record.DefectHeader,
	record.DefectLiteralNewline,
	record.DefectMarkdown,
	record.DefectReasoning,
	DefectJSONResidue,
	DefectPlaceholder,
	record.DefectMultiDialogue,
	record.DefectSingleLine,
	DefectMergedTurns,
	record.DefectUnplaced,
}

func defectList(bits uint32) []string {
	if bits == 0 {
		return nil
	}
	var out []string
	for i, name := range defectNames {
		if bits&(1<<i) != 0 {
			out = append(out, name)
		}
	}
	return out
}

// Render writes d back as text: one "Speaker: (action) text" line per turn
// (the further lines of a multi-line text follow it) and each narration
// line as "(…)" at its position. For a dialogue that Parse returned,
// Parse(Render(d)) gives back d's turns and narration. Parse decodes HTML
// entities, so when the text holds something that reads as one ("&ac;",
// made by joining the directions "(&ac) (00"), Render encodes its '&'s.
func Render(d Dialogue) string {
	n := 0
	for _, t := range d.Turns {
		n += len(t.Speaker) + len(t.Action) + len(t.Text) + 8
	}
	for _, s := range d.Narration {
		n += len(s) + 3
	}
	var b strings.Builder
	b.Grow(n)
	ni := 0
	narr := func(upTo int) {
		for ; ni < len(d.Narration); ni++ {
			at := len(d.Turns)
			if ni < len(d.NarrationAt) {
				at = d.NarrationAt[ni]
			}
			if at > upTo {
				return
			}
			b.WriteString(narrLine(d.Narration[ni]))
			b.WriteByte('\n')
		}
	}
	for i, t := range d.Turns {
		narr(i)
		b.WriteString(t.Speaker)
		b.WriteByte(':')
		if t.Action != "" {
			b.WriteString(" (")
			b.WriteString(t.Action)
			b.WriteByte(')')
		}
		if t.Text != "" {
			if len(d.Turns) == 1 && len(d.Narration) == 0 && strings.IndexByte(t.Text, '\n') < 0 &&
				strings.ContainsAny(t.Text, ":：") && plainStable(t.Text) && !lex.NarrativeLine(t.Text) {
				// a lone turn goes on two lines, so that a colon in its
				// text is not read as a whole dialogue on one line
				b.WriteByte('\n')
			} else {
				b.WriteByte(' ')
			}
			b.WriteString(t.Text)
		}
		b.WriteByte('\n')
	}
	narr(int(^uint(0) >> 1))
	if out := b.String(); lex.HasEntity(out) {
		return strings.ReplaceAll(out, "&", "&amp;")
	}
	return b.String()
}

// Clean removes format markers from one line or turn of text: end markers
// ([END], [끝], ...), a separator or header that is the whole text, a
// leading markdown heading mark, **bold** / __bold__ / *emphasis*
// delimiters. It trims the result.
func Clean(s string) string {
	s = lex.Trim(s)
	if s == "" {
		return s
	}
	s, _ = lex.RemoveEndMarkers(s)
	if lex.IsRule(s) || lex.OnlyJunk(s) {
		return ""
	}
	s, _ = lex.StripHeading(s)
	if inner, ok := lex.WrappedBold(s); ok {
		s = inner
	}
	if _, rest, ok := lex.ParseHeader(s); ok {
		s = rest
	}
	s, _ = lex.StripEmphasis(s)
	return lex.Trim(s)
}

// narrLine brackets a narration line so that Parse reads it back: "(…)",
// or "[…]" / "【…】" when the text's own brackets would get in the way.
func narrLine(n string) string {
	forms := [...][2]string{{"(", ")"}, {"[", "]"}, {"【", "】"}}
	for _, f := range forms {
		line := f[0] + n + f[1]
		if narrReadsBack(line, n) {
			return line
		}
	}
	return "(" + n + ")"
}

func narrReadsBack(line, n string) bool {
	if !strings.Contains(n, "(") && !strings.Contains(n, ")") && !strings.Contains(n, "（") &&
		!strings.Contains(n, "）") && !strings.Contains(n, "\n") && lex.Trim(n) == n {
		return true // the common case: nothing to get in the way
	}
	var q parser
	q.ends = lex.EndKinds(line)
	q.run0(line)
	return len(q.items) == 1 && q.items[0].k == kNarr && q.items[0].text == n
}
