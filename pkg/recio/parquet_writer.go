package recio

import (
	"fmt"
	"io"
	"reflect"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/ngkit/ngkit/pkg/recio/arrowcodec"
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

// parquetBatchBytes bounds the Arrow batches the Parquet writer encodes
// (approximate uncompressed bytes; see arrowcodec.RowSizer): two are in memory at a
// time, one being built and one being encoded.
const parquetBatchBytes = 2 << 20

// Data pages are cut once they pass parquetPageBytes, checked every
// parquetPageValues values (see parquetWriterProperties).
const (
	parquetPageBytes  = 1_900_000
	parquetPageValues = 64
)

// WriteOptions tune the columnar writers.
type WriteOptions struct {
	// RowGroupBytes is the target of approximate uncompressed bytes per
	// Parquet row group (the sum of the row's string lengths plus 8 bytes
	// per number; see arrowcodec.RowSizer). 0 means DefaultRowGroupBytes; values above
	// MaxRowGroupBytes are lowered to it.
	RowGroupBytes int64
	// TempDir is no longer used: the writer keeps the open row group's
	// compressed pages in memory (a few MiB). Kept for callers.
	TempDir string
	// ZstdLevel is the zstd level of every Parquet column, 1 to 22 as
	// zstd counts (libzstd's; without cgo klauspost/compress has four
	// encoders: 1-2, 3-5, 6-9 and 10 and above). 0 means DefaultZstdLevel.
	ZstdLevel int
}

// DefaultZstdLevel is the zstd level of Parquet output (DuckDB's and
// pyarrow's default). On the release import with libzstd, level 7 makes
// the file 9% smaller for about 1.6x the CPU, and 11 makes it 12% smaller
// (5% under DuckDB's) for about 2.5x: the encoder is the import's critical
// path, so the default is the fast one and the trade is the user's.
const DefaultZstdLevel = 3

// MaxZstdLevel is zstd's highest level.
const MaxZstdLevel = 22

func (o WriteOptions) zstdLevel() int {
	if o.ZstdLevel <= 0 {
		return DefaultZstdLevel
	}
	return min(o.ZstdLevel, MaxZstdLevel)
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

// ApproxSize is the estimate of v's uncompressed size that sizes Parquet
// row groups (see arrowcodec.RowSizer), for callers that split output by size.
func ApproxSize(v any) int64 {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		return 0
	}
	return arrowcodec.RowSizer(rv.Type())(rv)
}

// NewParquetWriter returns a Writer of Parquet rows of type T, a struct
// (record.Record, record.TurnRow). The rows become Arrow record batches
// with the schema of the Arrow writers (see arrowcodec.SchemaOf: lists are
// Parquet LISTs, maps lists of {key, value}), written by arrow-go's
// pqarrow: zstd pages of about 2 MiB, dictionary encoding for every column
// with PLAIN when a column chunk's dictionary outgrows 1 MiB, v1 data pages,
// statistics and the page index. If *T has EncodeExtra, it is called on
// each row before it is encoded.
//
// Every Parquet file ngkit writes goes through here (-o and --hf): one
// schema and one writer, whose null handling is arrow-go's (definition
// levels from the Arrow validity bitmaps).
//
// A row group is closed when the approximate uncompressed size of its rows
// reaches opt.RowGroupBytes; its compressed pages are held in memory until
// then. Batches are encoded on a second goroutine while the caller builds
// the next one. Close writes the footer; it does not close w.
func NewParquetWriter[T any](w io.Writer, opt WriteOptions) (_ Writer[T], err error) {
	return newParquetWriter[T](w, opt, memory.DefaultAllocator)
}

func newParquetWriter[T any](w io.Writer, opt WriteOptions, mem memory.Allocator) (_ Writer[T], err error) {
	t := reflect.TypeFor[T]()
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("parquet: cannot write rows of type %v: want a struct", t)
	}
	bb, err := arrowcodec.NewBuilder[T](mem, parquetBatchBytes)
	if err != nil {
		return nil, fmt.Errorf("parquet: %w", err)
	}
	fw, err := pqarrow.NewFileWriter(bb.Schema(), writeOnly{w}, parquetWriterProperties(mem, opt.zstdLevel()),
		pqarrow.NewArrowWriterProperties(pqarrow.WithAllocator(mem)))
	if err != nil {
		bb.Release()
		return nil, fmt.Errorf("parquet: %w", err)
	}
	pw := &parquetWriter[T]{bb: bb, fw: fw, target: opt.rowGroupBytes(), batches: make(chan sizedBatch), done: make(chan struct{})}
	go pw.encode()
	return pw, nil
}

// writeOnly hides w's Close: pqarrow closes a writer that has one.
type writeOnly struct{ io.Writer }

// parquetWriterProperties are the properties of every Parquet file ngkit
// writes, at a zstd level.
func parquetWriterProperties(mem memory.Allocator, level int) *parquet.WriterProperties {
	props := []parquet.WriterProperty{
		parquet.WithAllocator(mem),
		parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithCompressionLevel(level),
		parquet.WithDictionaryDefault(true),
		parquet.WithDataPageVersion(parquet.DataPageV1),
		parquet.WithPageIndexEnabled(true),
		parquet.WithCreatedBy("ngkit (arrow-go parquet)"),
	}
	// Free text is PLAIN from the start: a dictionary of unique strings
	// only costs hashing until it outgrows its limit and falls back.
	//
	// Pages are cut near 1.9 MB, after at most 64 values, so that they end
	// under 2 MiB: arrow-go grows each column's page buffer to the next
	// power of two of the page, so with 1 MiB pages (cut after up to 1,024
	// values: 1.1-1.4 MB) the text columns already held 2 MiB buffers. On
	// the release that is 0.7% smaller (fewer, longer zstd frames) at the
	// same CPU and RSS, 3 GC cycles fewer. Pages of 4-16 MiB come nearer
	// DuckDB's (one page per column chunk: -1.6% to -2%) but each text
	// column's buffers grow with them, and under the 80 MiB soft limit the
	// GC then costs 15-30% more CPU (or +30 MiB RSS with the limit raised).
	// Nor DELTA_LENGTH_BYTE_ARRAY for free text (PLAIN's length prefixes out of
	// zstd's way): 1.1% smaller at the same CPU, but TestParquetWriterMemory's
	// peak live heap went from 64-83 MB to 74-95 MB; for ids it is worse
	// (random hex without the prefixes is stored raw by zstd's fast levels,
	// 70% bigger). Per-column zstd levels above 3 for the small columns
	// saved 0.4%; the all-null nested columns (labels, labels_human: 48
	// leaves of about 8 KB of levels each) cost the same in DuckDB's writer.
	props = append(props, parquet.WithDataPageSize(parquetPageBytes), parquet.WithBatchSize(parquetPageValues))
	for _, path := range plainColumns {
		props = append(props, parquet.WithDictionaryFor(path, false))
	}
	return parquet.NewWriterProperties(props...)
}

// plainColumns are the free-text columns of record.Record and
// record.TurnRow, by Parquet path.
var plainColumns = []string{
	"id", "parent_id", "scenario", "situation", "extra", "record_id", "text",
	"narration.list.element", "refinement.critique",
	"turns.list.element.text", "turns.list.element.action", "turns.list.element.labels.explanation",
}

// ParquetArrowSchema is the Arrow schema of the Parquet (and Arrow) files
// written for rows of type t, for callers that describe them (the dataset
// card's features).
func ParquetArrowSchema(t reflect.Type) (*arrow.Schema, error) {
	return arrowcodec.SchemaOf(t)
}

type sizedBatch struct {
	rec   arrow.RecordBatch
	bytes int64
}

type parquetWriter[T any] struct {
	bb      *arrowcodec.Builder[T]
	fw      *pqarrow.FileWriter
	target  int64 // approximate uncompressed bytes per row group
	batches chan sizedBatch
	done    chan struct{} // closed when encode returns

	mu     sync.Mutex
	encErr error // the encoder's first error

	writerState
}

// encode writes the batches to the file, on its own goroutine; after an
// error it drains the channel.
func (w *parquetWriter[T]) encode() {
	defer close(w.done)
	var pending int64 // approximate uncompressed bytes in the open row group
	for b := range w.batches {
		if w.encodeErr() == nil {
			err := func() (err error) {
				defer recoverAs(&err, "parquet: write")
				if pending >= w.target {
					pending = 0
					if err := w.fw.NewBufferedRowGroupChecked(); err != nil {
						return err
					}
				}
				pending += b.bytes
				return w.fw.WriteBuffered(b.rec)
			}()
			if err != nil {
				w.mu.Lock()
				w.encErr = fmt.Errorf("parquet: write: %w", oneLine(err))
				w.mu.Unlock()
			}
		}
		b.rec.Release()
	}
}

func (w *parquetWriter[T]) encodeErr() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.encErr
}

func (w *parquetWriter[T]) Write(row *T) (err error) {
	if err := w.begin("parquet", row); err != nil {
		return err
	}
	if err := w.encodeErr(); err != nil {
		w.err = err
		return err
	}
	defer func() {
		if err != nil {
			w.err = err
		}
	}()
	defer recoverAs(&err, "parquet: write")
	if w.bb.Add(row) {
		w.send()
	}
	return nil
}

func (w *parquetWriter[T]) send() {
	if rec, n := w.bb.Batch(); rec != nil {
		w.batches <- sizedBatch{rec, n}
	}
}

func (w *parquetWriter[T]) Close() (err error) {
	if w.closed {
		return w.err
	}
	w.closed = true
	defer w.bb.Release()
	defer recoverAs(&err, "parquet: close")
	if w.err == nil {
		w.send()
	}
	close(w.batches)
	<-w.done
	if w.err != nil {
		return w.err
	}
	if err := w.encodeErr(); err != nil {
		w.err = err
		return err
	}
	if err := w.fw.Close(); err != nil {
		w.err = fmt.Errorf("parquet: close: %w", oneLine(err))
	}
	return w.err
}
