package recio

import (
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/ngkit/ngkit/pkg/recio/arrowcodec"
)

// Record batches written by the Arrow writers end at whichever comes first.
const (
	arrowBatchRows  = arrowcodec.BatchRows
	arrowBatchBytes = 8 << 20 // approximate, as estimated by arrowcodec.RowSizer
)

// NewArrowWriter returns a Writer of rows of type T, a struct, as Arrow IPC:
// the stream format, or the file format ("ARROW1" magic, footer) when file
// is true. Rows are buffered into record batches of up to 1024 rows or about
// 8 MiB. If *T has EncodeExtra, it is called on each row before it is
// encoded. Close writes the end of stream (and the file footer); it does not
// close w.
//
// The schema is derived from T's struct tags (see arrowcodec.SchemaOf): the column
// names are the Parquet column names, which are the JSON names.
func NewArrowWriter[T any](w io.Writer, file bool) (Writer[T], error) {
	return newArrowWriter[T](w, file, memory.DefaultAllocator)
}

func newArrowWriter[T any](w io.Writer, file bool, mem memory.Allocator) (_ Writer[T], err error) {
	bb, err := arrowcodec.NewBuilder[T](mem, arrowBatchBytes)
	if err != nil {
		return nil, err
	}
	var out interface {
		Write(arrow.RecordBatch) error
		Close() error
	}
	if file {
		fw, err := ipc.NewFileWriter(w, ipc.WithSchema(bb.Schema()), ipc.WithAllocator(mem))
		if err != nil {
			bb.Release()
			return nil, fmt.Errorf("arrow: %w", err)
		}
		out = fw
	} else {
		out = ipc.NewWriter(w, ipc.WithSchema(bb.Schema()), ipc.WithAllocator(mem))
	}
	return &arrowWriter[T]{bb: bb, out: out}, nil
}

type arrowWriter[T any] struct {
	bb  *arrowcodec.Builder[T]
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
	if w.bb.Add(row) {
		return w.flush()
	}
	return nil
}

func (w *arrowWriter[T]) flush() error {
	rec, _ := w.bb.Batch()
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
	defer w.bb.Release()
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
