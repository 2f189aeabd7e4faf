package review

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/recio"
	"github.com/ngkit/ngkit/pkg/record"
)

// Source reads a review tool's export — one JSON array, as both tools
// export, or JSON values one per line — and yields one record per task or
// record of the export (Label Studio's JSON_MIN rows, one per annotation,
// are put together per task). An element that is JSON but not a task or
// record it can read fails alone (to the errors file, with what could be
// read of it), as other importers' bad rows do; broken JSON ends the run.
type Source struct {
	tool    string
	names   []string
	stdin   io.Reader
	decode  func(raw []byte, t *Tally) (*record.Record, error)
	dec     *json.Decoder
	bound   *recio.ElementReader // bounds an element as a record is bound
	f       io.Closer
	display string
	index   int
	inArray bool
	pending json.RawMessage // an element read ahead (the next task's JSON_MIN row)
	tally   Tally
}

// Tally counts what a review import left out, for its summary line.
type Tally struct {
	Answers   int // Argilla answers read
	Draft     int // responses (one user's answers to a record) left out as drafts
	Discarded int // ... as discarded
	NoStatus  int // ... without a status in an export that has statuses
	// Nested names the first file read in Argilla's nested form, which
	// has no status (every answer counted); NestedN is how many records.
	Nested  string
	NestedN int
	nested  bool // the record just read was nested

	// Label Studio: the tasks read, those with a submitted annotation,
	// annotators who annotated one task more than once (their newest
	// counts; Again names the first: file and task), and the first file
	// in the JSON_MIN form.
	Tasks, Reviewed int
	AgainN          int
	Again           string
	Min             string
	again           []string // the annotators of the task just read who annotated it again
	task            string   // the task just read, its id
	// Indexed names the first file whose suggestions are class numbers
	// (to_datasets(): the model's labels cannot be read); IndexedN is how
	// many records.
	Indexed  string
	IndexedN int
	indexed  bool // the record just read had them
}

// NewLabelStudio reads Label Studio JSON exports (files, or stdin for none
// or "-").
func NewLabelStudio(names []string, stdin io.Reader) *Source {
	s := newSource(names, stdin, decodeLabelStudio)
	s.tool = ToolLabelStudio
	return s
}

// NewArgilla reads Argilla 2 record exports.
func NewArgilla(names []string, stdin io.Reader) *Source {
	s := newSource(names, stdin, decodeArgilla)
	s.tool = ToolArgilla
	return s
}

func newSource(names []string, stdin io.Reader, decode func([]byte, *Tally) (*record.Record, error)) *Source {
	if len(names) == 0 {
		names = []string{"-"}
	}
	return &Source{names: names, stdin: stdin, decode: decode}
}

// Notes are the lines the import's summary adds (what was left out and
// why), none when nothing was.
func (s *Source) Notes() []string {
	t := s.tally
	var out []string
	if t.Nested != "" {
		out = append(out, fmt.Sprintf("argilla: %s is the nested export (to_list(flatten=False), to_json): it has no response status, so drafts and discarded answers cannot be told apart and all %d records' answers were counted; export with to_list(flatten=True) to count submitted answers only", t.Nested, t.NestedN))
	}
	if t.Indexed != "" {
		out = append(out, fmt.Sprintf("argilla: %s has the suggestions of %d records as class numbers, as to_datasets() writes label questions (the names stay in the dataset's features, which its JSON drops): the model's labels were not read; export with to_list(flatten=True), or join on id with the records sent for review", t.Indexed, t.IndexedN))
	}
	if n := t.Draft + t.Discarded + t.NoStatus; n > 0 {
		why := fmt.Sprintf("%d draft, %d discarded", t.Draft, t.Discarded)
		if t.NoStatus > 0 {
			why += fmt.Sprintf(", %d without a status", t.NoStatus)
		}
		out = append(out, fmt.Sprintf("argilla: %d responses left out (%s): only submitted answers count", n, why))
	}
	if s.tool == ToolLabelStudio {
		if t.Min != "" {
			out = append(out, fmt.Sprintf("labelstudio: %s is the JSON_MIN export (one row per submitted annotation): tasks nobody annotated and skipped or cancelled annotations are not in it, nor which regions came from the prediction; export JSON to keep them", t.Min))
		}
		if t.AgainN > 0 {
			out = append(out, fmt.Sprintf("labelstudio: %d annotations left out: their annotator annotated the same task again, and only each annotator's newest annotation counts (first: %s)", t.AgainN, t.Again))
		}
		if t.Tasks > 0 {
			out = append(out, fmt.Sprintf("labelstudio: %d tasks read, %d with a submitted annotation (skipped, cancelled and draft annotations do not count; a task deleted in Label Studio is not in its export)", t.Tasks, t.Reviewed))
		}
	}
	return out
}

// Next implements pipeline.Source.
func (s *Source) Next() (pipeline.Item, error) {
	for {
		if s.dec == nil {
			if len(s.names) == 0 {
				return pipeline.Item{}, io.EOF
			}
			if err := s.open(s.names[0]); err != nil {
				return pipeline.Item{}, err
			}
			s.names = s.names[1:]
		}
		raw, ok, err := s.element()
		if err != nil {
			return pipeline.Item{}, err
		}
		if !ok {
			if err := s.Close(); err != nil {
				return pipeline.Item{}, err
			}
			continue
		}
		first := s.index
		if s.tool == ToolLabelStudio {
			if raw, err = s.minTask(raw); err != nil {
				return pipeline.Item{}, err
			}
		}
		it := pipeline.Item{Name: s.display, Line: int64(first)}
		s.tally.nested, s.tally.indexed, s.tally.again, s.tally.task = false, false, nil, ""
		rec, err := s.decode(raw, &s.tally)
		if rec == nil { // nothing could be read: say where it was
			rec = &record.Record{}
			rec.SetExtra("source_file", s.display)
			rec.SetExtra("source_index", first-1)
		}
		if rec.ID == "" {
			rec.ID = record.ContentID(rec)
		}
		if s.tally.indexed {
			s.tally.IndexedN++
			if s.tally.Indexed == "" {
				s.tally.Indexed = s.display
			}
		}
		if s.tally.nested {
			s.tally.NestedN++
			if s.tally.Nested == "" {
				s.tally.Nested = s.display
			}
		}
		if n := len(s.tally.again); n > 0 {
			if s.tally.AgainN == 0 {
				s.tally.Again = fmt.Sprintf("%s task %s, annotator %s", s.display, s.tally.task, record.PrintableLine(s.tally.again[0]))
			}
			s.tally.AgainN += n
		}
		if err != nil && s.tally.task != "" {
			// The errors file says the file and element; the task's id is
			// what Label Studio shows.
			err = fmt.Errorf("task %s: %w", s.tally.task, err)
		}
		it.Rec, it.Err = rec, err
		return it, nil
	}
}

// element reads the next element of the open file (the one read ahead
// first); ok is false at its end.
func (s *Source) element() (raw json.RawMessage, ok bool, err error) {
	if s.pending != nil {
		raw, s.pending = s.pending, nil
		return raw, true, nil
	}
	if !s.dec.More() {
		if s.inArray {
			if _, err := s.dec.Token(); err != nil { // the closing bracket
				return nil, false, fmt.Errorf("%s: %w", s.display, err)
			}
		}
		return nil, false, nil
	}
	s.bound.Start(s.dec.InputOffset())
	if err := s.dec.Decode(&raw); err != nil {
		return nil, false, fmt.Errorf("%s: element %d: %w", s.display, s.index+1, err)
	}
	if s.bound.Over(s.dec.InputOffset()) {
		return nil, false, fmt.Errorf("%s: element %d: %w", s.display, s.index+1, recio.ErrTooLong)
	}
	s.index++
	return raw, true, nil
}

// minTask puts a task's JSON_MIN rows (raw and the rows after it with the
// same task id) together as one task of the JSON export; any other
// element is returned as it is.
func (s *Source) minTask(raw json.RawMessage) (json.RawMessage, error) {
	id, ok := minRowTask(raw)
	if !ok {
		return raw, nil
	}
	if s.tally.Min == "" {
		s.tally.Min = s.display
	}
	rows := []json.RawMessage{raw}
	for id != "" { // a row without a task id is a task of its own
		next, ok, err := s.element()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		if nid, min := minRowTask(next); !min || nid != id {
			s.pending = next
			break
		}
		rows = append(rows, next)
	}
	return minToTask(rows)
}

func (s *Source) open(name string) error {
	var in io.Reader
	s.display = name
	if name == "-" {
		s.display, in = "stdin", s.stdin
		if in == nil {
			in = os.Stdin
		}
	} else {
		f, err := os.Open(name)
		if err != nil {
			return fmt.Errorf("%s: %w", name, errors.Unwrap(err))
		}
		in, s.f = f, f
	}
	br, _, err := recio.Decompress(in)
	if err != nil {
		return fmt.Errorf("%s: %w", s.display, err)
	}
	s.bound = recio.NewElementReader(br)
	s.dec = json.NewDecoder(s.bound)
	s.index, s.inArray, s.pending = 0, false, nil
	head, _ := br.Peek(64)
	b := bytes.TrimLeft(head, " \t\r\n\xef\xbb\xbf")
	if s.tool == ToolLabelStudio && (bytes.HasPrefix(b, []byte(`"`)) || bytes.HasPrefix(b, []byte("annotation_id,"))) {
		return fmt.Errorf("%s: a CSV export: ngcat --from labelstudio reads Label Studio's JSON export (or JSON_MIN); CSV keeps each control's answers as JSON text in a cell and loses the skipped annotations", s.display)
	}
	if len(b) > 0 && b[0] == '[' {
		if _, err := s.dec.Token(); err != nil {
			return fmt.Errorf("%s: %w", s.display, err)
		}
		s.inArray = true
	}
	return nil
}

// Close implements pipeline.Source.
func (s *Source) Close() error {
	s.dec = nil
	if s.f != nil {
		err := s.f.Close()
		s.f = nil
		return err
	}
	return nil
}

// splitAction undoes turnText: "(nods) Yes." is the action "nods" and the
// text "Yes.".
func splitAction(s string) (action, text string) {
	if strings.HasPrefix(s, "(") {
		if i := strings.Index(s, ")"); i > 0 {
			return s[1:i], strings.TrimSpace(s[i+1:])
		}
	}
	return "", s
}

// votes counts reviewers' answers in the order first given.
type votes struct {
	order []string
	n     map[string]int
}

func (v *votes) add(s string) {
	if v.n == nil {
		v.n = map[string]int{}
	}
	if v.n[s] == 0 {
		v.order = append(v.order, s)
	}
	v.n[s]++
}

// majority is the most given answer; a tie goes to the one given first.
func (v *votes) majority() string {
	best := ""
	for _, s := range v.order {
		if v.n[s] > v.n[best] {
			best = s
		}
	}
	return best
}

// verdict is the majority verdict; a tie rejects (a dialogue is kept only
// when most reviewers accept it).
func (v *votes) verdict() string {
	a, r := v.n[record.VerdictAccept], v.n[record.VerdictReject]
	switch {
	case a == 0 && r == 0:
		return ""
	case a > r:
		return record.VerdictAccept
	}
	return record.VerdictReject
}

// apply writes what the reviewers said into rec: each turn's labels_human
// (by task: the majority label) and the review.
func apply(rec *record.Record, tool string, labels map[int]map[string]*votes, verdict *votes, comments []string, reviewers int) error {
	for i, byTask := range labels {
		if i < 0 || i >= len(rec.Turns) {
			return fmt.Errorf("a label for turn %d, but the dialogue has %d turns", i, len(rec.Turns))
		}
		t := &rec.Turns[i]
		for task, v := range byTask {
			l := v.majority()
			if !in(record.LabelSet(task), l) {
				return fmt.Errorf("turn %d: %s label %q is not one of %s", i, task, l, strings.Join(record.LabelSet(task), ", "))
			}
			if t.LabelsHuman == nil {
				t.LabelsHuman = &record.Labels{}
			}
			t.LabelsHuman.Set(task, l)
		}
	}
	if reviewers == 0 {
		return nil
	}
	rec.Review = &record.Review{Tool: tool, Verdict: verdict.verdict(), Reviewers: reviewers, Comments: comments}
	return nil
}

func in(set []string, v string) bool {
	for _, s := range set {
		if s == v {
			return true
		}
	}
	return false
}
