package recio

import (
	"reflect"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// batchBuilder turns rows of type T into Arrow record batches of up to
// arrowBatchRows rows or about arrowBatchBytes: the one place where Go
// values become columns, for the Arrow and the Parquet writers alike.
type batchBuilder[T any] struct {
	schema *arrow.Schema
	rb     *array.RecordBuilder
	cols   []boundCol
	flush  flushers // deferred appends, done before a batch is taken
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
		bb.cols = append(bb.cols, boundCol{index: c.index, enc: c.enc(rb.Field(i), &bb.flush)})
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
	for _, f := range b.flush {
		f()
	}
	n := b.bytes
	b.rows, b.bytes = 0, 0
	return b.rb.NewRecordBatch(), n
}

func (b *batchBuilder[T]) release() { b.rb.Release() }
