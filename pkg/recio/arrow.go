package recio

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ngkit/ngkit/pkg/record"
)

// Record batches written by the Arrow writers end at whichever comes first.
const (
	arrowBatchRows  = 1024
	arrowBatchBytes = 8 << 20 // approximate, as estimated by rowSizer
)

// NewArrowWriter returns a Writer of rows of type T, a struct, as Arrow IPC:
// the stream format, or the file format ("ARROW1" magic, footer) when file
// is true. Rows are buffered into record batches of up to 1024 rows or about
// 8 MiB. If *T has EncodeExtra, it is called on each row before it is
// encoded. Close writes the end of stream (and the file footer); it does not
// close w.
//
// The schema is derived from T's struct tags (see arrowSchemaOf): the column
// names are the Parquet column names, which are the JSON names.
func NewArrowWriter[T any](w io.Writer, file bool) (Writer[T], error) {
	return newArrowWriter[T](w, file, memory.DefaultAllocator)
}

func newArrowWriter[T any](w io.Writer, file bool, mem memory.Allocator) (_ Writer[T], err error) {
	bb, err := newBatchBuilder[T](mem, arrowBatchBytes)
	if err != nil {
		return nil, err
	}
	var out interface {
		Write(arrow.RecordBatch) error
		Close() error
	}
	if file {
		fw, err := ipc.NewFileWriter(w, ipc.WithSchema(bb.schema), ipc.WithAllocator(mem))
		if err != nil {
			bb.release()
			return nil, fmt.Errorf("arrow: %w", err)
		}
		out = fw
	} else {
		out = ipc.NewWriter(w, ipc.WithSchema(bb.schema), ipc.WithAllocator(mem))
	}
	return &arrowWriter[T]{bb: bb, out: out}, nil
}

// batchBuilder turns rows of type T into Arrow record batches of up to
// arrowBatchRows rows or about arrowBatchBytes: the one place where Go
// values become columns, for the Arrow and the Parquet writers alike.
type batchBuilder[T any] struct {
	schema *arrow.Schema
	rb     *array.RecordBuilder
	cols   []boundCol
	size   func(reflect.Value) int64
	rows   int
	bytes  int64
	max    int64 // approximate bytes per batch
}

type boundCol struct {
	index int // Go field index
	enc   func(reflect.Value)
}

func newBatchBuilder[T any](mem memory.Allocator, maxBytes int64) (*batchBuilder[T], error) {
	t := reflect.TypeFor[T]()
	schema, cols, err := arrowSchemaOf(t)
	if err != nil {
		return nil, err
	}
	rb := array.NewRecordBuilder(mem, schema)
	bb := &batchBuilder[T]{schema: schema, rb: rb, size: rowSizer(t), max: maxBytes}
	for i, c := range cols {
		bb.cols = append(bb.cols, boundCol{index: c.index, enc: c.enc(rb.Field(i))})
	}
	return bb, nil
}

// add appends a row; it reports whether the batch is full.
func (b *batchBuilder[T]) add(row *T) bool {
	v := reflect.ValueOf(row).Elem()
	for _, c := range b.cols {
		c.enc(v.Field(c.index))
	}
	b.rows++
	b.bytes += b.size(v)
	return b.rows >= arrowBatchRows || b.bytes >= b.max
}

// batch returns the rows added since the last call as a record batch
// (nil when there are none) and the estimate of their size; the caller
// releases it.
func (b *batchBuilder[T]) batch() (arrow.RecordBatch, int64) {
	if b.rows == 0 {
		return nil, 0
	}
	n := b.bytes
	b.rows, b.bytes = 0, 0
	return b.rb.NewRecordBatch(), n
}

func (b *batchBuilder[T]) release() { b.rb.Release() }

type arrowWriter[T any] struct {
	bb  *batchBuilder[T]
	out interface {
		Write(arrow.RecordBatch) error
		Close() error
	}
	writerState
}

func (w *arrowWriter[T]) Write(row *T) (err error) {
	if err := w.begin("arrow", row); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			w.err = err
		}
	}()
	defer recoverAs(&err, "arrow: write")
	if w.bb.add(row) {
		return w.flush()
	}
	return nil
}

func (w *arrowWriter[T]) flush() error {
	rec, _ := w.bb.batch()
	if rec == nil {
		return nil
	}
	defer rec.Release()
	if err := w.out.Write(rec); err != nil {
		return fmt.Errorf("arrow: write: %w", err)
	}
	return nil
}

func (w *arrowWriter[T]) Close() (err error) {
	if w.closed {
		return w.err
	}
	w.closed = true
	defer w.bb.release()
	if w.err != nil {
		return w.err
	}
	defer recoverAs(&err, "arrow: close")
	if err := w.flush(); err != nil {
		w.err = err
		return err
	}
	if err := w.out.Close(); err != nil {
		w.err = fmt.Errorf("arrow: close: %w", err)
	}
	return w.err
}

// arrowCol is a top-level column of a row type.
type arrowCol struct {
	index int // Go field index
	enc   encoderFactory
}

// An encoderFactory binds an encoder to the builder of its column; the
// encoder appends one Go value.
type encoderFactory func(array.Builder) func(reflect.Value)

// arrowSchemaOf maps a struct type to an Arrow schema:
//
//	string -> utf8, []byte -> binary, bool -> bool,
//	int, int8..int64 -> int64, uint.. -> uint64, float32 -> float32,
//	float64 -> float64, []T -> list<item: T> (items non-nullable unless
//	T is a pointer), map[string]T -> list<item: struct<key: utf8,
//	value: T>> (see mapListType), struct and *struct -> struct, *T -> T
//	(nullable).
//
// A field's name is its parquet tag name, else its json tag name, else the
// Go name; fields tagged parquet:"-" (or json:"-" without a parquet tag) are
// skipped. A field tagged `optional` (parquet) or `omitempty` (json) is
// nullable and its zero value — "", 0, false, an empty list or map — is
// written as null, as parquet-go does for optional columns; a pointer is
// nullable and only nil is null (a pointer to false is false). Map keys are
// written in sorted order, so output is deterministic.
func arrowSchemaOf(t reflect.Type) (*arrow.Schema, []arrowCol, error) {
	if t.Kind() != reflect.Struct {
		return nil, nil, fmt.Errorf("arrow: cannot write rows of type %v: want a struct", t)
	}
	fields, encs, idx, err := structFieldsOf(t, map[reflect.Type]bool{})
	if err != nil {
		return nil, nil, fmt.Errorf("arrow: schema of %v: %w", t, err)
	}
	cols := make([]arrowCol, len(fields))
	for i := range fields {
		cols[i] = arrowCol{index: idx[i], enc: encs[i]}
	}
	return arrow.NewSchema(fields, nil), cols, nil
}

// columnTag returns the column name of a struct field, whether it is
// optional, and whether it is skipped.
func columnTag(sf reflect.StructField) (name string, optional, skip bool) {
	if !sf.IsExported() {
		return "", false, true
	}
	ptag, hasP := sf.Tag.Lookup("parquet")
	jparts := strings.Split(sf.Tag.Get("json"), ",")
	if hasP {
		parts := strings.Split(ptag, ",")
		if parts[0] == "-" {
			return "", false, true
		}
		name = parts[0]
		optional = slices.Contains(parts[1:], "optional")
	} else if jparts[0] == "-" {
		return "", false, true
	}
	if name == "" {
		name = jparts[0]
	}
	if name == "" {
		name = sf.Name
	}
	optional = optional || slices.Contains(jparts[1:], "omitempty")
	return name, optional, false
}

func structFieldsOf(t reflect.Type, seen map[reflect.Type]bool) ([]arrow.Field, []encoderFactory, []int, error) {
	if seen[t] {
		return nil, nil, nil, fmt.Errorf("recursive type %v", t)
	}
	seen[t] = true
	defer delete(seen, t)
	var (
		fields []arrow.Field
		encs   []encoderFactory
		idx    []int
	)
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		name, optional, skip := columnTag(sf)
		if skip {
			continue
		}
		dt, nullable, enc, err := arrowTypeOf(sf.Type, optional, seen)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("field %s: %w", name, err)
		}
		fields = append(fields, arrow.Field{Name: name, Type: dt, Nullable: nullable})
		encs = append(encs, enc)
		idx = append(idx, i)
	}
	if len(fields) == 0 {
		return nil, nil, nil, fmt.Errorf("%v has no exported fields", t)
	}
	return fields, encs, idx, nil
}

// arrowTypeOf compiles the Arrow type of Go type t and its encoder. optional
// makes zero values null.
func arrowTypeOf(t reflect.Type, optional bool, seen map[reflect.Type]bool) (arrow.DataType, bool, encoderFactory, error) {
	switch t.Kind() {
	case reflect.String:
		return arrow.BinaryTypes.String, optional, func(b array.Builder) func(reflect.Value) {
			sb := b.(*array.StringBuilder)
			return func(v reflect.Value) {
				if s := v.String(); s != "" || !optional {
					sb.Append(s)
				} else {
					sb.AppendNull()
				}
			}
		}, nil
	case reflect.Bool:
		return arrow.FixedWidthTypes.Boolean, optional, func(b array.Builder) func(reflect.Value) {
			bb := b.(*array.BooleanBuilder)
			return func(v reflect.Value) {
				if x := v.Bool(); x || !optional {
					bb.Append(x)
				} else {
					bb.AppendNull()
				}
			}
		}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return arrow.PrimitiveTypes.Int64, optional, func(b array.Builder) func(reflect.Value) {
			ib := b.(*array.Int64Builder)
			return func(v reflect.Value) {
				if x := v.Int(); x != 0 || !optional {
					ib.Append(x)
				} else {
					ib.AppendNull()
				}
			}
		}, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return arrow.PrimitiveTypes.Uint64, optional, func(b array.Builder) func(reflect.Value) {
			ub := b.(*array.Uint64Builder)
			return func(v reflect.Value) {
				if x := v.Uint(); x != 0 || !optional {
					ub.Append(x)
				} else {
					ub.AppendNull()
				}
			}
		}, nil
	case reflect.Float32:
		return arrow.PrimitiveTypes.Float32, optional, func(b array.Builder) func(reflect.Value) {
			fb := b.(*array.Float32Builder)
			return func(v reflect.Value) {
				if x := v.Float(); x != 0 || !optional {
					fb.Append(float32(x))
				} else {
					fb.AppendNull()
				}
			}
		}, nil
	case reflect.Float64:
		return arrow.PrimitiveTypes.Float64, optional, func(b array.Builder) func(reflect.Value) {
			fb := b.(*array.Float64Builder)
			return func(v reflect.Value) {
				if x := v.Float(); x != 0 || !optional {
					fb.Append(x)
				} else {
					fb.AppendNull()
				}
			}
		}, nil
	case reflect.Pointer:
		dt, _, elem, err := arrowTypeOf(t.Elem(), false, seen)
		if err != nil {
			return nil, false, nil, err
		}
		return dt, true, func(b array.Builder) func(reflect.Value) {
			enc := elem(b)
			return func(v reflect.Value) {
				if v.IsNil() {
					b.AppendNull()
				} else {
					enc(v.Elem())
				}
			}
		}, nil
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return arrow.BinaryTypes.Binary, optional, func(b array.Builder) func(reflect.Value) {
				bb := b.(*array.BinaryBuilder)
				return func(v reflect.Value) {
					if v.Len() > 0 || !optional {
						bb.Append(v.Bytes())
					} else {
						bb.AppendNull()
					}
				}
			}, nil
		}
		et, enull, elem, err := arrowTypeOf(t.Elem(), false, seen)
		if err != nil {
			return nil, false, nil, err
		}
		return arrow.ListOfField(arrow.Field{Name: "item", Type: et, Nullable: enull}), optional, func(b array.Builder) func(reflect.Value) {
			lb := b.(*array.ListBuilder)
			enc := elem(lb.ValueBuilder())
			return func(v reflect.Value) {
				n := v.Len()
				if n == 0 && optional {
					lb.AppendNull()
					return
				}
				lb.Append(true)
				for i := 0; i < n; i++ {
					enc(v.Index(i))
				}
			}
		}, nil
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return nil, false, nil, fmt.Errorf("unsupported map key type %v (want string)", t.Key())
		}
		it, inull, item, err := arrowTypeOf(t.Elem(), false, seen)
		if err != nil {
			return nil, false, nil, err
		}
		lt := mapListType(it, inull)
		switch t.Elem().Kind() {
		case reflect.Float64: // the label distributions: no reflection per entry
			return lt, optional, mapEncoder(optional, mapStringFloat, func(b array.Builder) func(float64) {
				return b.(*array.Float64Builder).Append
			}), nil
		case reflect.String:
			return lt, optional, mapEncoder(optional, mapStringString, func(b array.Builder) func(string) {
				return b.(*array.StringBuilder).Append
			}), nil
		}
		return lt, optional, func(b array.Builder) func(reflect.Value) {
			lb := b.(*array.ListBuilder)
			sb := lb.ValueBuilder().(*array.StructBuilder)
			kb := sb.FieldBuilder(0).(*array.StringBuilder)
			enc := item(sb.FieldBuilder(1))
			var keys []reflect.Value
			return func(v reflect.Value) {
				n := v.Len()
				if n == 0 && optional {
					lb.AppendNull()
					return
				}
				lb.Append(true)
				keys = append(keys[:0], v.MapKeys()...)
				slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
				for _, k := range keys {
					sb.Append(true)
					kb.Append(k.String())
					enc(v.MapIndex(k))
				}
				clear(keys)
			}
		}, nil
	case reflect.Struct:
		fields, encs, idx, err := structFieldsOf(t, seen)
		if err != nil {
			return nil, false, nil, err
		}
		return arrow.StructOf(fields...), false, func(b array.Builder) func(reflect.Value) {
			sb := b.(*array.StructBuilder)
			children := make([]func(reflect.Value), len(encs))
			for i, e := range encs {
				children[i] = e(sb.FieldBuilder(i))
			}
			return func(v reflect.Value) {
				sb.Append(true)
				for i, c := range children {
					c(v.Field(idx[i]))
				}
			}
		}, nil
	}
	return nil, false, nil, fmt.Errorf("unsupported Go type %v", t)
}

// mapListType is the Arrow type of a Go map: a list of {key, value}
// structs, sorted by key. Not an Arrow map: the Hugging Face datasets
// library cannot load Arrow or Parquet maps (Features.from_arrow_schema:
// "does not have a datasets dtype equivalent", huggingface/datasets issue
// 5612) and polars reads them as lists of structs anyway, so one schema
// serves Arrow, Parquet and the Hub. The readers accept both forms.
func mapListType(value arrow.DataType, nullable bool) arrow.DataType {
	return arrow.ListOfField(arrow.Field{Name: "item", Type: arrow.StructOf(
		arrow.Field{Name: "key", Type: arrow.BinaryTypes.String},
		arrow.Field{Name: "value", Type: value, Nullable: nullable},
	)})
}

// mapEncoder encodes maps convertible to map[string]V, keys in order.
func mapEncoder[V any](optional bool, mt reflect.Type, item func(array.Builder) func(V)) encoderFactory {
	return func(b array.Builder) func(reflect.Value) {
		lb := b.(*array.ListBuilder)
		sb := lb.ValueBuilder().(*array.StructBuilder)
		kb := sb.FieldBuilder(0).(*array.StringBuilder)
		appendItem := item(sb.FieldBuilder(1))
		var keys []string
		return func(v reflect.Value) {
			if v.Len() == 0 && optional {
				lb.AppendNull()
				return
			}
			m := v.Convert(mt).Interface().(map[string]V)
			lb.Append(true)
			keys = keys[:0]
			for k := range m {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				sb.Append(true)
				kb.Append(k)
				appendItem(m[k])
			}
			clear(keys)
		}
	}
}

// NewArrowReader reads record.Record rows from an Arrow IPC stream, one
// record batch at a time. name is used in errors. Columns are matched by
// name; Record fields missing from the stream stay zero, and columns Record
// does not have are kept in Record.Extra as JSON (as JSONL input keeps
// unknown keys; such a column wins over a key of the same name inside the
// extra column, as a top-level JSONL field does). Empty lists and maps read back as nil, null values as
// zero values.
func NewArrowReader(name string, r io.Reader) (Reader, error) {
	return newArrowReader(name, r, memory.DefaultAllocator)
}

func newArrowReader(name string, r io.Reader, mem memory.Allocator) (_ Reader, err error) {
	defer func() {
		if err != nil {
			err = &PosError{Name: name, Err: err}
		}
	}()
	head, err := readIPCSchemaMessage(r)
	if err != nil {
		return nil, fmt.Errorf("not a readable Arrow IPC stream: %w", err)
	}
	tr := &tailReader{r: io.MultiReader(bytes.NewReader(head), r)}
	var sr *ipc.Reader
	err = func() (err error) {
		defer recoverAs(&err, "not a readable Arrow IPC stream")
		sr, err = ipc.NewReader(tr, ipc.WithAllocator(mem))
		return err
	}()
	if err != nil {
		return nil, fmt.Errorf("not a readable Arrow IPC stream: %w", oneLine(err))
	}
	dec, err := newRecordDecoder(sr.Schema())
	if err != nil {
		sr.Release()
		return nil, err
	}
	ar := &arrowReader{name: name, dec: dec}
	ar.next = func() (arrow.RecordBatch, error) {
		if sr.Next() {
			return sr.RecordBatch(), nil // valid until the next call
		}
		if err := sr.Err(); err != nil {
			return nil, err
		}
		if tr.truncated() {
			return nil, errors.New("truncated Arrow IPC stream: it ends without the end-of-stream marker")
		}
		return nil, io.EOF
	}
	ar.close = func() error { sr.Release(); return nil }
	return ar, nil
}

// tailReader remembers whether its reader reached EOF and the last bytes
// it delivered. arrow-go reads IPC messages with exact-size reads and stops
// at the end-of-stream marker, so a stream that hit EOF without delivering
// the marker last was cut short, even when it was cut between two record
// batches (which arrow-go reports as a clean end).
type tailReader struct {
	r    io.Reader
	eof  bool
	tail [8]byte
	n    int64
}

// ipcEOS is the end-of-stream marker: a continuation token and a zero length.
var ipcEOS = [8]byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0}

func (t *tailReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if n >= 8 {
		copy(t.tail[:], p[n-8:n])
	} else if n > 0 {
		copy(t.tail[:], t.tail[n:])
		copy(t.tail[8-n:], p[:n])
	}
	t.n += int64(n)
	if err == io.EOF {
		t.eof = true
	}
	return n, err
}

func (t *tailReader) truncated() bool { return t.eof && t.tail != ipcEOS }

// NewArrowFileReader reads record.Record rows from an Arrow IPC file of the
// given size, one record batch at a time; see NewArrowReader.
func NewArrowFileReader(name string, ra io.ReaderAt, size int64) (Reader, error) {
	return newArrowFileReader(name, ra, size, memory.DefaultAllocator)
}

func newArrowFileReader(name string, ra io.ReaderAt, size int64, mem memory.Allocator) (_ Reader, err error) {
	defer func() {
		if err != nil {
			err = &PosError{Name: name, Err: err}
		}
	}()
	if err := checkIPCFooter(ra, size); err != nil {
		return nil, fmt.Errorf("not a readable Arrow IPC file: %w", err)
	}
	var fr *ipc.FileReader
	err = func() (err error) {
		defer recoverAs(&err, "not a readable Arrow IPC file")
		fr, err = ipc.NewFileReader(io.NewSectionReader(ra, 0, size), ipc.WithAllocator(mem))
		return err
	}()
	if err != nil {
		return nil, fmt.Errorf("not a readable Arrow IPC file: %w", oneLine(err))
	}
	dec, err := newRecordDecoder(fr.Schema())
	if err != nil {
		fr.Close()
		return nil, err
	}
	ar := &arrowReader{name: name, dec: dec}
	batch := 0
	ar.next = func() (arrow.RecordBatch, error) {
		if batch >= fr.NumRecords() {
			return nil, io.EOF
		}
		batch++
		return fr.RecordBatch(batch - 1) // valid until the next call
	}
	ar.close = fr.Close
	return ar, nil
}

type arrowReader struct {
	name  string
	dec   *recordDecoder
	next  func() (arrow.RecordBatch, error)
	close func() error
	cur   func(i int, rec *record.Record) error // decoder bound to the current batch
	i, n  int                                   // next row in, and length of, the current batch
	row   int64                                 // rows returned (1-based number of the last one)
	err   error                                 // sticky
}

func (r *arrowReader) Next() (_ *record.Record, err error) {
	if r.err != nil {
		return nil, r.err
	}
	defer func() {
		if err != nil && err != io.EOF {
			r.err = err
		}
	}()
	for r.i >= r.n {
		var batch arrow.RecordBatch
		err := func() (err error) {
			defer recoverAs(&err, "corrupt Arrow data")
			batch, err = r.next()
			return err
		}()
		if err == io.EOF {
			r.err = io.EOF
			return nil, io.EOF
		}
		if err != nil {
			return nil, &PosError{Name: r.name, Pos: "row " + strconv.FormatInt(r.row+1, 10), Err: oneLine(err)}
		}
		if !batch.Schema().Equal(r.dec.schema) {
			return nil, &PosError{Name: r.name, Pos: "row " + strconv.FormatInt(r.row+1, 10),
				Err: errors.New("record batch schema differs from the stream schema")}
		}
		r.cur, r.i, r.n = r.dec.bind(batch), 0, int(batch.NumRows())
	}
	rec := new(record.Record)
	r.row++
	pos := "row " + strconv.FormatInt(r.row, 10)
	err = func() (err error) {
		defer recoverAs(&err, "corrupt Arrow data")
		return r.cur(r.i, rec)
	}()
	r.i++
	if err != nil {
		return nil, &PosError{Name: r.name, Pos: pos, Err: oneLine(err)}
	}
	return rec, nil
}

func (r *arrowReader) Where() string {
	return r.name + ": row " + strconv.FormatInt(r.row, 10)
}

func (r *arrowReader) Close() (err error) {
	if r.close == nil {
		return nil
	}
	defer recoverAs(&err, "arrow: close")
	c := r.close
	r.close = nil
	return c()
}

// A decoderFactory binds a decoder to an array; the decoder sets a Go value
// (settable, zero on entry) from element i. Nulls leave the value zero.
type decoderFactory func(arrow.Array) func(i int, v reflect.Value)

// recordDecoder decodes rows of one Arrow schema into record.Record.
type recordDecoder struct {
	schema  *arrow.Schema
	cols    []decCol // Record fields present in the schema
	unknown []int    // schema columns Record does not have, kept in Extra
}

type decCol struct {
	col   int // schema column
	field int // Go field index
	dec   decoderFactory
}

func newRecordDecoder(schema *arrow.Schema) (*recordDecoder, error) {
	d := &recordDecoder{schema: schema}
	t := reflect.TypeFor[record.Record]()
	known := map[string]bool{}
	for i := 0; i < t.NumField(); i++ {
		name, _, skip := columnTag(t.Field(i))
		if skip {
			continue
		}
		known[name] = true
		idx := schema.FieldIndices(name)
		if len(idx) == 0 {
			continue
		}
		dec, err := arrowDecoderOf(t.Field(i).Type, schema.Field(idx[0]).Type)
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", name, err)
		}
		d.cols = append(d.cols, decCol{col: idx[0], field: i, dec: dec})
	}
	for i, f := range schema.Fields() {
		if !known[f.Name] && f.Name != "" {
			d.unknown = append(d.unknown, i)
		}
	}
	return d, nil
}

func (d *recordDecoder) bind(batch arrow.RecordBatch) func(i int, rec *record.Record) error {
	decs := make([]func(int, reflect.Value), len(d.cols))
	for k, c := range d.cols {
		decs[k] = d.cols[k].dec(batch.Column(c.col))
	}
	return func(i int, rec *record.Record) error {
		v := reflect.ValueOf(rec).Elem()
		for k, c := range d.cols {
			decs[k](i, v.Field(c.field))
		}
		if err := rec.DecodeExtra(); err != nil {
			return err
		}
		for _, c := range d.unknown {
			col := batch.Column(c)
			if col.IsNull(i) {
				continue
			}
			name := d.schema.Field(c).Name
			b, err := json.Marshal(col.GetOneForMarshal(i))
			if err != nil {
				return fmt.Errorf("column %q: %w", name, err)
			}
			if rec.Extra == nil {
				rec.Extra = make(map[string]json.RawMessage)
			}
			rec.Extra[name] = b
		}
		return nil
	}
}

// arrowDecoderOf compiles the decoder of Arrow type dt into Go type t, or
// says why it cannot. It accepts more than the writers produce: large and
// view strings and lists, binary into strings, any integer width, floats
// from integers, dictionary-encoded and extension columns.
func arrowDecoderOf(t reflect.Type, dt arrow.DataType) (decoderFactory, error) {
	switch x := dt.(type) {
	case *arrow.DictionaryType:
		inner, err := arrowDecoderOf(t, x.ValueType)
		if err != nil {
			return nil, err
		}
		return nullable(func(a arrow.Array) func(int, reflect.Value) {
			d := a.(*array.Dictionary)
			dec := inner(d.Dictionary())
			return func(i int, v reflect.Value) { dec(d.GetValueIndex(i), v) }
		}), nil
	case arrow.ExtensionType:
		inner, err := arrowDecoderOf(t, x.StorageType())
		if err != nil {
			return nil, err
		}
		return nullable(func(a arrow.Array) func(int, reflect.Value) {
			return inner(a.(array.ExtensionArray).Storage())
		}), nil
	}
	mismatch := fmt.Errorf("cannot read Arrow type %s into Go type %v", dt, t)
	if t.Kind() == reflect.Pointer {
		inner, err := arrowDecoderOf(t.Elem(), dt)
		if err != nil {
			return nil, err
		}
		et := t.Elem()
		return nullable(func(a arrow.Array) func(int, reflect.Value) {
			dec := inner(a)
			return func(i int, v reflect.Value) {
				p := reflect.New(et)
				dec(i, p.Elem())
				v.Set(p)
			}
		}), nil
	}
	id := dt.ID()
	switch t.Kind() {
	case reflect.String:
		switch id {
		case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW:
			return nullable(func(a arrow.Array) func(int, reflect.Value) {
				s := a.(interface{ Value(int) string })
				// Clone: the array's string data is released with the batch.
				return func(i int, v reflect.Value) { v.SetString(strings.Clone(s.Value(i))) }
			}), nil
		case arrow.BINARY, arrow.LARGE_BINARY, arrow.BINARY_VIEW:
			return nullable(func(a arrow.Array) func(int, reflect.Value) {
				b := a.(interface{ Value(int) []byte })
				return func(i int, v reflect.Value) { v.SetString(string(b.Value(i))) }
			}), nil
		}
	case reflect.Bool:
		if id == arrow.BOOL {
			return nullable(func(a arrow.Array) func(int, reflect.Value) {
				b := a.(*array.Boolean)
				return func(i int, v reflect.Value) { v.SetBool(b.Value(i)) }
			}), nil
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if get := intGetter(id); get != nil {
			return nullable(func(a arrow.Array) func(int, reflect.Value) {
				g := get(a)
				return func(i int, v reflect.Value) { v.SetInt(g(i)) }
			}), nil
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if get := intGetter(id); get != nil {
			return nullable(func(a arrow.Array) func(int, reflect.Value) {
				g := get(a)
				return func(i int, v reflect.Value) { v.SetUint(uint64(g(i))) }
			}), nil
		}
	case reflect.Float32, reflect.Float64:
		switch id {
		case arrow.FLOAT64:
			return nullable(func(a arrow.Array) func(int, reflect.Value) {
				f := a.(*array.Float64)
				return func(i int, v reflect.Value) { v.SetFloat(f.Value(i)) }
			}), nil
		case arrow.FLOAT32:
			return nullable(func(a arrow.Array) func(int, reflect.Value) {
				f := a.(*array.Float32)
				return func(i int, v reflect.Value) { v.SetFloat(float64(f.Value(i))) }
			}), nil
		}
		if get := intGetter(id); get != nil {
			return nullable(func(a arrow.Array) func(int, reflect.Value) {
				g := get(a)
				return func(i int, v reflect.Value) { v.SetFloat(float64(g(i))) }
			}), nil
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			switch id {
			case arrow.BINARY, arrow.LARGE_BINARY, arrow.BINARY_VIEW:
				return nullable(func(a arrow.Array) func(int, reflect.Value) {
					b := a.(interface{ Value(int) []byte })
					return func(i int, v reflect.Value) {
						if x := b.Value(i); len(x) > 0 {
							v.SetBytes(slices.Clone(x))
						}
					}
				}), nil
			}
			break
		}
		lt, ok := dt.(arrow.ListLikeType)
		if !ok || id == arrow.MAP {
			break
		}
		inner, err := arrowDecoderOf(t.Elem(), lt.Elem())
		if err != nil {
			return nil, err
		}
		return nullable(func(a arrow.Array) func(int, reflect.Value) {
			l := a.(array.ListLike)
			values := l.ListValues()
			dec := inner(values)
			return func(i int, v reflect.Value) {
				start, end := l.ValueOffsets(i)
				n := int(end - start)
				checkOffsets(start, end, values.Len())
				if n == 0 {
					return // empty lists read back as nil
				}
				s := reflect.MakeSlice(t, n, n)
				for j := 0; j < n; j++ {
					dec(int(start)+j, s.Index(j))
				}
				v.Set(s)
			}
		}), nil
	case reflect.Map:
		if lt, ok := dt.(arrow.ListLikeType); ok && id != arrow.MAP {
			return mapFromListDecoder(t, lt)
		}
		mt, ok := dt.(*arrow.MapType)
		if !ok {
			break
		}
		kdec, err := arrowDecoderOf(t.Key(), mt.KeyType())
		if err != nil {
			return nil, err
		}
		idec, err := arrowDecoderOf(t.Elem(), mt.ItemType())
		if err != nil {
			return nil, err
		}
		return nullable(func(a arrow.Array) func(int, reflect.Value) {
			m := a.(*array.Map)
			keys, items := kdec(m.Keys()), idec(m.Items())
			return func(i int, v reflect.Value) {
				start, end := m.ValueOffsets(i)
				n := int(end - start)
				checkOffsets(start, end, min(m.Keys().Len(), m.Items().Len()))
				if n == 0 {
					return // empty maps read back as nil
				}
				mv := reflect.MakeMapWithSize(t, n)
				for j := int(start); j < int(end); j++ {
					k, x := reflect.New(t.Key()).Elem(), reflect.New(t.Elem()).Elem()
					keys(j, k)
					items(j, x)
					mv.SetMapIndex(k, x)
				}
				v.Set(mv)
			}
		}), nil
	case reflect.Struct:
		st, ok := dt.(*arrow.StructType)
		if !ok {
			break
		}
		type child struct {
			col, field int
			dec        decoderFactory
		}
		var children []child
		for fi := 0; fi < t.NumField(); fi++ {
			name, _, skip := columnTag(t.Field(fi))
			if skip {
				continue
			}
			ci, ok := st.FieldIdx(name)
			if !ok {
				continue // missing fields stay zero
			}
			dec, err := arrowDecoderOf(t.Field(fi).Type, st.Field(ci).Type)
			if err != nil {
				return nil, fmt.Errorf("field %q: %w", name, err)
			}
			children = append(children, child{ci, fi, dec})
		}
		return nullable(func(a arrow.Array) func(int, reflect.Value) {
			s := a.(*array.Struct)
			decs := make([]func(int, reflect.Value), len(children))
			for k, c := range children {
				decs[k] = c.dec(s.Field(c.col))
			}
			return func(i int, v reflect.Value) {
				for k, c := range children {
					decs[k](i, v.Field(c.field))
				}
			}
		}), nil
	}
	return nil, mismatch
}

// mapFromListDecoder reads a list of {key, value} structs (the form ngkit
// writes maps in) into a Go map; a later entry wins over an earlier one
// with the same key.
func mapFromListDecoder(t reflect.Type, lt arrow.ListLikeType) (decoderFactory, error) {
	st, ok := lt.Elem().(*arrow.StructType)
	ki, kok := st.FieldIdx("key")
	vi, vok := st.FieldIdx("value")
	if !ok || !kok || !vok || st.NumFields() != 2 {
		return nil, fmt.Errorf("cannot read Arrow type %s into Go type %v (want a map, or a list of {key, value})", lt, t)
	}
	kdec, err := arrowDecoderOf(t.Key(), st.Field(ki).Type)
	if err != nil {
		return nil, err
	}
	vdec, err := arrowDecoderOf(t.Elem(), st.Field(vi).Type)
	if err != nil {
		return nil, err
	}
	return nullable(func(a arrow.Array) func(int, reflect.Value) {
		l := a.(array.ListLike)
		entries := l.ListValues().(*array.Struct)
		keys, values := kdec(entries.Field(ki)), vdec(entries.Field(vi))
		return func(i int, v reflect.Value) {
			start, end := l.ValueOffsets(i)
			checkOffsets(start, end, entries.Len())
			n := int(end - start)
			if n == 0 {
				return // empty maps read back as nil
			}
			mv := reflect.MakeMapWithSize(t, n)
			for j := int(start); j < int(end); j++ {
				if entries.IsNull(j) {
					continue
				}
				k, x := reflect.New(t.Key()).Elem(), reflect.New(t.Elem()).Elem()
				keys(j, k)
				values(j, x)
				mv.SetMapIndex(k, x)
			}
			v.Set(mv)
		}
	}), nil
}

// checkOffsets panics (recovered by the reader as a corrupt-data error)
// when list offsets do not fit the child array: a corrupt file must not
// make the decoder allocate a slice of billions of elements.
func checkOffsets(start, end int64, n int) {
	if start < 0 || end < start || end > int64(n) {
		panic(fmt.Sprintf("list offsets [%d, %d) out of bounds of %d values", start, end, n))
	}
}

// nullable wraps a decoder factory so that null elements leave the value
// zero. Arrays without nulls skip the check.
func nullable(f decoderFactory) decoderFactory {
	return func(a arrow.Array) func(int, reflect.Value) {
		dec := f(a)
		if a.NullN() == 0 {
			return dec
		}
		return func(i int, v reflect.Value) {
			if !a.IsNull(i) {
				dec(i, v)
			}
		}
	}
}

// intGetter returns the accessor of an integer array type, or nil.
func intGetter(id arrow.Type) func(arrow.Array) func(int) int64 {
	switch id {
	case arrow.INT8:
		return func(a arrow.Array) func(int) int64 {
			x := a.(*array.Int8)
			return func(i int) int64 { return int64(x.Value(i)) }
		}
	case arrow.INT16:
		return func(a arrow.Array) func(int) int64 {
			x := a.(*array.Int16)
			return func(i int) int64 { return int64(x.Value(i)) }
		}
	case arrow.INT32:
		return func(a arrow.Array) func(int) int64 {
			x := a.(*array.Int32)
			return func(i int) int64 { return int64(x.Value(i)) }
		}
	case arrow.INT64:
		return func(a arrow.Array) func(int) int64 {
			x := a.(*array.Int64)
			return func(i int) int64 { return x.Value(i) }
		}
	case arrow.UINT8:
		return func(a arrow.Array) func(int) int64 {
			x := a.(*array.Uint8)
			return func(i int) int64 { return int64(x.Value(i)) }
		}
	case arrow.UINT16:
		return func(a arrow.Array) func(int) int64 {
			x := a.(*array.Uint16)
			return func(i int) int64 { return int64(x.Value(i)) }
		}
	case arrow.UINT32:
		return func(a arrow.Array) func(int) int64 {
			x := a.(*array.Uint32)
			return func(i int) int64 { return int64(x.Value(i)) }
		}
	case arrow.UINT64:
		return func(a arrow.Array) func(int) int64 {
			x := a.(*array.Uint64)
			return func(i int) int64 { return int64(x.Value(i)) }
		}
	}
	return nil
}

// ---- flatbuffer checks ----
//
// arrow-go trusts the lengths in an IPC schema: a corrupt file whose schema
// claims billions of fields or children makes it allocate that many
// (a fatal "out of memory", not a panic that recover can catch), and a
// child offset of 0 makes it recurse forever. So the readers check the
// schema's flatbuffer first: every vector fits in its buffer, offsets point
// forward, nesting is at most 64 deep and the schema has at most 1<<16
// fields. Field numbers below are those of Arrow's Schema.fbs, File.fbs and
// Message.fbs.

const (
	maxSchemaMessage = 16 << 20
	maxSchemaFields  = 1 << 16
	maxSchemaDepth   = 64
)

var errCorruptSchema = errors.New("corrupt Arrow schema metadata")

// readIPCSchemaMessage reads and checks the first message of an IPC stream
// (the schema) and returns the bytes it read.
func readIPCSchemaMessage(r io.Reader) ([]byte, error) {
	head := make([]byte, 8)
	if n, err := io.ReadFull(r, head[:4]); err != nil {
		if n == 0 && err == io.EOF {
			return nil, errors.New("empty input")
		}
		return nil, fmt.Errorf("reading the schema message: %w", err)
	}
	start := 4
	length := binary.LittleEndian.Uint32(head[:4])
	if length == 0xffffffff { // continuation marker, then the length
		if _, err := io.ReadFull(r, head[4:8]); err != nil {
			return nil, fmt.Errorf("reading the schema message: %w", err)
		}
		start = 8
		length = binary.LittleEndian.Uint32(head[4:8])
	}
	if length == 0 {
		return nil, errors.New("no schema: the stream ends at once")
	}
	if length > maxSchemaMessage {
		return nil, fmt.Errorf("schema message of %d bytes: %w", length, errCorruptSchema)
	}
	buf := make([]byte, start+int(length))
	copy(buf, head[:start])
	if _, err := io.ReadFull(r, buf[start:]); err != nil {
		return nil, fmt.Errorf("reading the schema message: %w", err)
	}
	if err := checkMessageSchema(buf[start:]); err != nil {
		return nil, err
	}
	return buf, nil
}

// checkIPCFooter checks the footer of an IPC file: its schema and its
// block lists.
func checkIPCFooter(ra io.ReaderAt, size int64) error {
	const tail = 10 // int32 footer length + "ARROW1"
	if size < 8+tail {
		return fmt.Errorf("file of %d bytes is too small", size)
	}
	var t [tail]byte
	if _, err := ra.ReadAt(t[:], size-tail); err != nil {
		return fmt.Errorf("reading the footer: %w", err)
	}
	if string(t[4:]) != "ARROW1" {
		return errors.New("no ARROW1 magic at the end: truncated or not an Arrow file")
	}
	n := int64(binary.LittleEndian.Uint32(t[:4]))
	if n <= 0 || n > maxSchemaMessage || n > size-tail-8 {
		return fmt.Errorf("footer of %d bytes in a file of %d: %w", n, size, errCorruptSchema)
	}
	footer := make([]byte, n)
	if _, err := ra.ReadAt(footer, size-tail-n); err != nil {
		return fmt.Errorf("reading the footer: %w", err)
	}
	b := fbBuf(footer)
	root, err := b.root()
	if err != nil {
		return err
	}
	schema, ok, err := root.ref(1)
	if err != nil || !ok {
		return errCorruptSchema
	}
	budget := maxSchemaFields
	if err := b.checkSchema(schema, &budget); err != nil {
		return err
	}
	for _, id := range []int{2, 3} { // dictionaries, recordBatches: [Block] (24-byte structs)
		if _, _, err := root.vector(id, 24); err != nil {
			return err
		}
	}
	return b.checkKeyValues(root, 4)
}

// checkMessageSchema checks a Message flatbuffer whose header is a Schema.
func checkMessageSchema(msg []byte) error {
	b := fbBuf(msg)
	root, err := b.root()
	if err != nil {
		return err
	}
	if typ, ok := root.byteField(1); !ok || typ != 1 { // header_type: Schema
		return nil // not a schema: arrow-go reports that itself
	}
	schema, ok, err := root.ref(2)
	if err != nil || !ok {
		return errCorruptSchema
	}
	budget := maxSchemaFields
	return b.checkSchema(schema, &budget)
}

type fbBuf []byte

// fbTable is a table of b at pos, with its vtable.
type fbTable struct {
	b      fbBuf
	pos    int
	vt     int // vtable position
	vtSize int
}

func (b fbBuf) u32(pos int) (uint32, bool) {
	if pos < 0 || pos+4 > len(b) {
		return 0, false
	}
	return binary.LittleEndian.Uint32(b[pos:]), true
}

func (b fbBuf) root() (fbTable, error) {
	off, ok := b.u32(0)
	if !ok || off == 0 {
		return fbTable{}, errCorruptSchema
	}
	return b.table(int(off))
}

func (b fbBuf) table(pos int) (fbTable, error) {
	so, ok := b.u32(pos)
	if !ok {
		return fbTable{}, errCorruptSchema
	}
	vt := pos - int(int32(so))
	if vt < 0 || vt+4 > len(b) {
		return fbTable{}, errCorruptSchema
	}
	vtSize := int(binary.LittleEndian.Uint16(b[vt:]))
	if vtSize < 4 || vtSize%2 != 0 || vt+vtSize > len(b) {
		return fbTable{}, errCorruptSchema
	}
	return fbTable{b: b, pos: pos, vt: vt, vtSize: vtSize}, nil
}

// field returns the position of field id, if present.
func (t fbTable) field(id int) (int, bool) {
	slot := 4 + 2*id
	if slot+2 > t.vtSize {
		return 0, false
	}
	off := int(binary.LittleEndian.Uint16(t.b[t.vt+slot:]))
	if off == 0 {
		return 0, false
	}
	return t.pos + off, true
}

func (t fbTable) byteField(id int) (byte, bool) {
	p, ok := t.field(id)
	if !ok || p >= len(t.b) {
		return 0, false
	}
	return t.b[p], true
}

// ref follows the offset in field id (a table, vector or string) forward.
func (t fbTable) ref(id int) (int, bool, error) {
	p, ok := t.field(id)
	if !ok {
		return 0, false, nil
	}
	u, ok := t.b.u32(p)
	if !ok || u == 0 || p+int(u) >= len(t.b) {
		return 0, false, errCorruptSchema
	}
	return p + int(u), true, nil
}

// vector returns the length and first element position of vector field id
// with elements of elemSize bytes, checking that it fits in the buffer.
func (t fbTable) vector(id, elemSize int) (n, start int, err error) {
	p, ok, err := t.ref(id)
	if err != nil || !ok {
		return 0, 0, err
	}
	l, ok := t.b.u32(p)
	if !ok || int64(l)*int64(elemSize) > int64(len(t.b)-p-4) {
		return 0, 0, errCorruptSchema
	}
	return int(l), p + 4, nil
}

// tables returns the tables of a vector of tables.
func (t fbTable) tables(id int) ([]fbTable, error) {
	n, start, err := t.vector(id, 4)
	if err != nil || n == 0 {
		return nil, err
	}
	if n > maxSchemaFields {
		return nil, errCorruptSchema
	}
	out := make([]fbTable, n)
	for i := range out {
		e := start + 4*i
		u, _ := t.b.u32(e)
		if u == 0 {
			return nil, errCorruptSchema
		}
		if out[i], err = t.b.table(e + int(u)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (b fbBuf) checkSchema(pos int, budget *int) error {
	schema, err := b.table(pos)
	if err != nil {
		return err
	}
	fields, err := schema.tables(1)
	if err != nil {
		return err
	}
	for _, f := range fields {
		if err := b.checkField(f, 1, budget); err != nil {
			return err
		}
	}
	if err := b.checkKeyValues(schema, 2); err != nil {
		return err
	}
	_, _, err = schema.vector(3, 8) // features: [long]
	return err
}

func (b fbBuf) checkField(f fbTable, depth int, budget *int) error {
	*budget--
	if depth > maxSchemaDepth || *budget < 0 {
		return fmt.Errorf("schema nested over %d levels or with over %d fields: %w", maxSchemaDepth, maxSchemaFields, errCorruptSchema)
	}
	if _, _, err := f.vector(0, 1); err != nil { // name
		return err
	}
	if typ, ok := f.byteField(2); ok && typ == 14 { // Type.Union: typeIds [int]
		if p, ok, err := f.ref(3); err != nil {
			return err
		} else if ok {
			u, err := b.table(p)
			if err != nil {
				return err
			}
			if _, _, err := u.vector(1, 4); err != nil {
				return err
			}
		}
	}
	children, err := f.tables(5)
	if err != nil {
		return err
	}
	for _, c := range children {
		if c.pos <= f.pos {
			return errCorruptSchema
		}
		if err := b.checkField(c, depth+1, budget); err != nil {
			return err
		}
	}
	return b.checkKeyValues(f, 6)
}

// checkKeyValues checks a custom_metadata vector of KeyValue tables.
func (b fbBuf) checkKeyValues(t fbTable, id int) error {
	kvs, err := t.tables(id)
	if err != nil {
		return err
	}
	for _, kv := range kvs {
		for _, s := range []int{0, 1} {
			if _, _, err := kv.vector(s, 1); err != nil {
				return err
			}
		}
	}
	return nil
}
