package imports

import (
	"context"
	"fmt"
	"strconv"

	json "github.com/goccy/go-json"

	"github.com/ngkit/ngkit/pkg/dialogue"
	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/record"
)

// Fields are set on every record of an import (ngcat's --culture, --type,
// --lang, --category, --norm), so that a foreign corpus carries what ngstats
// checks it by. An empty field sets nothing; Lang defaults to the
// culture's language (normbank.CultureLang) when the culture is known.
type Fields struct {
	Culture, Type, Lang, Category, Norm string
}

// Check refuses a dialogue type ngkit does not know.
func (f Fields) Check() error {
	if f.Type != "" && !validType(f.Type) {
		return fmt.Errorf("--type %q: want adherence, violation or v2r", f.Type)
	}
	return nil
}

// apply sets the fields on rec (over what the input said).
func (f Fields) apply(rec *record.Record) {
	if f.Culture != "" {
		rec.Culture = f.Culture
	}
	if f.Type != "" {
		rec.DialogueType = f.Type
	}
	if f.Category != "" {
		rec.Category = f.Category
	}
	if f.Norm != "" {
		rec.Norm = f.Norm
	}
	switch {
	case f.Lang != "":
		rec.Lang = f.Lang
	case rec.Lang == "" && rec.Culture != "":
		rec.Lang = normbank.CultureLang(rec.Culture)
	}
	if rec.Norm != "" && (f.Norm != "" || f.Culture != "" || f.Category != "") {
		rec.NormID = record.NormID(rec.Culture, rec.Category, rec.Norm)
	}
}

// setDialogue parses dialogue text into rec's turns and narration (the
// situation, when rec has one, names speakers for the parser) and notes
// what the parser found in rec.Checks: its defects, several dialogues in
// one text (all their turns are kept, in order, with multiple_dialogues;
// SplitDialogues makes one record of each), no turns at all, lines it
// could not place (kept verbatim, with unplaced_lines). Every importer of
// dialogue text goes through here, so that they report alike.
func setDialogue(rec *record.Record, text string) {
	res := dialogue.ParseContext(text, rec.Situation)
	for _, d := range res.Defects {
		rec.AddDefect(d)
	}
	if len(res.Dialogues) > 0 {
		rec.Narration, rec.NarrationAt = nil, nil
	}
	switch len(res.Dialogues) {
	case 0:
	case 1:
		rec.Turns = res.Dialogues[0].Turns
		addNarration(rec, res.Dialogues[0], 0)
	default:
		for _, d := range res.Dialogues {
			// each dialogue's narration keeps its place after the
			// turns of the dialogues before it
			addNarration(rec, d, len(rec.Turns))
			for _, t := range d.Turns {
				t.Index = len(rec.Turns)
				rec.Turns = append(rec.Turns, t)
			}
		}
		rec.AddDefect(record.DefectMultiDialogue)
	}
	if len(rec.Turns) == 0 {
		rec.AddDefect(record.DefectEmptyDialogue)
	}
	if len(res.Unplaced) > 0 {
		if rec.Checks == nil {
			rec.Checks = &record.Checks{}
		}
		rec.Checks.Unplaced = res.Unplaced
		rec.AddDefect(record.DefectUnplaced)
	}
	if res.Removed > 0 {
		if rec.Checks == nil {
			rec.Checks = &record.Checks{}
		}
		rec.Checks.Removed = res.Removed
	}
}

// addNarration appends d's narration to rec's, each line with its place:
// the number of d's turns before it, plus offset (the turns rec already
// holds from the dialogues before d).
func addNarration(rec *record.Record, d dialogue.Dialogue, offset int) {
	for i, l := range d.Narration {
		at := len(d.Turns)
		if i < len(d.NarrationAt) {
			at = d.NarrationAt[i]
		}
		rec.Narration = append(rec.Narration, l)
		rec.NarrationAt = append(rec.NarrationAt, offset+at)
	}
}

// SplitDialogues is the stage of --split-dialogues: a record whose text
// holds several dialogues (multiple_dialogues) becomes one record per
// dialogue, in order, each with its own turns and narration, the id
// derived from the record's id and the block's index (extra
// "source_block"). The lines no dialogue could place stay with the first.
// Other records pass unchanged.
var SplitDialogues pipeline.Stage = pipeline.StageFunc{StageName: "split-dialogues",
	Fn: func(_ context.Context, rec *record.Record) ([]*record.Record, error) {
		return splitDialogues(rec), nil
	}}

func splitDialogues(rec *record.Record) []*record.Record {
	if !hasDefect(rec, record.DefectMultiDialogue) {
		return []*record.Record{rec}
	}
	var text string
	if raw, ok := rec.Extra["dialogue"]; !ok || json.Unmarshal(raw, &text) != nil {
		return []*record.Record{rec}
	}
	res := dialogue.ParseContext(text, rec.Situation)
	if len(res.Dialogues) < 2 {
		return []*record.Record{rec}
	}
	out := make([]*record.Record, len(res.Dialogues))
	for k, d := range res.Dialogues {
		r := *rec
		r.ID = record.NewID(rec.ID, "block", strconv.Itoa(k))
		r.Turns, r.Narration, r.NarrationAt = d.Turns, nil, nil
		addNarration(&r, d, 0)
		r.Extra = make(map[string]json.RawMessage, len(rec.Extra)+1)
		for key, v := range rec.Extra {
			r.Extra[key] = v
		}
		r.SetExtra("source_block", k)
		r.Checks = nil
		if rec.Checks != nil {
			c := *rec.Checks
			c.Defects = nil
			for _, x := range rec.Checks.Defects {
				if x != record.DefectMultiDialogue && x != record.DefectEmptyDialogue && (x != record.DefectUnplaced || k == 0) {
					c.Defects = append(c.Defects, x)
				}
			}
			if k > 0 { // what no block owns stays with the first
				c.Unplaced, c.Removed = nil, 0
			}
			r.Checks = &c
		}
		if len(r.Turns) == 0 {
			r.AddDefect(record.DefectEmptyDialogue)
		}
		out[k] = &r
	}
	return out
}

func hasDefect(rec *record.Record, d string) bool {
	if rec.Checks == nil {
		return false
	}
	for _, x := range rec.Checks.Defects {
		if x == d {
			return true
		}
	}
	return false
}
