package imports

import (
	"bufio"
	"bytes"
	"encoding/csv"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	json "github.com/goccy/go-json"

	"github.com/ngkit/ngkit/pkg/episode"
	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/record"
)

// EpisodesOptions tune the episode-spec import.
type EpisodesOptions struct {
	Fields // set on every record (--culture, --lang)
	Stdin  io.Reader
}

// Episodes reads CultureConverse episode specs made elsewhere as a
// pipeline.Source, for ngsim: JSONL (one object a line) or CSV/TSV (a
// header row, one spec a row; a file whose name ends in .csv or .tsv, or
// stdin that does not start with '{'). Fields: id, culture, lang,
// subgroup, domain, goal, opening; constraints as a list (JSON: strings,
// or objects {id, text, norm_id, reveal}; CSV: a JSON array, or texts
// separated by newlines or " | ") and/or columns constraint_N with reveal_N
// and norm_id_N (N from 1); persona as an object (CSV: a JSON object); an
// "episode" object in ngkit's own form. Every other field goes to extra.
// lang defaults to the culture's. A line that is not JSON, or a row with
// more or fewer cells than the header, stops the run (exit 2) naming the
// file and line; a spec that is not valid (no goal, not 2-4 constraints,
// an opening that gives a constraint away, ...) fails that record alone,
// into the errors file with its file and line.
type Episodes struct {
	names []string
	opt   EpisodesOptions

	display string
	r       *bufio.Reader
	c       io.Closer
	csv     *csv.Reader
	header  []string
	line    int64
}

// NewEpisodes imports the named files ("-" or none: stdin).
func NewEpisodes(names []string, opt EpisodesOptions) (*Episodes, error) {
	if err := opt.Fields.Check(); err != nil {
		return nil, err
	}
	if len(names) == 0 {
		names = []string{"-"}
	}
	return &Episodes{names: names, opt: opt}, nil
}

// Next implements pipeline.Source.
func (e *Episodes) Next() (pipeline.Item, error) {
	for {
		if e.r == nil {
			if len(e.names) == 0 {
				return pipeline.Item{}, io.EOF
			}
			if err := e.open(); err != nil {
				return pipeline.Item{}, err
			}
		}
		var obj map[string]json.RawMessage
		var line int64
		var err error
		if e.csv != nil {
			obj, line, err = e.nextRow()
		} else {
			obj, line, err = e.nextLine()
		}
		if err == io.EOF {
			e.close()
			continue
		}
		if err != nil {
			return pipeline.Item{}, err
		}
		rec, err := DecodeEpisode(obj, e.csv != nil)
		e.opt.Fields.apply(rec)
		if err == nil {
			err = checkEpisode(rec)
		}
		it := pipeline.Item{Rec: rec, Name: e.display, Line: line}
		if err != nil {
			if rec.ID == "" {
				rec.ID = record.ContentID(rec)
			}
			it.Err = fmt.Errorf("bad episode spec: %w", err)
		}
		return it, nil
	}
}

func (e *Episodes) open() error {
	name := e.names[0]
	e.names = e.names[1:]
	display, r, c, err := openInput(name, e.opt.Stdin)
	if err != nil {
		return err
	}
	e.display, e.r, e.c, e.line, e.csv, e.header = display, r, c, 0, nil, nil
	lower := strings.ToLower(strings.TrimSuffix(strings.TrimSuffix(name, ".gz"), ".zst"))
	isCSV := strings.HasSuffix(lower, ".csv") || strings.HasSuffix(lower, ".tsv")
	if name == "-" {
		b, _ := r.Peek(64)
		b = bytes.TrimLeft(b, " \t\r\n")
		isCSV = len(b) > 0 && b[0] != '{'
	}
	if isCSV {
		e.csv = csv.NewReader(r)
		e.csv.LazyQuotes = false
		if strings.HasSuffix(lower, ".tsv") {
			e.csv.Comma = '\t'
		}
		h, err := e.csv.Read()
		if err == io.EOF {
			return fmt.Errorf("%s: empty input: no header row", display)
		}
		if err != nil {
			return fmt.Errorf("%s: %v", display, csvMessage(err))
		}
		for i := range h {
			h[i] = strings.ToLower(strings.TrimSpace(h[i]))
		}
		e.header = h
		e.csv.FieldsPerRecord = len(h)
	}
	return nil
}

func (e *Episodes) close() {
	if e.c != nil {
		e.c.Close()
	}
	e.r, e.c, e.csv = nil, nil, nil
}

// Close implements pipeline.Source.
func (e *Episodes) Close() error {
	e.close()
	return nil
}

func (e *Episodes) nextLine() (map[string]json.RawMessage, int64, error) {
	for {
		b, err := e.r.ReadBytes('\n')
		if len(b) == 0 && err != nil {
			if err == io.EOF {
				return nil, 0, io.EOF
			}
			return nil, 0, fmt.Errorf("%s: %v", e.display, err)
		}
		e.line++
		b = bytes.TrimSpace(b)
		if len(b) == 0 {
			continue
		}
		if !utf8.Valid(b) {
			return nil, 0, fmt.Errorf("%s:line %d: not UTF-8 text", e.display, e.line)
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(b, &obj); err != nil || obj == nil {
			return nil, 0, fmt.Errorf("%s:line %d: not a JSON object: %v", e.display, e.line, errOr(err, "null"))
		}
		return obj, e.line, nil
	}
}

func errOr(err error, s string) string {
	if err != nil {
		return err.Error()
	}
	return s
}

func (e *Episodes) nextRow() (map[string]json.RawMessage, int64, error) {
	cells, err := e.csv.Read()
	if err == io.EOF {
		return nil, 0, io.EOF
	}
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %v", e.display, csvMessage(err))
	}
	line, _ := e.csv.FieldPos(0) // only after a row was read: it panics otherwise
	obj := map[string]json.RawMessage{}
	for i, c := range cells {
		if !utf8.ValidString(c) {
			return nil, 0, fmt.Errorf("%s:line %d: column %s: not UTF-8 text", e.display, line, e.header[i])
		}
		if e.header[i] == "" || strings.TrimSpace(c) == "" {
			continue
		}
		b, _ := json.Marshal(c)
		obj[e.header[i]] = b
	}
	return obj, int64(line), nil
}

// csvMessage words encoding/csv's errors as "line N: ...".
func csvMessage(err error) string {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		if errors.Is(pe.Err, csv.ErrFieldCount) {
			return fmt.Sprintf("line %d: the row has a different number of cells than the header", pe.StartLine)
		}
		return fmt.Sprintf("line %d: %v", pe.StartLine, pe.Err)
	}
	return err.Error()
}

var reNumbered = regexp.MustCompile(`^(constraint|reveal|norm_id)_?([1-9])$`)

// DecodeEpisode makes a spec record of one object (a JSONL line, or a CSV
// row whose cells are JSON strings: csvRow). The error says why it is not
// a spec; the record then holds what could be read (id, culture, extra).
// It never panics, and on success the record's episode has trimmed,
// non-empty goal and opening and its constraints in order.
func DecodeEpisode(obj map[string]json.RawMessage, csvRow bool) (*record.Record, error) {
	rec := &record.Record{}
	ep := &record.Episode{}
	var errs []string
	str := func(k string, dst *string) {
		v, ok := obj[k]
		if !ok || isNull(v) {
			return
		}
		if err := json.Unmarshal(v, dst); err != nil {
			errs = append(errs, fmt.Sprintf("%s: want a string, got %s", k, kind(v)))
		}
	}
	if v, ok := obj["episode"]; ok && !isNull(v) && !csvRow {
		if err := json.Unmarshal(v, ep); err != nil {
			errs = append(errs, fmt.Sprintf("episode: want an object with subgroup, domain, goal, constraints and opening: %v", err))
			ep = &record.Episode{}
		}
	}
	str("id", &rec.ID)
	str("culture", &rec.Culture)
	str("lang", &rec.Lang)
	str("subgroup", &ep.Subgroup)
	str("domain", &ep.Domain)
	str("goal", &ep.Goal)
	str("opening", &ep.Opening)
	rec.Culture = strings.ToLower(strings.TrimSpace(rec.Culture))
	if v, ok := obj["constraints"]; ok && !isNull(v) {
		cons, err := decodeConstraints(v, csvRow)
		if err != nil {
			errs = append(errs, "constraints: "+err.Error())
		}
		ep.Constraints = append(ep.Constraints[:0:0], cons...)
	}
	cons, cerrs := numberedConstraints(obj)
	ep.Constraints = append(ep.Constraints, cons...)
	errs = append(errs, cerrs...)
	if v, ok := obj["persona"]; ok && !isNull(v) {
		raw := []byte(v)
		if csvRow {
			var s string
			json.Unmarshal(v, &s)
			raw = []byte(s)
		}
		var p map[string]string
		if err := json.Unmarshal(raw, &p); err != nil {
			errs = append(errs, "persona: want an object of attribute: value strings")
		} else if len(p) > 0 {
			rec.Persona = p
		}
	}
	for k, v := range obj {
		switch k {
		case "id", "culture", "lang", "subgroup", "domain", "goal", "opening", "constraints", "persona", "episode":
			if k != "episode" || !csvRow {
				continue
			}
		}
		if reNumbered.MatchString(k) {
			continue
		}
		if rec.Extra == nil {
			rec.Extra = map[string]stdjson.RawMessage{}
		}
		if json.Valid(v) {
			rec.Extra[extraKey(k)] = stdjson.RawMessage(v)
		}
	}
	rec.Episode = ep
	if len(errs) > 0 {
		sort.Strings(errs)
		return rec, errors.New(strings.Join(errs, "; "))
	}
	return rec, nil
}

// numberedConstraints are the constraints of a flat object (a CSV row):
// constraint_1, reveal_1, norm_id_1, ... in the order of their numbers;
// errs say what is wrong with them.
func numberedConstraints(obj map[string]json.RawMessage) (out []record.Constraint, errs []string) {
	numbered := map[int]*record.Constraint{}
	for k, v := range obj {
		m := reNumbered.FindStringSubmatch(k)
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[2])
		c := numbered[n]
		if c == nil {
			c = &record.Constraint{}
			numbered[n] = c
		}
		var s string
		if json.Unmarshal(v, &s) != nil && !isNull(v) {
			errs = append(errs, fmt.Sprintf("%s: want a string, got %s", k, kind(v)))
		}
		switch m[1] {
		case "constraint":
			c.Text = s
		case "reveal":
			c.Reveal = s
		case "norm_id":
			c.NormID = s
		}
	}
	var ns []int
	for n := range numbered {
		ns = append(ns, n)
	}
	sort.Ints(ns)
	for _, n := range ns {
		c := numbered[n]
		if strings.TrimSpace(c.Text) == "" {
			if c.Reveal != "" || c.NormID != "" {
				errs = append(errs, fmt.Sprintf("constraint_%d: reveal or norm_id given without the constraint's text", n))
			}
			continue
		}
		out = append(out, *c)
	}
	return out, errs
}

// decodeConstraints reads a constraints value: a JSON array of strings or
// objects, or (a CSV cell) a JSON array in a string, or texts separated by
// newlines or " | ".
func decodeConstraints(v json.RawMessage, csvRow bool) ([]record.Constraint, error) {
	if csvRow {
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return nil, fmt.Errorf("want text, got %s", kind(v))
		}
		s = strings.TrimSpace(s)
		if strings.HasPrefix(s, "[") {
			v = json.RawMessage(s)
		} else {
			sep := "\n"
			if !strings.Contains(s, "\n") {
				sep = " | "
			}
			var out []record.Constraint
			for _, t := range strings.Split(s, sep) {
				if t = strings.TrimSpace(t); t != "" {
					out = append(out, record.Constraint{Text: t})
				}
			}
			return out, nil
		}
	}
	var items []json.RawMessage
	if err := json.Unmarshal(v, &items); err != nil {
		return nil, fmt.Errorf("want a list of constraints, got %s", kind(v))
	}
	var out []record.Constraint
	for i, it := range items {
		var s string
		if json.Unmarshal(it, &s) == nil {
			out = append(out, record.Constraint{Text: s})
			continue
		}
		var c record.Constraint
		dec := json.NewDecoder(bytes.NewReader(it))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil || bytes.TrimSpace(it)[0] != '{' {
			return nil, fmt.Errorf("item %d: want a string or an object {id, text, norm_id, reveal}", i+1)
		}
		out = append(out, c)
	}
	return out, nil
}

// checkEpisode fills the defaults (lang from the culture, ids, reveal
// modes) and validates the spec.
func checkEpisode(rec *record.Record) error {
	episode.Normalize(rec.Episode)
	switch {
	case rec.Culture == "":
		return errors.New("no culture")
	case rec.Lang == "":
		if rec.Lang = normbank.CultureLang(rec.Culture); rec.Lang == "" {
			return fmt.Errorf("no lang, and %q is not a built-in culture to take it from", rec.Culture)
		}
	}
	return episode.Validate(rec.Episode)
}
