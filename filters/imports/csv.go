package imports

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	json "github.com/goccy/go-json"

	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/recio"
	"github.com/ngkit/ngkit/pkg/record"
)

// CSVFields are the record fields a column can fill (--column FIELD=COLUMN).
var CSVFields = []string{"culture", "lang", "category", "norm", "norm_id", "dialogue_type", "scenario", "situation"}

// CSVOptions tune the CSV / TSV import.
type CSVOptions struct {
	TextColumn string            // the column that holds the dialogue text (required)
	Columns    map[string]string // record field (CSVFields) -> column name
	TSV        bool              // tab-separated, quotes taken as they come
	Fields                       // set on every record, over what the columns say
	Stdin      io.Reader
}

// CheckColumns refuses a mapping to a field no column can fill.
func (o CSVOptions) CheckColumns() error {
	if o.TextColumn == "" {
		return errors.New("--from csv needs --text-column COLUMN: the column that holds the dialogue text")
	}
	for f := range o.Columns {
		if !in(CSVFields, f) {
			return fmt.Errorf("--column %s=...: %s is no field a column can fill (want one of %s)", f, f, strings.Join(CSVFields, ", "))
		}
	}
	return nil
}

func in(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// CSV reads CSV or TSV files with a header row as a pipeline.Source: one
// dialogue per row, the text in TextColumn parsed by pkg/dialogue as for
// --from text, the columns of Columns into their fields and every other
// column into extra (by its header name; "csv_" before a header that is a
// record field's name, such as "Culture" left unmapped). Quoted cells may span lines; a
// BOM is dropped; a row with more or fewer cells than the header is an
// error naming the row, and so is text that is not UTF-8.
type CSV struct {
	names   []string
	opt     CSVOptions
	r       *csv.Reader
	bound   *recio.ElementReader // bounds a row as a record is bound
	f       io.Closer
	display string
	file    string
	header  []string
	text    int         // index of the text column
	cols    map[int]int // column index -> index in CSVFields
	row     int64       // data rows read from the current input
}

// NewCSV imports the named files ("-" or none: stdin).
func NewCSV(names []string, opt CSVOptions) (*CSV, error) {
	if err := opt.Fields.Check(); err != nil {
		return nil, err
	}
	if err := opt.CheckColumns(); err != nil {
		return nil, err
	}
	if len(names) == 0 {
		names = []string{"-"}
	}
	return &CSV{names: names, opt: opt}, nil
}

// Next implements pipeline.Source.
func (c *CSV) Next() (pipeline.Item, error) {
	for {
		if c.r == nil {
			if len(c.names) == 0 {
				return pipeline.Item{}, io.EOF
			}
			if err := c.open(); err != nil {
				return pipeline.Item{}, err
			}
		}
		c.bound.Start(c.r.InputOffset())
		cells, err := c.r.Read()
		if err == nil && c.bound.Over(c.r.InputOffset()) {
			err = recio.ErrTooLong
		}
		if errors.Is(err, io.EOF) {
			if c.row == 0 {
				return pipeline.Item{}, fmt.Errorf("%s: no rows under the header", c.display)
			}
			c.Close()
			continue
		}
		c.row++
		pos := &recio.PosError{Name: c.display, Pos: "row " + strconv.FormatInt(c.row, 10)}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				pos.Pos += " (line " + strconv.Itoa(pe.StartLine) + ")"
				if errors.Is(pe.Err, csv.ErrFieldCount) {
					pos.Err = fmt.Errorf("%d cells, the header has %d", len(cells), len(c.header))
				} else {
					pos.Err = pe.Err
				}
				return pipeline.Item{}, pos
			}
			pos.Err = err
			return pipeline.Item{}, pos
		}
		for i, v := range cells {
			if !utf8.ValidString(v) {
				pos.Err = fmt.Errorf("column %q: not UTF-8 text (invalid byte at column %d); convert the file to UTF-8 first", c.header[i], invalidAt([]byte(v)))
				return pipeline.Item{}, pos
			}
		}
		raw, _ := json.Marshal(cells)
		idx, file, header, text, cols, fields := c.row-1, c.file, c.header, c.text, c.cols, c.opt.Fields
		line, _ := c.r.FieldPos(0)
		return pipeline.Item{
			Raw: raw, Name: c.display, Line: int64(line),
			Decode: func(b []byte) (*record.Record, error) {
				var cells []string
				if err := json.Unmarshal(b, &cells); err != nil {
					return nil, err
				}
				return decodeCSVRow(cells, header, text, cols, fields, file, idx)
			},
		}, nil
	}
}

func (c *CSV) open() error {
	name := c.names[0]
	c.names = c.names[1:]
	display, br, f, err := openText(name, c.opt.Stdin)
	if err != nil {
		return err
	}
	bound := recio.NewElementReader(br)
	r := csv.NewReader(bound)
	if c.opt.TSV || strings.HasSuffix(strings.TrimSuffix(strings.TrimSuffix(strings.ToLower(name), ".gz"), ".zst"), ".tsv") {
		r.Comma, r.LazyQuotes = '\t', true
	}
	r.ReuseRecord = false
	header, err := r.Read()
	if err == nil && bound.Over(r.InputOffset()) {
		err = recio.ErrTooLong
	}
	if err != nil {
		if f != nil {
			f.Close()
		}
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("%s: empty input (no header row)", display)
		}
		return fmt.Errorf("%s: header row: %w", display, err)
	}
	header = append([]string(nil), header...)
	at := map[string]int{}
	for i, h := range header {
		h = strings.TrimSpace(h)
		header[i] = h
		if _, dup := at[h]; !dup {
			at[h] = i
		}
	}
	missing := func(what, col string) error {
		if f != nil {
			f.Close()
		}
		return fmt.Errorf("%s: no column %q (%s); the columns are %s", display, col, what, quoteAll(header))
	}
	text, ok := at[c.opt.TextColumn]
	if !ok {
		return missing("--text-column", c.opt.TextColumn)
	}
	cols := map[int]int{}
	fieldNames := make([]string, 0, len(c.opt.Columns))
	for fld := range c.opt.Columns {
		fieldNames = append(fieldNames, fld)
	}
	sort.Strings(fieldNames)
	for _, fld := range fieldNames {
		col := c.opt.Columns[fld]
		i, ok := at[col]
		if !ok {
			return missing("--column "+fld+"="+col, col)
		}
		for k, name := range CSVFields {
			if name == fld {
				cols[i] = k
			}
		}
	}
	file := sourceName(display)
	c.r, c.bound, c.f, c.display, c.file, c.header, c.text, c.cols, c.row = r, bound, f, display, file, header, text, cols, 0
	return nil
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}

// Close implements pipeline.Source.
func (c *CSV) Close() error {
	c.r = nil
	if c.f != nil {
		err := c.f.Close()
		c.f = nil
		return err
	}
	return nil
}

// decodeCSVRow makes the record of one row: the mapped fields, the other
// columns in extra, then the dialogue (the situation, when mapped, helps
// the parser tell speakers), then the fields of the flags.
func decodeCSVRow(cells, header []string, text int, cols map[int]int, fields Fields, file string, idx int64) (*record.Record, error) {
	rec := &record.Record{ID: record.NewID("csv", file, strconv.FormatInt(idx, 10))}
	for i, v := range cells {
		if i == text {
			continue
		}
		k, mapped := cols[i]
		if !mapped {
			rec.SetExtra(extraKey(header[i]), v)
			continue
		}
		switch CSVFields[k] {
		case "culture":
			rec.Culture = v
		case "lang":
			rec.Lang = v
		case "category":
			rec.Category = v
		case "norm":
			rec.Norm = v
		case "norm_id":
			rec.NormID = v
		case "dialogue_type":
			rec.DialogueType = strings.ToLower(strings.TrimSpace(v))
			if rec.DialogueType != "" && !validType(rec.DialogueType) && fields.Type == "" {
				return nil, fmt.Errorf("%s: row %d: column %q: dialogue type %q: want adherence, violation or v2r", file, idx+1, header[i], v)
			}
		case "scenario":
			rec.Scenario = v
		case "situation":
			rec.Situation = v
		}
	}
	if rec.Norm != "" && rec.NormID == "" {
		rec.NormID = record.NormID(rec.Culture, rec.Category, rec.Norm)
	}
	fields.apply(rec)
	setDialogue(rec, cells[text])
	rec.SetExtra("dialogue", cells[text])
	rec.SetExtra("source_file", file)
	rec.SetExtra("source_index", idx)
	return rec, nil
}

// recordKeys are the record's own JSON keys and the extras an import
// writes.
var recordKeys = append(record.JSONFields(record.Record{}), "extra", "dialogue", "source_file", "source_index", "source_block")

// extraKey is the extra key of an unmapped column: its header, or
// "csv_"+header when the header is a record field's name in any case
// ("Culture", "turns"): JSON readers match keys without regard to case, so
// such a column would be read back as the field.
func extraKey(h string) string {
	for _, k := range recordKeys {
		if strings.EqualFold(h, k) {
			return "csv_" + h
		}
	}
	return h
}
