package arrowcodec

import (
	"reflect"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// BatchRows is the most rows a Builder puts in a record batch.
const BatchRows = 1024

// Builder turns rows of type T into Arrow record batches of up to
// BatchRows rows or about a given size: the one place where Go values
// become columns, for the Arrow and the Parquet writers alike.
type Builder[T any] struct {
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

// NewBuilder returns a Builder of batches of about maxBytes (as RowSizer
// estimates them), with the schema SchemaOf gives T.
func NewBuilder[T any](mem memory.Allocator, maxBytes int64) (*Builder[T], error) {
	t := reflect.TypeFor[T]()
	schema, cols, err := schemaOf(t)
	if err != nil {
		return nil, err
	}
	rb := array.NewRecordBuilder(mem, schema)
	bb := &Builder[T]{schema: schema, rb: rb, size: RowSizer(t), max: maxBytes}
	for i, c := range cols {
		bb.cols = append(bb.cols, boundCol{index: c.index, enc: c.enc(rb.Field(i), &bb.flush)})
	}
	return bb, nil
}

// Add appends a row; it reports whether the batch is full.
func (b *Builder[T]) Add(row *T) bool {
	v := reflect.ValueOf(row).Elem()
	for _, c := range b.cols {
		c.enc(v.Field(c.index))
	}
	b.rows++
	b.bytes += b.size(v)
	return b.rows >= BatchRows || b.bytes >= b.max
}

// Batch returns the rows added since the last call as a record batch
// (nil when there are none) and the estimate of their size; the caller
// releases it.
func (b *Builder[T]) Batch() (arrow.RecordBatch, int64) {
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

// Schema is the schema of the batches.
func (b *Builder[T]) Schema() *arrow.Schema { return b.schema }

// Release frees the builder's buffers.
func (b *Builder[T]) Release() { b.rb.Release() }
