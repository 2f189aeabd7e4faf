package recio

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"unicode/utf8"

	json "github.com/goccy/go-json"
	asmutf8 "github.com/segmentio/asm/utf8"

	"github.com/ngkit/ngkit/pkg/recio/arrowcodec"
	"github.com/ngkit/ngkit/pkg/record"
)

// MaxRecordBytes is the size limit of a record, the one limit its
// readers and writers share: the longest JSONL line (newline included)
// read, and written. A longer line is an error, not a silent truncation:
// no real record is this big, and a reader must bound its memory. A
// writer refuses such a record (TooLargeError) so that ngkit never writes
// what it cannot read back.
const MaxRecordBytes = 32 << 20

const maxLine = MaxRecordBytes

// TooLargeError is a row refused for its size, before anything of it is
// written: the writer can go on with the next.
type TooLargeError struct{ Size int }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("the record is %.1f MiB as a JSONL line, over the %d MiB limit of a record (ngkit would not read it back)", float64(e.Size)/(1<<20), MaxRecordBytes>>20)
}

// JSONLReader reads one JSON object per line. It can hand out raw lines
// (NextRaw) so that decoding runs on the pipeline's workers.
type JSONLReader struct {
	name string
	br   *bufio.Reader
	line int64
	buf  []byte
	c    io.Closer
}

// NewJSONLReader reads JSONL from r; name is used in error messages.
func NewJSONLReader(name string, r io.Reader) *JSONLReader {
	return &JSONLReader{name: name, br: bufio.NewReaderSize(r, 1<<20)}
}

// NextRaw returns the next non-blank line (without its newline) and its
// 1-based line number. The slice is valid until the next call.
func (j *JSONLReader) NextRaw() ([]byte, int64, error) {
	for {
		line, err := j.readLine()
		if err != nil {
			return nil, j.line, err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		return line, j.line, nil
	}
}

func (j *JSONLReader) readLine() ([]byte, error) {
	j.buf = j.buf[:0]
	for {
		frag, err := j.br.ReadSlice('\n')
		j.buf = append(j.buf, frag...)
		if len(j.buf) > maxLine {
			j.line++
			// Skip the rest so the position stays right if the caller goes on.
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = j.br.ReadSlice('\n')
			}
			return nil, &PosError{Name: j.name, Pos: "line " + strconv.FormatInt(j.line, 10),
				Err: fmt.Errorf("line is longer than %d MiB", maxLine>>20)}
		}
		switch {
		case err == nil:
			j.line++
			return trimEOL(j.buf), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if len(j.buf) == 0 {
				return nil, io.EOF
			}
			j.line++
			return trimEOL(j.buf), nil
		default:
			return nil, &PosError{Name: j.name, Pos: "line " + strconv.FormatInt(j.line+1, 10), Err: err}
		}
	}
}

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte{'\n'})
	return bytes.TrimSuffix(b, []byte{'\r'})
}

// Next implements Reader.
func (j *JSONLReader) Next() (*record.Record, error) {
	raw, line, err := j.NextRaw()
	if err != nil {
		return nil, err
	}
	return DecodeJSONL(j.name, line, raw)
}

// Where implements Reader.
func (j *JSONLReader) Where() string { return j.name + ":" + strconv.FormatInt(j.line, 10) }

// Close implements Reader.
func (j *JSONLReader) Close() error {
	if j.c != nil {
		return j.c.Close()
	}
	return nil
}

// Name is the input name used in messages.
func (j *JSONLReader) Name() string { return j.name }

// DecodeJSONL decodes one JSONL line into a record; errors name the file,
// line and, where known, the byte offset in the line and the field.
func DecodeJSONL(name string, line int64, raw []byte) (*record.Record, error) {
	pos := "line " + strconv.FormatInt(line, 10)
	if !asmutf8.Valid(raw) { // SIMD: 13x the standard library's speed on CJK text
		off := 0
		for off < len(raw) {
			r, n := utf8.DecodeRune(raw[off:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			off += n
		}
		return nil, &PosError{Name: name, Pos: pos, Err: fmt.Errorf("invalid UTF-8 at byte %d of the line", off+1)}
	}
	if line == 1 && bytes.HasPrefix(raw, []byte("\xef\xbb\xbf")) {
		raw = raw[3:] // a UTF-8 BOM is harmless: drop it
	}
	rec := new(record.Record)
	if err := json.Unmarshal(raw, rec); err != nil {
		// Maps written as lists of {key, value}, as columnar files hold
		// them and as the datasets library's to_json writes a dataset
		// loaded from them: read as the maps they are. Only a line that
		// fails is looked at again, so the common path pays nothing.
		if fixed, ok := mapsFromKeyValueLists(raw); ok {
			rec = new(record.Record)
			if json.Unmarshal(fixed, rec) == nil {
				return rec, nil
			}
		}
		return nil, &PosError{Name: name, Pos: pos, Err: describeJSONError(err)}
	}
	return rec, nil
}

// mapFields are the JSON names of the record's map fields (persona, the
// label distributions, quality.explanations), from its types.
var mapFields = func() map[string]bool {
	m := map[string]bool{}
	var walk func(t reflect.Type, seen map[reflect.Type]bool)
	walk = func(t reflect.Type, seen map[reflect.Type]bool) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || seen[t] {
			return
		}
		seen[t] = true
		for i := 0; i < t.NumField(); i++ {
			name, _, skip := arrowcodec.ColumnTag(t.Field(i))
			if skip {
				continue
			}
			if ft := t.Field(i).Type; ft.Kind() == reflect.Map {
				m[name] = true
			} else {
				walk(ft, seen)
			}
		}
	}
	walk(reflect.TypeFor[record.Record](), map[reflect.Type]bool{})
	return m
}()

// mapsFromKeyValueLists rewrites the line's map fields that are lists of
// {"key", "value"} objects as objects; ok is false when there is none.
// Numbers keep their text.
func mapsFromKeyValueLists(raw []byte) ([]byte, bool) {
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return nil, false
	}
	changed := false
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if l, ok := e.([]any); ok && mapFields[k] {
					if m, ok := keyValueObject(l); ok {
						x[k], changed = m, true
						continue
					}
				}
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	if !changed {
		return nil, false
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return nil, false
	}
	return b.Bytes(), true
}

// keyValueObject is l, a list of {"key": string, "value": ...}, as an
// object; ok is false when l is anything else.
func keyValueObject(l []any) (map[string]any, bool) {
	m := make(map[string]any, len(l))
	for _, e := range l {
		o, ok := e.(map[string]any)
		k, kok := o["key"].(string)
		if _, vok := o["value"]; !ok || !kok || !vok || len(o) != 2 {
			return nil, false
		}
		m[k] = o["value"]
	}
	return m, true
}

func describeJSONError(err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Errorf("malformed JSON at byte %d of the line: %v", se.Offset, se)
	case errors.As(err, &te):
		if te.Field != "" {
			return fmt.Errorf("field %s: got JSON %s, want %s", te.Field, te.Value, te.Type)
		}
		return fmt.Errorf("got JSON %s, want an object", te.Value)
	}
	return err
}

// jsonAppender is implemented by rows with a fast JSON encoder of their
// own (record.Record).
type jsonAppender interface {
	AppendJSON(dst []byte) ([]byte, error)
}

// EncodeJSONL appends row as one JSONL line (compact JSON, no HTML
// escaping, newline) to dst. It is safe to call from several goroutines,
// so that encoding runs on the pipeline's workers.
func EncodeJSONL[T any](dst []byte, row *T) ([]byte, error) {
	start := len(dst)
	var err error
	if a, ok := any(row).(jsonAppender); ok {
		dst, err = a.AppendJSON(dst)
	} else {
		var b []byte
		b, err = json.MarshalWithOption(row, json.DisableHTMLEscape())
		dst = append(dst, b...)
	}
	if err != nil {
		return dst, err
	}
	if n := len(dst) - start + 1; n > MaxRecordBytes {
		return dst[:start], &TooLargeError{Size: n}
	}
	return append(dst, '\n'), nil
}

// JSONLWriter writes one compact JSON object per line, without HTML
// escaping (dialogue text keeps its < > &).
type JSONLWriter[T any] struct {
	bw  *bufio.Writer
	buf []byte
}

// NewJSONLWriter writes rows of T as JSONL to w.
func NewJSONLWriter[T any](w io.Writer) *JSONLWriter[T] {
	return &JSONLWriter[T]{bw: bufio.NewWriterSize(w, 1<<20)}
}

// Write implements Writer.
func (j *JSONLWriter[T]) Write(row *T) error {
	var err error
	if j.buf, err = EncodeJSONL(j.buf[:0], row); err != nil {
		return err
	}
	_, err = j.bw.Write(j.buf)
	return err
}

// WriteLines writes lines already made by EncodeJSONL.
func (j *JSONLWriter[T]) WriteLines(b []byte) error {
	_, err := j.bw.Write(b)
	return err
}

// Flush writes out the buffered lines.
func (j *JSONLWriter[T]) Flush() error { return j.bw.Flush() }

// Close implements Writer: it flushes.
func (j *JSONLWriter[T]) Close() error { return j.bw.Flush() }

// ErrTooLong is the error of an ElementReader past its bound.
var ErrTooLong = fmt.Errorf("longer than %d MiB, the limit of a record", MaxRecordBytes>>20)

// ElementReader bounds the memory of a parser that reads whole elements
// (a JSON value, a CSV row) from r: past MaxRecordBytes from the offset
// given to Start (plus room for the parser's read-ahead), Read fails with
// ErrTooLong. The parser's own offset after the element tells whether it
// was over the limit exactly (Over).
type ElementReader struct {
	r     io.Reader
	n     int64 // bytes read from r
	limit int64 // Read fails at this offset
	start int64
}

// elementReadAhead is what a parser may have read beyond the element.
const elementReadAhead = 1 << 20

// NewElementReader bounds the first element, from offset 0.
func NewElementReader(r io.Reader) *ElementReader {
	e := &ElementReader{r: r}
	e.Start(0)
	return e
}

// Start bounds the element that starts at offset off (of what the
// parser consumed, e.g. json.Decoder.InputOffset, csv.Reader.InputOffset).
func (e *ElementReader) Start(off int64) {
	e.start, e.limit = off, off+MaxRecordBytes+elementReadAhead
}

// Over says whether the element that ends at offset end is longer than
// the limit.
func (e *ElementReader) Over(end int64) bool { return end-e.start > MaxRecordBytes }

func (e *ElementReader) Read(p []byte) (int, error) {
	if e.n >= e.limit {
		return 0, ErrTooLong
	}
	if rem := e.limit - e.n; int64(len(p)) > rem {
		p = p[:rem]
	}
	k, err := e.r.Read(p)
	e.n += int64(k)
	return k, err
}
