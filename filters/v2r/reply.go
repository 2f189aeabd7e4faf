package v2r

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/ngkit/ngkit/pkg/dialogue"
	"github.com/ngkit/ngkit/pkg/record"
)

// jsonReply is the reply of schemas/llm/v2r_dialogue_<type>.
type jsonReply struct {
	Turns []struct {
		Speaker string `json:"speaker"`
		Action  string `json:"action"`
		Text    string `json:"text"`
		Stage   string `json:"stage"`
	} `json:"turns"`
	Narration []string `json:"narration"`
}

// ParseJSON reads a JSON reply (already valid against the type's schema)
// into a dialogue of type typ: fields trimmed, empty narration lines
// dropped, stages kept only where the type has them ("none" is no stage).
func ParseJSON(b []byte, typ string) (*Dialogue, error) {
	var r jsonReply
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("reply: %v", err)
	}
	d := &Dialogue{Turns: make([]record.Turn, 0, len(r.Turns))}
	for _, t := range r.Turns {
		d.Turns = append(d.Turns, record.Turn{
			Speaker: strings.TrimSpace(t.Speaker),
			Action:  strings.TrimSpace(t.Action),
			Text:    strings.TrimSpace(t.Text),
			Stage:   stageFor(typ, strings.ToLower(strings.TrimSpace(t.Stage))),
		})
	}
	for _, l := range r.Narration {
		if l = strings.TrimSpace(l); l != "" {
			d.Narration = append(d.Narration, l)
		}
	}
	return d, nil
}

// stageFor keeps the stages a dialogue type has: all five for V2R,
// violation for a violation dialogue, none for adherence.
func stageFor(typ, stage string) string {
	switch typ {
	case record.TypeV2R:
		return stage
	case record.TypeViolation:
		if stage == "violation" {
			return stage
		}
	}
	return ""
}

// A text-mode stage tag at the start of a line, after optional markdown:
// "[violation] Minsu: ...", "**[repair]** 민수: ...", "【context】小王：...".
var lineTag = regexp.MustCompile(`^([\s>#-]*)(\*\*|__)?[\[【]\s*([A-Za-z]+)\s*[\]】](\*\*|__)?\s*`)

// The same tag right after the speaker's colon: "Minsu: [violation] ...".
var colonTag = regexp.MustCompile(`^([^:：\n]{1,60}[:：][\s*_]*)[\[【]\s*([A-Za-z]+)\s*[\]】]\s*`)

// mark is the token a stage tag becomes in the text handed to the parser:
// nothing pkg/dialogue gives a meaning to, so it stays at the start of the
// turn's text, where it is read back.
func mark(stage string) string { return "⟦" + stage + "⟧ " }

// markRE finds the tokens mark writes.
var markRE = regexp.MustCompile(`⟦([a-z]+)⟧ ?`)

// ParseText reads a text-mode reply: one "Name: (action) text" turn per
// line (pkg/dialogue.Parse, with all its tolerance: full-width colons,
// directions before or after the colon, narration lines in brackets,
// continuation lines), each turn's line starting with its stage tag in
// square brackets, "[violation] Minsu: ...". A tag may also stand right
// after the colon ("Minsu: [violation] ..."), in 【】, in any letter
// case, and after markdown; a tag on a narration line is ignored. Which
// tags a type needs is Rules.Check's business: here a tag is kept when
// the type has that stage (see ParseJSON).
//
// Markers the parser removes ([END], separators, headers, markdown) are
// forgiven; a reply that holds several dialogues, lines that are neither
// a turn nor narration, a placeholder or reasoning is an error.
func ParseText(text, typ string) (*Dialogue, error) {
	plain, tagged, err := splitTags(text)
	if err != nil {
		return nil, err
	}
	res := dialogue.Parse(plain)
	var probs problems
	for _, def := range res.Defects {
		switch def {
		case record.DefectMultiDialogue:
			probs.add("the reply holds %d dialogues: write one", len(res.Dialogues))
		case dialogue.DefectPlaceholder:
			probs.add("the reply is a placeholder, not a dialogue")
		case record.DefectReasoning:
			probs.add("the reply has reasoning around the dialogue: write the dialogue only")
		}
	}
	if len(res.Unplaced) > 0 {
		probs.add("lines that are neither a turn (\"Name: text\") nor narration in brackets: %s", quoteLines(res.Unplaced))
	}
	if len(res.Dialogues) == 0 || len(res.Dialogues[0].Turns) == 0 {
		probs.add(`no "Name: text" turns found`)
	}
	if err := probs.err(); err != nil {
		return nil, err
	}
	d := res.Dialogues[0]
	// The tagged text parses into the same turns, with the stage token at
	// the start of each tagged turn's text.
	res2 := dialogue.Parse(tagged)
	if len(res2.Dialogues) != 1 || len(res2.Dialogues[0].Turns) != len(d.Turns) {
		return nil, errors.New("the stage tags could not be matched to the turns: start each turn's line with its tag, as in \"[violation] Name: text\"")
	}
	out := &Dialogue{Turns: d.Turns, Narration: d.Narration, NarrationAt: d.NarrationAt}
	for i, t := range res2.Dialogues[0].Turns {
		if t.Speaker != d.Turns[i].Speaker {
			return nil, errors.New("the stage tags could not be matched to the turns: start each turn's line with its tag, as in \"[violation] Name: text\"")
		}
		locs := markRE.FindAllStringSubmatchIndex(t.Text, -1)
		if len(locs) > 1 || len(locs) == 1 && locs[0][0] != 0 {
			return nil, fmt.Errorf("%s: a stage tag stands inside the turn: put one tag at the start of each turn's line", turnName(i, t.Speaker))
		}
		if len(locs) == 1 {
			out.Turns[i].Stage = stageFor(typ, t.Text[locs[0][2]:locs[0][3]])
		}
	}
	return out, nil
}

// splitTags turns a text-mode reply into two texts for the parser: plain,
// with the stage tags removed, and tagged, with each tag moved after the
// speaker's colon as a mark(stage) token. A bracketed word that is not a
// stage ("[END]", "[Silence]") is no tag: the parser reads it as it is.
func splitTags(text string) (plain, tagged string, err error) {
	var pb, tb strings.Builder
	for line := range strings.SplitSeq(text, "\n") {
		rest, stage := line, ""
		if m := lineTag.FindStringSubmatchIndex(line); m != nil {
			if tag, ok := readStageTag(line[m[6]:m[7]]); ok {
				prefix := line[m[2]:m[3]]
				if m[4] >= 0 && m[8] < 0 {
					prefix += line[m[4]:m[5]] // "**[repair] Name:** ...": the bold is the name's
				}
				rest, stage = prefix+line[m[1]:], tag
			}
		} else if m := colonTag.FindStringSubmatchIndex(line); m != nil {
			if tag, ok := readStageTag(line[m[4]:m[5]]); ok {
				rest, stage = line[m[2]:m[3]]+line[m[1]:], tag
			}
		}
		t, err := withMark(rest, stage)
		if err != nil {
			return "", "", err
		}
		pb.WriteString(rest)
		pb.WriteByte('\n')
		tb.WriteString(t)
		tb.WriteByte('\n')
	}
	return pb.String(), tb.String(), nil
}

// readStageTag reads a tag: a stage, or "none" (a turn without one).
func readStageTag(tag string) (stage string, ok bool) {
	tag = strings.ToLower(tag)
	if record.StageIndex(tag) >= 0 {
		return tag, true
	}
	return "", tag == "none"
}

// withMark puts the stage token after the speaker's colon (and after the
// markdown closing a bold name). A narration line in brackets keeps no
// token: a tag there belongs to no turn. A tagged line with no colon is
// an error: a turn without its speaker's name.
func withMark(line, stage string) (string, error) {
	if stage == "" {
		return line, nil
	}
	body := strings.TrimLeft(line, " \t*_>#-")
	if body == "" || strings.ContainsRune("(（[【", []rune(body)[0]) {
		return line, nil
	}
	i := strings.IndexAny(line, ":：")
	if i < 0 {
		return "", fmt.Errorf("the line %q has a stage tag but no speaker: write \"[%s] Name: text\"", short(strings.TrimSpace(line)), stage)
	}
	_, size := utf8.DecodeRuneInString(line[i:])
	j := i + size
	for j < len(line) && (line[j] == '*' || line[j] == '_') {
		j++
	}
	return line[:j] + " " + mark(stage) + strings.TrimLeft(line[j:], " \t"), nil
}

func quoteLines(lines []string) string {
	var q []string
	for i, l := range lines {
		if i == 3 {
			q = append(q, fmt.Sprintf("and %d more", len(lines)-3))
			break
		}
		q = append(q, fmt.Sprintf("%q", short(l)))
	}
	return strings.Join(q, ", ")
}
