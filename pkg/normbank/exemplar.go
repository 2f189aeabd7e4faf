package normbank

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/ngkit/ngkit/pkg/recio"
	"github.com/ngkit/ngkit/pkg/record"
)

// Exemplar is a scenario/situation pair (with the dialogue written from
// it, when known) that refinement rewrites seeds toward.
type Exemplar struct {
	// ID is stable. A built-in exemplar has the id ngcat --from normgenesis
	// gives its release record; a loaded one has its record's id, or a
	// hash of its content when the record has none.
	ID           string
	Culture      string
	Lang         string // dialogue language
	Category     string
	DialogueType string // adherence, violation, v2r; "" when unknown
	NormID       string
	Norm         string
	Scenario     string
	Situation    string
	Turns        []record.Turn // the dialogue; may be empty
	// Narration holds the dialogue's narrative lines (of no speaker).
	Narration []string
	// Source is where it came from: "korean_adherence.json#123" (release
	// file and 0-based index) for built-in exemplars, "file:line" for
	// loaded ones without source_file/source_index fields.
	Source string
}

// Text is what exemplars are compared on: scenario and situation.
func (e *Exemplar) Text() string { return SeedText(e.Scenario, e.Situation) }

// SeedText joins a scenario and a situation into the text Nearest
// compares, for a seed as for an exemplar.
func SeedText(scenario, situation string) string { return scenario + "\n" + situation }

// exemplarsZst is data/exemplars.jsonl, zstd-compressed (see unzstd).
//
//go:embed data/exemplars.jsonl.zst
var exemplarsZst []byte

var builtinExemplars = sync.OnceValue(func() []Exemplar {
	es, err := readExemplars(recio.NewJSONLReader("builtin:exemplars.jsonl", bytes.NewReader(unzstd("exemplars.jsonl", exemplarsZst))))
	if err != nil {
		panic("normbank: embedded exemplars: " + err.Error()) // a test keeps the data valid
	}
	return es
})

// BuiltinExemplars returns every built-in exemplar (see the package doc
// for how they were chosen), ordered by culture, category, dialogue type
// and rank. The slice is the caller's; the turns are shared, read-only.
func BuiltinExemplars() []Exemplar {
	return slices.Clone(builtinExemplars())
}

// Exemplars returns the built-in exemplars of a culture, category and
// dialogue type; see FilterExemplars.
func Exemplars(culture, category, dialogueType string) []Exemplar {
	return FilterExemplars(builtinExemplars(), culture, category, dialogueType)
}

// FilterExemplars keeps the exemplars of a culture and category (matched
// case-insensitively) and, when dialogueType is not "", of that dialogue
// type. When the pool has exemplars of the culture and category but none
// of that type (the release has no Korean V2R dialogues), those of every
// type are returned: refinement is better served by the culture's own
// exemplars of another type than by none.
func FilterExemplars(pool []Exemplar, culture, category, dialogueType string) []Exemplar {
	culture, category, dialogueType = key(culture), key(category), key(dialogueType)
	var all, typed []Exemplar
	for _, e := range pool {
		if e.Culture != culture || e.Category != category {
			continue
		}
		all = append(all, e)
		if e.DialogueType == dialogueType {
			typed = append(typed, e)
		}
	}
	if dialogueType == "" || len(typed) == 0 {
		return all
	}
	return typed
}

// LoadExemplars reads exemplars for ngrefine --exemplars: records in
// JSONL, Parquet or Arrow IPC ("-" is stdin) with culture, category,
// scenario and situation (and optionally id, lang, dialogue_type, norm_id,
// norm and turns). Any ngkit record file will do, for example records
// picked from ngcat --from normgenesis output. Ids must be unique. Errors
// name the file and line (or row).
func LoadExemplars(file string) ([]Exemplar, error) {
	r, err := recio.Open(file, recio.OpenOptions{})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return readExemplars(r)
}

func readExemplars(r recio.Reader) ([]Exemplar, error) {
	var out []Exemplar
	at := map[string]string{}
	err := eachRecord(r, func(rec *record.Record, where string) error {
		e, err := ExemplarFromRecord(rec)
		if err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		if w, dup := at[e.ID]; dup {
			return fmt.Errorf("%s: id %s is already used at %s; exemplar ids must be unique", where, e.ID, w)
		}
		at[e.ID] = where
		if e.Source == "" {
			e.Source = where
		}
		out = append(out, e)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, errors.New(r.Where() + ": no exemplars")
	}
	return out, nil
}

// ExemplarFromRecord makes an exemplar of a record with culture, category,
// scenario and situation. Culture, category and dialogue type are
// lower-cased; a record without id gets record.ContentID.
func ExemplarFromRecord(rec *record.Record) (Exemplar, error) {
	e := Exemplar{
		ID:           strings.TrimSpace(rec.ID),
		Culture:      key(rec.Culture),
		Lang:         rec.Lang,
		Category:     key(rec.Category),
		DialogueType: key(rec.DialogueType),
		NormID:       rec.NormID,
		Norm:         rec.Norm,
		Scenario:     strings.TrimSpace(rec.Scenario),
		Situation:    strings.TrimSpace(rec.Situation),
		Turns:        rec.Turns,
		Narration:    rec.Narration,
		Source:       sourceOf(rec),
	}
	var missing []string
	for _, f := range []struct{ name, v string }{{"culture", e.Culture}, {"category", e.Category},
		{"scenario", e.Scenario}, {"situation", e.Situation}} {
		if f.v == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return Exemplar{}, fmt.Errorf("%s missing or empty (an exemplar needs culture, category, scenario and situation)", strings.Join(missing, ", "))
	}
	if e.DialogueType != "" && !slices.Contains(record.DialogueTypes, e.DialogueType) {
		return Exemplar{}, fmt.Errorf("dialogue_type %q is not one of %s", e.DialogueType, strings.Join(record.DialogueTypes, ", "))
	}
	if e.ID == "" {
		e.ID = record.ContentID(rec)
	}
	if e.NormID == "" && e.Norm != "" {
		e.NormID = record.NormID(e.Culture, e.Category, e.Norm)
	}
	return e, nil
}

// Record turns an exemplar back into a record (the form of the data file).
func (e *Exemplar) Record() *record.Record {
	return &record.Record{
		ID: e.ID, Culture: e.Culture, Lang: e.Lang, Category: e.Category,
		NormID: e.NormID, Norm: e.Norm, DialogueType: e.DialogueType,
		Scenario: e.Scenario, Situation: e.Situation, Turns: e.Turns, Narration: e.Narration,
	}
}
