package recio

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/ngkit/ngkit/pkg/record"
)

// Row group sizing for Parquet output.
const (
	// DefaultRowGroupBytes is the default target of approximate uncompressed
	// bytes per Parquet row group.
	DefaultRowGroupBytes = 64 << 20
	// MaxRowGroupBytes caps WriteOptions.RowGroupBytes: readers load whole
	// row groups (DuckDB, the Hugging Face viewer), and Hugging Face
	// recommends row groups of at most a few hundred MB uncompressed.
	MaxRowGroupBytes = 100 << 20
)

// parquetReadBatch is how many rows the Parquet reader decodes at a time.
const parquetReadBatch = 256

// parquetPageBytes is the uncompressed size at which a column's buffered
// values become a page. parquet-go's default (256 KiB) gives files about 6%
// smaller but costs ~20 MiB more heap across the ~85 columns of a Record.
const parquetPageBytes = 128 << 10

// WriteOptions tune the columnar writers.
type WriteOptions struct {
	// RowGroupBytes is the target of approximate uncompressed bytes per
	// Parquet row group (the sum of the row's string lengths plus 8 bytes
	// per number; see rowSizer). 0 means DefaultRowGroupBytes; values above
	// MaxRowGroupBytes are lowered to it.
	RowGroupBytes int64
	// TempDir is where the Parquet writer keeps the compressed pages of the
	// row group being written, in unlinked temporary files, until the row
	// group is complete; "" means os.TempDir(). When no file can be created
	// there, the pages are kept in memory instead.
	TempDir string
}

func (o WriteOptions) rowGroupBytes() int64 {
	switch {
	case o.RowGroupBytes <= 0:
		return DefaultRowGroupBytes
	case o.RowGroupBytes > MaxRowGroupBytes:
		return MaxRowGroupBytes
	}
	return o.RowGroupBytes
}

// NewParquetWriter returns a Writer of Parquet rows of type T, a struct whose
// `parquet` tags name the columns (record.Record, record.TurnRow). Columns
// are zstd-compressed; lists are Parquet LIST and Go maps Parquet MAP
// logical types; column and offset indexes (the page index) are written in
// the footer. If *T has EncodeExtra, it is called on each row before it is
// encoded.
//
// A row group is flushed when the approximate uncompressed size of its rows
// reaches opt.RowGroupBytes. parquet-go cannot write a column chunk before
// the row group is complete, so it holds the row group's compressed pages
// until then: the writer keeps them in temporary files under opt.TempDir
// (see spoolPool), so that heap use depends neither on the input size nor
// on the row group size. Close writes the footer; it does not close w.
func NewParquetWriter[T any](w io.Writer, opt WriteOptions) (_ Writer[T], err error) {
	t := reflect.TypeFor[T]()
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("parquet: cannot write rows of type %v: want a struct", t)
	}
	defer recoverAs(&err, "parquet: schema of %v", t)
	opts, err := parquetWriterOptions(opt)
	if err != nil {
		return nil, err
	}
	pw := parquet.NewGenericWriter[T](w, opts...)
	return &parquetWriter[T]{pw: pw, size: rowSizer(t), target: opt.rowGroupBytes()}, nil
}

// NewParquetWriterOf is NewParquetWriter for a struct type t known only at
// run time (made with reflect.StructOf): each row is a value of type t in
// an any. parquet-go writes such rows through its reflection path, slower
// than the typed one.
func NewParquetWriterOf(w io.Writer, t reflect.Type, opt WriteOptions) (_ Writer[any], err error) {
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("parquet: cannot write rows of type %v: want a struct", t)
	}
	defer recoverAs(&err, "parquet: schema of %v", t)
	opts, err := parquetWriterOptions(opt)
	if err != nil {
		return nil, err
	}
	pw := parquet.NewGenericWriter[any](w, append(opts, parquet.SchemaOf(reflect.New(t).Elem().Interface()))...)
	size := rowSizer(t)
	return &typedParquetWriter{
		// Write sizes the any, not the value in it.
		parquetWriter: parquetWriter[any]{pw: pw, size: func(v reflect.Value) int64 { return size(v.Elem()) }, target: opt.rowGroupBytes()},
		t:             t,
	}, nil
}

// typedParquetWriter refuses rows of another type than its schema's, which
// parquet-go would write as nulls or garbage.
type typedParquetWriter struct {
	parquetWriter[any]
	t reflect.Type
}

func (w *typedParquetWriter) Write(row *any) error {
	if got := reflect.TypeOf(*row); got != w.t {
		return fmt.Errorf("parquet: row of type %v in a writer of %v", got, w.t)
	}
	return w.parquetWriter.Write(row)
}

func parquetWriterOptions(opt WriteOptions) ([]parquet.WriterOption, error) {
	codec, err := newPageZstd()
	if err != nil {
		return nil, err
	}
	return []parquet.WriterOption{
		parquet.Compression(codec),
		// The default (16) truncates min/max of strings in the column index;
		// ids are longer than that and worth pruning on.
		parquet.ColumnIndexSizeLimit(func([]string) int { return 64 }),
		parquet.PageBufferSize(parquetPageBytes),
		parquet.ColumnPageBuffers(&spoolPool{dir: opt.TempDir, mem: parquet.NewBufferPool()}),
	}, nil
}

// ApproxSize is the estimate of v's uncompressed size that sizes Parquet
// row groups (see rowSizer), for callers that split output by size.
func ApproxSize(v any) int64 {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		return 0
	}
	return rowSizer(rv.Type())(rv)
}

type parquetWriter[T any] struct {
	pw          *parquet.GenericWriter[T]
	size        func(reflect.Value) int64
	target      int64 // approximate uncompressed bytes per row group
	pending     int64 // approximate uncompressed bytes in the open row group
	writerState       // parquet-go's writer is unusable after an error
}

func (w *parquetWriter[T]) Write(row *T) (err error) {
	if err := w.begin("parquet", row); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			w.err = err
		}
	}()
	defer recoverAs(&err, "parquet: write")
	// parquet-go copies the values into its column buffers, so the caller
	// may reuse row once Write returns.
	if _, err := w.pw.Write(unsafe.Slice(row, 1)); err != nil {
		return fmt.Errorf("parquet: write: %w", err)
	}
	w.pending += w.size(reflect.ValueOf(row).Elem())
	if w.pending >= w.target {
		w.pending = 0
		if err := w.pw.Flush(); err != nil {
			return fmt.Errorf("parquet: flush row group: %w", err)
		}
	}
	return nil
}

func (w *parquetWriter[T]) Close() (err error) {
	if w.closed {
		return w.err
	}
	w.closed = true
	if w.err != nil {
		return w.err
	}
	defer recoverAs(&err, "parquet: close")
	if err := w.pw.Close(); err != nil {
		w.err = fmt.Errorf("parquet: close: %w", err)
	}
	return w.err
}

// pageZstd is the ZSTD page codec of the Parquet writer. parquet-go's own
// (parquet.Zstd) uses klauspost/compress's default 8 MiB window, for which
// every pooled encoder keeps a 16 MiB history buffer: about 32 MiB of heap
// for compressing pages of 256 KiB. Each page is compressed on its own, so
// a 1 MiB window loses nothing and keeps the writer's memory small.
type pageZstd struct{ enc *zstd.Encoder }

func newPageZstd() (*pageZstd, error) {
	enc, err := zstd.NewWriter(nil,
		zstd.WithEncoderConcurrency(1),
		zstd.WithEncoderLevel(zstd.SpeedFastest),
		zstd.WithWindowSize(1<<20),
		zstd.WithLowerEncoderMem(true),
		zstd.WithZeroFrames(true),
		zstd.WithEncoderCRC(false),
	)
	if err != nil {
		return nil, fmt.Errorf("parquet: zstd: %w", err)
	}
	return &pageZstd{enc: enc}, nil
}

func (c *pageZstd) String() string                            { return "ZSTD" }
func (c *pageZstd) CompressionCodec() format.CompressionCodec { return format.Zstd }
func (c *pageZstd) Encode(dst, src []byte) ([]byte, error)    { return c.enc.EncodeAll(src, dst[:0]), nil }
func (c *pageZstd) Decode(dst, src []byte) ([]byte, error)    { return parquet.Zstd.Decode(dst, src) }

// spoolPool is the parquet-go page buffer pool of the writer: each column
// chunk of the open row group accumulates its compressed pages in a
// temporary file, unlinked at once where the OS allows it so nothing is
// left behind by a crash; parquet-go copies the pages to the output when
// the row group is flushed and then returns the buffer. Without it,
// parquet-go holds a whole compressed row group on the heap (13 MiB for a
// 64 MiB row group of dialogue text, ~25 MiB of RSS with the GC's headroom).
type spoolPool struct {
	dir string
	mem parquet.BufferPool // fallback when no temporary file can be made
}

func (p *spoolPool) GetBuffer() io.ReadWriteSeeker {
	f, err := os.CreateTemp(p.dir, "ngkit-parquet-*.tmp")
	if err != nil {
		return p.mem.GetBuffer()
	}
	if runtime.GOOS != "windows" {
		os.Remove(f.Name())
	}
	return f
}

func (p *spoolPool) PutBuffer(b io.ReadWriteSeeker) {
	f, ok := b.(*os.File)
	if !ok {
		p.mem.PutBuffer(b)
		return
	}
	f.Close()
	if runtime.GOOS == "windows" {
		os.Remove(f.Name())
	}
}

// NewParquetReader reads record.Record rows from the Parquet file ra of the
// given size, in batches, without loading the file. name is used in errors.
// Columns are matched by name. Record fields missing from the file stay
// zero (nil for pointers); a column whose shape or type does not fit its
// field is an error. Columns Record does not have are kept in Record.Extra
// as JSON, as JSONL input keeps unknown keys (such a column wins over a key
// of the same name inside the extra column, as a top-level JSONL field
// does). Empty lists and maps read back as nil (see normalizeEmpty).
func NewParquetReader(name string, ra io.ReaderAt, size int64) (_ Reader, err error) {
	defer func() {
		if err != nil {
			err = &PosError{Name: name, Err: err}
		}
	}()
	defer recoverAs(&err, "not a readable Parquet file")
	f, err := parquet.OpenFile(ra, size,
		parquet.SkipPageIndex(true),
		parquet.SkipBloomFilters(true),
		parquet.ReadBufferSize(64<<10),
	)
	if err != nil {
		return nil, fmt.Errorf("not a readable Parquet file: %w", err)
	}
	if err := checkColumns(reflect.TypeFor[record.Record](), f.Schema(), "", 0); err != nil {
		return nil, err
	}
	pr := parquet.NewGenericReader[record.Record](f)
	fix := missingFixer(reflect.TypeFor[record.Record](), f.Schema(), 0)
	r := &parquetReader{name: name, pr: pr, fix: fix}
	// Columns Record does not have go to Extra, read by a second reader
	// projected on them, in step with the first.
	known := map[string]bool{}
	for _, c := range recordColumns() {
		known[c] = true
	}
	unknown := parquet.Group{}
	for _, fl := range f.Schema().Fields() {
		if !known[fl.Name()] {
			unknown[fl.Name()] = fl
		}
	}
	if len(unknown) > 0 {
		r.ur = parquet.NewGenericReader[map[string]any](f, parquet.NewSchema("unknown", unknown))
	}
	return r, nil
}

// recordColumns lists the top-level column names of record.Record.
func recordColumns() []string {
	t := reflect.TypeFor[record.Record]()
	var out []string
	for i := 0; i < t.NumField(); i++ {
		if name, _, skip := columnTag(t.Field(i)); !skip {
			out = append(out, name)
		}
	}
	return out
}

// checkColumns reports a column of the file whose shape or type does not
// fit the Go field of the same name (a turn-rows file read as records, say),
// which parquet-go would otherwise read as zero values without a word.
func checkColumns(t reflect.Type, node parquet.Node, path string, depth int) error {
	if depth > 32 || node == nil || node.Leaf() {
		return nil
	}
	children := map[string]parquet.Node{}
	for _, f := range node.Fields() {
		children[f.Name()] = f
	}
	for i := 0; i < t.NumField(); i++ {
		name, _, skip := columnTag(t.Field(i))
		child := children[name]
		if skip || child == nil {
			continue
		}
		col := path + name
		ft := t.Field(i).Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		group := ft.Kind() == reflect.Struct || ft.Kind() == reflect.Map ||
			(ft.Kind() == reflect.Slice && ft.Elem().Kind() != reflect.Uint8)
		switch {
		case !group && !child.Leaf():
			return fmt.Errorf("column %q is a group in the file, want %s", col, kindName(ft.Kind()))
		case group && child.Leaf(), !group && !leafFits(ft.Kind(), child.Type().Kind()):
			return fmt.Errorf("column %q is %v in the file, want %s", col, child.Type(), kindName(ft.Kind()))
		case ft.Kind() == reflect.Map && isListNode(child):
			// parquet-go would read it as an empty map, silently (a Hugging
			// Face export writes maps as lists of {key, value}).
			return fmt.Errorf("column %q is a list in the file, want a map", col)
		}
		switch ft.Kind() {
		case reflect.Struct:
			if err := checkColumns(ft, child, col+".", depth+1); err != nil {
				return err
			}
		case reflect.Slice:
			et := ft.Elem()
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				if err := checkColumns(et, listElement(child), col+"[].", depth+1); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func isListNode(n parquet.Node) bool {
	lt := n.Type().LogicalType()
	if lt == nil {
		return false
	}
	_, ok := lt.Value.(*format.ListType)
	return ok
}

func kindName(k reflect.Kind) string {
	switch k {
	case reflect.Struct:
		return "a struct"
	case reflect.Slice:
		return "a list"
	case reflect.Map:
		return "a map"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "an integer"
}

func leafFits(k reflect.Kind, pk parquet.Kind) bool {
	switch k {
	case reflect.String:
		return pk == parquet.ByteArray || pk == parquet.FixedLenByteArray
	case reflect.Bool:
		return pk == parquet.Boolean
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return pk == parquet.Int32 || pk == parquet.Int64
	case reflect.Float32, reflect.Float64:
		return pk == parquet.Float || pk == parquet.Double || pk == parquet.Int32 || pk == parquet.Int64
	}
	return true
}

// missingFixer works around parquet-go v0.32.0 reading a file that lacks
// some of T's columns: a pointer field whose columns are all missing comes
// back as a pointer to a zero value instead of nil (whenever the file has
// any optional column). It returns the function that sets such pointers
// back to nil, through structs, pointers and lists of structs, or nil when
// the file has every pointer field of t (files ngkit writes).
func missingFixer(t reflect.Type, node parquet.Node, depth int) func(reflect.Value) {
	if t.Kind() != reflect.Struct || node == nil || node.Leaf() || depth > 32 {
		return nil
	}
	children := map[string]parquet.Node{}
	for _, f := range node.Fields() {
		children[f.Name()] = f
	}
	type fixField struct {
		index int
		fix   func(reflect.Value) // nil: set the field to nil
	}
	var fixes []fixField
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		name, _, skip := columnTag(sf)
		if skip {
			continue
		}
		child := children[name]
		ft := sf.Type
		switch {
		case ft.Kind() == reflect.Pointer && child == nil:
			fixes = append(fixes, fixField{index: i})
		case ft.Kind() == reflect.Pointer:
			if inner := missingFixer(ft.Elem(), child, depth+1); inner != nil {
				fixes = append(fixes, fixField{i, func(v reflect.Value) {
					if !v.IsNil() {
						inner(v.Elem())
					}
				}})
			}
		case ft.Kind() == reflect.Struct:
			if inner := missingFixer(ft, child, depth+1); inner != nil {
				fixes = append(fixes, fixField{i, inner})
			}
		case ft.Kind() == reflect.Slice && child != nil:
			et := ft.Elem()
			var inner func(reflect.Value)
			switch {
			case et.Kind() == reflect.Struct:
				inner = missingFixer(et, listElement(child), depth+1)
			case et.Kind() == reflect.Pointer && et.Elem().Kind() == reflect.Struct:
				if f := missingFixer(et.Elem(), listElement(child), depth+1); f != nil {
					inner = func(v reflect.Value) {
						if !v.IsNil() {
							f(v.Elem())
						}
					}
				}
			}
			if inner != nil {
				fixes = append(fixes, fixField{i, func(v reflect.Value) {
					for j := 0; j < v.Len(); j++ {
						inner(v.Index(j))
					}
				}})
			}
		}
	}
	if len(fixes) == 0 {
		return nil
	}
	return func(v reflect.Value) {
		for _, f := range fixes {
			if f.fix == nil {
				v.Field(f.index).SetZero()
			} else {
				f.fix(v.Field(f.index))
			}
		}
	}
}

// listElement returns the element node of a list column: the grandchild of
// a LIST group (list/element, as ngkit, arrow and pyarrow write it), the
// repeated child of a legacy two-level list, or a bare repeated group.
func listElement(n parquet.Node) parquet.Node {
	if n.Repeated() {
		return n
	}
	fields := n.Fields()
	if n.Leaf() || len(fields) != 1 || !fields[0].Repeated() {
		return nil
	}
	rep := fields[0]
	if inner := rep.Fields(); !rep.Leaf() && len(inner) == 1 {
		return inner[0] // three-level list
	}
	return rep // two-level list of groups
}

type parquetReader struct {
	name  string
	pr    *parquet.GenericReader[record.Record]
	fix   func(reflect.Value)                    // see missingFixer; nil for complete files
	ur    *parquet.GenericReader[map[string]any] // columns Record does not have, or nil
	extra []map[string]any                       // their values for batch
	batch []record.Record
	i     int   // next index in batch
	row   int64 // rows returned so far (the 1-based number of the last one)
	read  int64 // rows read from the file so far
	err   error // returned once batch is drained
}

func (r *parquetReader) Next() (*record.Record, error) {
	if r.i >= len(r.batch) {
		if r.err != nil {
			return nil, r.err
		}
		r.fill()
		if len(r.batch) == 0 {
			return nil, r.err
		}
	}
	rec := &r.batch[r.i]
	r.i++
	r.row++
	v := reflect.ValueOf(rec).Elem()
	if r.fix != nil {
		r.fix(v)
	}
	normalizeEmpty(v)
	if err := rec.DecodeExtra(); err != nil {
		return nil, &PosError{Name: r.name, Pos: "row " + strconv.FormatInt(r.row, 10), Err: err}
	}
	if r.extra != nil {
		if err := addExtra(rec, r.extra[r.i-1]); err != nil {
			return nil, &PosError{Name: r.name, Pos: "row " + strconv.FormatInt(r.row, 10), Err: err}
		}
	}
	return rec, nil
}

// addExtra adds the non-null values of columns Record does not have to
// rec.Extra as JSON. As with JSONL input, a top-level field wins over a key
// of the same name inside the extra column.
func addExtra(rec *record.Record, cols map[string]any) error {
	for k, v := range cols {
		if v == nil {
			continue
		}
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("column %q: %w", k, err)
		}
		if rec.Extra == nil {
			rec.Extra = make(map[string]json.RawMessage, len(cols))
		}
		rec.Extra[k] = b
	}
	return nil
}

// fill reads the next batch into a fresh slice: records already returned
// must stay valid, so the batch memory is never reused.
func (r *parquetReader) fill() {
	batch := make([]record.Record, parquetReadBatch)
	var n int
	var err error
	for try := 0; n == 0 && err == nil; try++ {
		if r.read >= r.pr.NumRows() {
			err = io.EOF
			break
		}
		if try == 8 {
			err = errors.New("corrupt Parquet data: reader made no progress")
			break
		}
		err = func() (err error) {
			defer recoverAs(&err, "corrupt Parquet data")
			n, err = r.pr.Read(batch)
			return err
		}()
		if n < 0 || n > len(batch) {
			n = 0
		}
	}
	if r.ur != nil && n > 0 && (err == nil || errors.Is(err, io.EOF)) {
		extra, uerr := r.readUnknown(n)
		if uerr != nil {
			n, err = 0, uerr
		}
		r.extra = extra
	}
	r.read += int64(n)
	r.batch, r.i = batch[:n], 0
	switch {
	case err == nil:
	case errors.Is(err, io.EOF) && r.read >= r.pr.NumRows():
		r.err = io.EOF
	case errors.Is(err, io.EOF):
		r.err = &PosError{Name: r.name, Pos: "row " + strconv.FormatInt(r.read+1, 10),
			Err: fmt.Errorf("corrupt Parquet data: rows end at %d, the footer says %d", r.read, r.pr.NumRows())}
	default:
		r.err = &PosError{Name: r.name, Pos: "row " + strconv.FormatInt(r.read+1, 10), Err: oneLine(err)}
	}
}

// readUnknown reads the next n rows of the columns Record does not have.
func (r *parquetReader) readUnknown(n int) (_ []map[string]any, err error) {
	defer recoverAs(&err, "corrupt Parquet data")
	rows := make([]map[string]any, n)
	for i := range rows {
		rows[i] = map[string]any{}
	}
	for got := 0; got < n; {
		k, err := r.ur.Read(rows[got:])
		got += k
		if err != nil && (got < n || !errors.Is(err, io.EOF)) {
			return nil, err
		}
		if k == 0 && err == nil {
			return nil, errors.New("corrupt Parquet data: columns out of step")
		}
	}
	return rows, nil
}

func (r *parquetReader) Where() string {
	return r.name + ": row " + strconv.FormatInt(r.row, 10)
}

func (r *parquetReader) Close() (err error) {
	defer recoverAs(&err, "parquet: close")
	if r.ur != nil {
		r.ur.Close()
	}
	return r.pr.Close()
}

// recoverAs turns a panic into *err, for libraries that panic on bad input
// or unsupported types. It must be deferred directly.
func recoverAs(err *error, format string, args ...any) {
	if p := recover(); p != nil {
		msg := fmt.Sprintf(format, args...)
		*err = oneLine(fmt.Errorf("%s: %v", msg, p))
	}
}

// oneLine keeps error messages on one line: some library errors and panic
// values span several.
func oneLine(err error) error {
	if err == nil || !strings.ContainsAny(err.Error(), "\r\n") {
		return err
	}
	return &oneLineError{err}
}

type oneLineError struct{ err error }

func (e *oneLineError) Error() string {
	return strings.Join(strings.Fields(e.err.Error()), " ")
}

func (e *oneLineError) Unwrap() error { return e.err }

// normalizeEmpty sets every empty slice and map reachable from v (through
// struct fields, pointers and slice elements) to nil.
//
// This is the columnar readers' rule for nil versus empty: an empty list or
// map reads back as nil, as it would from JSONL (the fields are omitempty).
// Pointers are kept as they are: a nil pointer reads back nil and a pointer
// to a zero struct reads back as a pointer to a zero struct.
func normalizeEmpty(v reflect.Value) {
	if f := normalizer(v.Type()); f != nil {
		f(v)
	}
}

var normalizers sync.Map // reflect.Type -> func(reflect.Value) (nil when nothing to do)

func normalizer(t reflect.Type) func(reflect.Value) {
	if f, ok := normalizers.Load(t); ok {
		return f.(func(reflect.Value))
	}
	f := buildNormalizer(t, map[reflect.Type]bool{})
	normalizers.Store(t, f)
	return f
}

func buildNormalizer(t reflect.Type, seen map[reflect.Type]bool) func(reflect.Value) {
	if seen[t] {
		// A recursive type: fall back to the dynamic walk.
		return func(v reflect.Value) {
			if f := normalizer(t); f != nil {
				f(v)
			}
		}
	}
	seen[t] = true
	defer delete(seen, t)
	switch t.Kind() {
	case reflect.Map:
		return func(v reflect.Value) {
			if v.Len() == 0 && !v.IsNil() {
				v.SetZero()
			}
		}
	case reflect.Slice:
		elem := buildNormalizer(t.Elem(), seen)
		return func(v reflect.Value) {
			if v.Len() == 0 {
				if !v.IsNil() {
					v.SetZero()
				}
				return
			}
			if elem != nil {
				for i := 0; i < v.Len(); i++ {
					elem(v.Index(i))
				}
			}
		}
	case reflect.Pointer:
		elem := buildNormalizer(t.Elem(), seen)
		if elem == nil {
			return nil
		}
		return func(v reflect.Value) {
			if !v.IsNil() {
				elem(v.Elem())
			}
		}
	case reflect.Struct:
		type field struct {
			i int
			f func(reflect.Value)
		}
		var fields []field
		for i := 0; i < t.NumField(); i++ {
			if !t.Field(i).IsExported() {
				continue
			}
			if f := buildNormalizer(t.Field(i).Type, seen); f != nil {
				fields = append(fields, field{i, f})
			}
		}
		if len(fields) == 0 {
			return nil
		}
		return func(v reflect.Value) {
			for _, f := range fields {
				f.f(v.Field(f.i))
			}
		}
	}
	return nil
}

// rowSizer returns the function estimating the uncompressed size of a row
// of type t, as PLAIN encoding would store it: the length of each string
// plus 4, 8 bytes per number, 1 per bool, for every value reachable through
// fields, pointers, slices and maps. Fields tagged parquet:"-" are skipped.
// It is cheap and approximate, for sizing row groups and record batches.
func rowSizer(t reflect.Type) func(reflect.Value) int64 {
	if f, ok := sizers.Load(t); ok {
		return f.(func(reflect.Value) int64)
	}
	f := buildSizer(t, map[reflect.Type]bool{})
	sizers.Store(t, f)
	return f
}

var sizers sync.Map // reflect.Type -> func(reflect.Value) int64

var (
	mapStringFloat  = reflect.TypeFor[map[string]float64]()
	mapStringString = reflect.TypeFor[map[string]string]()
)

func buildSizer(t reflect.Type, seen map[reflect.Type]bool) func(reflect.Value) int64 {
	if seen[t] {
		return func(v reflect.Value) int64 { return rowSizer(t)(v) }
	}
	seen[t] = true
	defer delete(seen, t)
	switch t.Kind() {
	case reflect.String:
		return func(v reflect.Value) int64 { return int64(v.Len()) + 4 }
	case reflect.Bool:
		return func(reflect.Value) int64 { return 1 }
	case reflect.Pointer:
		elem := buildSizer(t.Elem(), seen)
		return func(v reflect.Value) int64 {
			if v.IsNil() {
				return 1
			}
			return elem(v.Elem())
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return func(v reflect.Value) int64 { return int64(v.Len()) + 4 }
		}
		elem := buildSizer(t.Elem(), seen)
		return func(v reflect.Value) int64 {
			n := int64(1)
			for i := 0; i < v.Len(); i++ {
				n += elem(v.Index(i))
			}
			return n
		}
	case reflect.Map:
		// The label distributions: no reflection per entry.
		if t.Key().Kind() == reflect.String && t.Elem().Kind() == reflect.Float64 {
			return func(v reflect.Value) int64 {
				n := int64(1)
				for k := range v.Convert(mapStringFloat).Interface().(map[string]float64) {
					n += int64(len(k)) + 12
				}
				return n
			}
		}
		if t.Key().Kind() == reflect.String && t.Elem().Kind() == reflect.String {
			return func(v reflect.Value) int64 {
				n := int64(1)
				for k, x := range v.Convert(mapStringString).Interface().(map[string]string) {
					n += int64(len(k)+len(x)) + 8
				}
				return n
			}
		}
		key, elem := buildSizer(t.Key(), seen), buildSizer(t.Elem(), seen)
		return func(v reflect.Value) int64 {
			n := int64(1)
			for it := v.MapRange(); it.Next(); {
				n += key(it.Key()) + elem(it.Value())
			}
			return n
		}
	case reflect.Struct:
		type field struct {
			i int
			f func(reflect.Value) int64
		}
		var fields []field
		for i := 0; i < t.NumField(); i++ {
			sf := t.Field(i)
			if !sf.IsExported() || sf.Tag.Get("parquet") == "-" {
				continue
			}
			fields = append(fields, field{i, buildSizer(sf.Type, seen)})
		}
		return func(v reflect.Value) int64 {
			var n int64
			for _, f := range fields {
				n += f.f(v.Field(f.i))
			}
			return n
		}
	case reflect.Interface:
		return func(v reflect.Value) int64 {
			if v.IsNil() {
				return 1
			}
			return rowSizer(v.Elem().Type())(v.Elem())
		}
	}
	return func(reflect.Value) int64 { return 8 }
}
