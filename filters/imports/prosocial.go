package imports

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	json "github.com/goccy/go-json"

	"github.com/ngkit/ngkit/pkg/audit"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/recio"
	"github.com/ngkit/ngkit/pkg/record"
)

// Speakers of a rebuilt ProsocialDialog dialogue: the chat roles. The
// context utterances (written by GPT-3 as a person who says something
// problematic) are the user's, the prosocial responses (written by
// crowdworkers as the conversational agent) the assistant's.
const (
	ProsocialUser      = "user"
	ProsocialAssistant = "assistant"
)

// Bounds on one dialogue's rows: real dialogues have a handful. Beyond them
// the input is not grouped by dialogue_id, and reading on would only fill
// memory.
const (
	maxProsocialRows  = 10000
	maxProsocialBytes = 64 << 20
)

// ProsocialOptions tune the ProsocialDialog import.
type ProsocialOptions struct {
	Fields // set on every record (Lang stays "en" unless given)
	Stdin  io.Reader
}

// Prosocial reads ProsocialDialog rows as published on the Hugging Face Hub
// (allenai/prosocial-dialog: JSONL, Parquet or Arrow; one row per pair of
// context and response) and rebuilds each dialogue as one record.
//
// The rows of a dialogue must be contiguous (the Hub files are: they were
// flattened from the release's list of dialogues, in order); within a
// dialogue they may come in any order of response_id. A dialogue_id that
// comes back after other dialogues is an error naming both places, never a
// silently split dialogue. Only the dialogue being gathered is held, plus
// the set of dialogue ids seen so far (to catch that).
type Prosocial struct {
	names   []string
	opt     ProsocialOptions
	cur     recio.Reader
	jsonl   *recio.JSONLReader
	display string
	base    string // source_file
	split   string // from the file name; part of the id
	row     int64  // rows read from a columnar input
	group   *prosocialGroup
	seen    map[prosocialKey]rowPos // where each dialogue began
}

type prosocialKey struct {
	split string
	id    int64
}

// rowPos is where a row is: a line of JSONL, a row of Parquet or Arrow.
type rowPos struct {
	name string
	unit string // "line" or "row"
	n    int64
}

func (p rowPos) String() string { return p.name + ":" + p.unit + " " + strconv.FormatInt(p.n, 10) }

func (p rowPos) errorf(format string, a ...any) error {
	return &recio.PosError{Name: p.name, Pos: p.unit + " " + strconv.FormatInt(p.n, 10), Err: fmt.Errorf(format, a...)}
}

type prosocialGroup struct {
	key   prosocialKey
	base  string
	rows  [][]byte
	at    []rowPos
	bytes int
}

// NewProsocial imports the named files ("-" or none: stdin).
func NewProsocial(names []string, opt ProsocialOptions) (*Prosocial, error) {
	if err := opt.Fields.Check(); err != nil {
		return nil, err
	}
	if len(names) == 0 {
		names = []string{"-"}
	}
	return &Prosocial{names: names, opt: opt, seen: map[prosocialKey]rowPos{}}, nil
}

// Next implements pipeline.Source.
func (s *Prosocial) Next() (pipeline.Item, error) {
	for {
		raw, key, at, err := s.readRow()
		if errors.Is(err, io.EOF) {
			if s.group == nil {
				return pipeline.Item{}, io.EOF
			}
			return s.flush(), nil
		}
		if err != nil {
			return pipeline.Item{}, err
		}
		var it *pipeline.Item
		if s.group != nil && s.group.key != key {
			done := s.flush()
			it = &done
		}
		if s.group == nil {
			if first, ok := s.seen[key]; ok {
				return pipeline.Item{}, at.errorf("dialogue_id %d was read before, at %s, with other dialogues between: %s",
					key.id, first, prosocialOrderHint(first, at, key))
			}
			s.seen[key] = at
			s.group = &prosocialGroup{key: key, base: s.base}
		}
		g := s.group
		if len(g.rows) >= maxProsocialRows || g.bytes+len(raw) > maxProsocialBytes {
			return pipeline.Item{}, at.errorf("dialogue_id %d has more than %d rows or %d MiB: is the input grouped by dialogue_id?",
				key.id, maxProsocialRows, maxProsocialBytes>>20)
		}
		g.rows = append(g.rows, raw)
		g.at = append(g.at, at)
		g.bytes += len(raw) + 1
		if it != nil {
			return *it, nil
		}
	}
}

func prosocialOrderHint(first, at rowPos, key prosocialKey) string {
	if first.name != at.name && key.split == "" {
		return "files of different splits need the split in their names (train, validation, test) so that their dialogue ids do not collide"
	}
	return "the rows of a dialogue must be contiguous (sort the input by dialogue_id, response_id)"
}

// flush hands out the dialogue gathered so far as one item, to be decoded
// on a worker.
func (s *Prosocial) flush() pipeline.Item {
	g := s.group
	s.group = nil
	raw := bytes.Join(g.rows, []byte{'\n'})
	g.rows = nil // the item holds them now, in raw
	return pipeline.Item{
		Raw:  raw,
		Name: g.at[0].name, Line: g.at[0].n,
		Decode: func(b []byte) (*record.Record, error) {
			rec, err := decodeProsocial(bytes.Split(b, []byte{'\n'}), g.at, g.key, g.base)
			if err == nil {
				s.opt.Fields.apply(rec)
			}
			return rec, err
		},
	}
}

// readRow reads the next row of the inputs as a JSON object, with its
// dialogue key: a JSONL line as it is, a columnar row re-encoded (recio
// keeps the columns that are not record fields in Extra). A dialogue may go
// on into the next file (a split sharded into several files).
func (s *Prosocial) readRow() ([]byte, prosocialKey, rowPos, error) {
	for {
		if s.cur == nil {
			if len(s.names) == 0 {
				return nil, prosocialKey{}, rowPos{}, io.EOF
			}
			name := s.names[0]
			s.names = s.names[1:]
			r, err := recio.Open(name, recio.OpenOptions{Stdin: s.opt.Stdin})
			if err != nil {
				if strings.Contains(err.Error(), "is a JSON array") {
					// The release's direct download (a list of dialogues)
					// is not the Hub's row format.
					return nil, prosocialKey{}, rowPos{}, fmt.Errorf("%s: a JSON array; want the Hugging Face rows (allenai/prosocial-dialog) as JSONL, Parquet or Arrow", displayName(name))
				}
				return nil, prosocialKey{}, rowPos{}, err
			}
			s.cur, s.row = r, 0
			s.jsonl, _ = r.(*recio.JSONLReader)
			s.display = displayName(name)
			s.base = filepath.Base(s.display)
			s.split = splitOf(name)
		}
		var raw []byte
		var at rowPos
		if s.jsonl != nil {
			line, n, err := s.jsonl.NextRaw()
			if err == nil {
				raw = append([]byte(nil), line...)
				if n == 1 {
					raw = bytes.TrimPrefix(raw, []byte("\xef\xbb\xbf"))
				}
				at = rowPos{s.display, "line", n}
			} else if !errors.Is(err, io.EOF) {
				return nil, prosocialKey{}, rowPos{}, err
			}
		} else {
			rec, err := s.cur.Next()
			if err == nil {
				s.row++
				at = rowPos{s.display, "row", s.row}
				if len(rec.Turns) > 0 {
					return nil, prosocialKey{}, rowPos{}, at.errorf("%v", errNotRows)
				}
				if raw, err = json.Marshal(rec.Extra); err != nil {
					return nil, prosocialKey{}, rowPos{}, at.errorf("%v", err)
				}
			} else if !errors.Is(err, io.EOF) {
				return nil, prosocialKey{}, rowPos{}, err
			}
		}
		if raw != nil {
			id, err := rowDialogueID(raw)
			if err != nil {
				return nil, prosocialKey{}, rowPos{}, at.errorf("%v", err)
			}
			return raw, prosocialKey{s.split, id}, at, nil
		}
		err := s.cur.Close()
		s.cur, s.jsonl = nil, nil
		if err != nil {
			return nil, prosocialKey{}, rowPos{}, err
		}
	}
}

// Close implements pipeline.Source.
func (s *Prosocial) Close() error {
	if s.cur == nil {
		return nil
	}
	err := s.cur.Close()
	s.cur, s.jsonl = nil, nil
	return err
}

func displayName(name string) string {
	if name == "" || name == "-" {
		return "stdin"
	}
	return name
}

// splitOf names the Hub split a file holds, from its name or its folder's
// (train.json, valid.json, data/test-00000-of-00001.parquet,
// default/train/0000.parquet); "" when neither says. Dialogue ids restart
// in each split, so the split is part of a record's id.
func splitOf(name string) string {
	if name == "" || name == "-" {
		return ""
	}
	for _, part := range []string{filepath.Base(name), filepath.Base(filepath.Dir(name))} {
		words := strings.FieldsFunc(strings.ToLower(part), func(r rune) bool { return r < 'a' || r > 'z' })
		for _, w := range words {
			switch w {
			case "train":
				return "train"
			case "validation", "valid", "val", "dev":
				return "validation"
			case "test":
				return "test"
			}
		}
	}
	return ""
}

// rowDialogueID reads only the dialogue_id of a row: grouping runs on one
// goroutine, the rest of the decoding on the workers.
func rowDialogueID(raw []byte) (int64, error) {
	var k struct {
		ID    json.RawMessage `json:"dialogue_id"`
		Turns json.RawMessage `json:"turns"`
	}
	if err := json.Unmarshal(raw, &k); err != nil {
		return 0, describeRow(err)
	}
	if k.Turns != nil {
		return 0, errNotRows
	}
	id, ok, err := intField("dialogue_id", k.ID)
	if err == nil && !ok {
		err = errors.New("dialogue_id is missing")
	}
	return id, err
}

var errNotRows = errors.New("this is an ngkit record (it has turns), not a ProsocialDialog row: read it without --from")

// prosocialRow is one Hub row, decoded.
type prosocialRow struct {
	Context, Response string
	Rots              []string
	SafetyLabel       string
	Annotations       []string
	Reasons           []string
	DialogueID        int64
	ResponseID        int64
	EpisodeDone       *bool
	Other             map[string]json.RawMessage // source, etc and any column not above
}

// prosocialOwn are the columns the record takes apart; the others (source,
// etc, and anything unknown) are passed through in extra.
var prosocialOwn = map[string]bool{"context": true, "response": true, "rots": true, "safety_label": true,
	"safety_annotations": true, "safety_annotation_reasons": true, "dialogue_id": true, "response_id": true, "episode_done": true}

// decodeProsocialRow decodes and checks one row. A null or missing field
// is empty, except dialogue_id and response_id, which order the turns.
func decodeProsocialRow(raw []byte) (*prosocialRow, error) {
	if !utf8.Valid(raw) {
		return nil, fmt.Errorf("invalid UTF-8 at byte %d of the row", invalidAt(raw))
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, describeRow(err)
	}
	if m == nil {
		return nil, errors.New("want a JSON object, got null")
	}
	r := &prosocialRow{}
	var err error
	var ok bool
	if r.DialogueID, ok, err = intField("dialogue_id", m["dialogue_id"]); err != nil || !ok {
		return nil, cmpErr(err, "dialogue_id is missing")
	}
	if r.ResponseID, ok, err = intField("response_id", m["response_id"]); err != nil || !ok {
		return nil, cmpErr(err, "response_id is missing")
	}
	for _, f := range []struct {
		k string
		p *string
	}{{"context", &r.Context}, {"response", &r.Response}, {"safety_label", &r.SafetyLabel}} {
		if *f.p, err = stringField(f.k, m[f.k]); err != nil {
			return nil, err
		}
	}
	for _, f := range []struct {
		k string
		p *[]string
	}{{"rots", &r.Rots}, {"safety_annotations", &r.Annotations}, {"safety_annotation_reasons", &r.Reasons}} {
		if *f.p, err = stringsField(f.k, m[f.k]); err != nil {
			return nil, err
		}
	}
	if v := m["episode_done"]; !isNull(v) {
		var b bool
		if json.Unmarshal(v, &b) != nil {
			return nil, fmt.Errorf("field episode_done: want a boolean, got %s", kind(v))
		}
		r.EpisodeDone = &b
	}
	for k, v := range m {
		if !prosocialOwn[k] {
			if r.Other == nil {
				r.Other = map[string]json.RawMessage{}
			}
			r.Other[k] = v
		}
	}
	return r, nil
}

func cmpErr(err error, missing string) error {
	if err != nil {
		return err
	}
	return errors.New(missing)
}

func isNull(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	return len(v) == 0 || bytes.Equal(v, []byte("null"))
}

// intField reads an integer field; ok is false when it is missing or null.
func intField(k string, v json.RawMessage) (n int64, ok bool, err error) {
	if isNull(v) {
		return 0, false, nil
	}
	n, err = strconv.ParseInt(string(bytes.TrimSpace(v)), 10, 64)
	if err != nil {
		return 0, false, fmt.Errorf("field %s: want an integer, got %s", k, kindOrNumber(v))
	}
	return n, true, nil
}

func kindOrNumber(v json.RawMessage) string {
	if k := kind(v); k != "a number" {
		return k
	}
	return string(bytes.TrimSpace(v))
}

func stringField(k string, v json.RawMessage) (string, error) {
	if isNull(v) {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", fmt.Errorf("field %s: want a string, got %s", k, kind(v))
	}
	return s, nil
}

func stringsField(k string, v json.RawMessage) ([]string, error) {
	if isNull(v) {
		return nil, nil
	}
	var l []string
	if err := json.Unmarshal(v, &l); err != nil {
		if kind(v) == "an array" {
			return nil, fmt.Errorf("field %s: want a list of strings, got a list with other values", k)
		}
		return nil, fmt.Errorf("field %s: want a list of strings, got %s", k, kind(v))
	}
	return l, nil
}

func describeRow(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("malformed JSON at byte %d of the row: %v", se.Offset, se)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Errorf("want a JSON object, got %s", te.Value)
	}
	return err
}

// decodeProsocial rebuilds one dialogue from its rows: turns alternate
// context (user) and response (assistant) in response_id order; the safety
// label, its rules-of-thumb and the annotators' votes and reasons go on
// the context turn, which they judge.
func decodeProsocial(raws [][]byte, at []rowPos, key prosocialKey, base string) (*record.Record, error) {
	rows := make([]*prosocialRow, len(raws))
	pos := map[*prosocialRow]rowPos{}
	for i, raw := range raws {
		r, err := decodeProsocialRow(raw)
		if err != nil {
			return nil, at[i].errorf("%v", err)
		}
		rows[i] = r
		pos[r] = at[i]
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].ResponseID < rows[j].ResponseID })
	for i := 1; i < len(rows); i++ {
		if rows[i].ResponseID == rows[i-1].ResponseID {
			a, b := pos[rows[i-1]], pos[rows[i]]
			hint := ""
			if a.name != b.name && key.split == "" {
				// A dialogue goes on into the next file only in a sharded split.
				hint = "; " + prosocialOrderHint(a, b, key)
			}
			return nil, b.errorf("dialogue_id %d: response_id %d again (also at %s)%s", key.id, rows[i].ResponseID, a, hint)
		}
	}
	parts := []string{"prosocial"}
	if key.split != "" {
		parts = append(parts, key.split)
	}
	rec := &record.Record{ID: record.NewID(append(parts, strconv.FormatInt(key.id, 10))...), Lang: "en"}
	rec.Turns = make([]record.Turn, 0, 2*len(rows))
	for i, r := range rows {
		labels, err := prosocialLabels(r)
		if err != nil {
			return nil, pos[r].errorf("%v", err)
		}
		rec.Turns = append(rec.Turns,
			record.Turn{Index: 2 * i, Speaker: ProsocialUser, Text: r.Context, Labels: labels},
			record.Turn{Index: 2*i + 1, Speaker: ProsocialAssistant, Text: r.Response})
		if r.ResponseID != int64(i) {
			rec.AddDefect(audit.DefectIncomplete)
		}
	}
	if last := rows[len(rows)-1]; last.EpisodeDone != nil && !*last.EpisodeDone {
		rec.AddDefect(audit.DefectIncomplete)
	}
	rec.SetExtra("dialogue_id", key.id)
	rec.SetExtra("source_file", base)
	keepRowFields(rec, rows)
	return rec, nil
}

// keepRowFields passes the columns the record does not own (source, etc,
// any other) through to extra: the value when every row has the same (as
// source and etc are, on the Hub), else the list of each row's value in
// turn order.
func keepRowFields(rec *record.Record, rows []*prosocialRow) {
	keys := map[string]bool{}
	for _, r := range rows {
		for k := range r.Other {
			keys[k] = true
		}
	}
	for k := range keys {
		if _, taken := rec.Extra[k]; taken || k == "extra" {
			continue // our own dialogue_id and source_file win
		}
		first := rows[0].Other[k]
		same := true
		for _, r := range rows[1:] {
			if !bytes.Equal(r.Other[k], first) {
				same = false
				break
			}
		}
		if same {
			if !isNull(first) {
				rec.Extra[k] = first
			}
			continue
		}
		vals := make([]json.RawMessage, len(rows))
		for i, r := range rows {
			vals[i] = r.Other[k]
			if vals[i] == nil {
				vals[i] = json.RawMessage("null")
			}
		}
		b, _ := json.Marshal(vals) // raw JSON from a decoded row always marshals
		rec.Extra[k] = b
	}
}

// prosocialLabels are the labels of a context turn: the safety label in
// ngkit's name, the rules-of-thumb, the annotators' votes as shares
// (SafetyDist) with the majority share as Agreement, and their reasons as
// Explanation, one per line in annotator order. nil when the row has none.
func prosocialLabels(r *prosocialRow) (*record.Labels, error) {
	l := &record.Labels{Rots: r.Rots}
	if r.SafetyLabel != "" {
		l.Safety = safetyName(r.SafetyLabel)
		if !contains(record.SafetyLabels, l.Safety) {
			return nil, fmt.Errorf("safety_label %q is not one of __casual__, __possibly_needs_caution__, __probably_needs_caution__, __needs_caution__, __needs_intervention__", r.SafetyLabel)
		}
	}
	if len(r.Annotations) > 0 {
		votes := map[string]int{}
		for _, a := range r.Annotations {
			votes[safetyName(a)]++
		}
		l.SafetyDist = make(map[string]float64, len(votes))
		for name, n := range votes {
			share := float64(n) / float64(len(r.Annotations))
			l.SafetyDist[name] = share
			l.Agreement = max(l.Agreement, share)
		}
	}
	if len(r.Reasons) > 0 {
		reasons := make([]string, len(r.Reasons))
		for i, s := range r.Reasons {
			reasons[i] = strings.Join(strings.Fields(s), " ") // one line each
		}
		l.Explanation = strings.Join(reasons, "\n")
	}
	if l.Safety == "" && len(l.Rots) == 0 && l.SafetyDist == nil && l.Explanation == "" {
		return nil, nil
	}
	return l, nil
}

// safetyName maps a ProsocialDialog label ("__needs_caution__") or an
// annotator's vote ("needs caution") to ngkit's name ("needs_caution").
func safetyName(s string) string {
	s = strings.Trim(strings.ToLower(strings.TrimSpace(s)), "_")
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '_' || r == '-' }), "_")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
