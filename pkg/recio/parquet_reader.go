package recio

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/ngkit/ngkit/pkg/recio/arrowcodec"
)

// parquetReadBatch is how many rows the Parquet reader decodes at a time.
const parquetReadBatch = 256

// NewParquetReader reads record.Record rows from the Parquet file ra of the
// given size, a batch of rows at a time, without loading the file. name is
// used in errors. The file is read with arrow-go's pqarrow and decoded as
// Arrow input is (see NewArrowReader): columns are matched by name, in any
// order; Record fields missing from the file stay zero; a column whose
// type does not fit its field is an error; columns Record does not have
// are kept in Record.Extra as JSON; maps may be Parquet MAPs or lists of
// {key, value}; any encoding and page version arrow-go reads will do.
func NewParquetReader(name string, ra io.ReaderAt, size int64) (Reader, error) {
	return newParquetReader(name, ra, size, memory.DefaultAllocator)
}

func newParquetReader(name string, ra io.ReaderAt, size int64, mem memory.Allocator) (_ Reader, err error) {
	defer func() {
		if err != nil {
			err = &PosError{Name: name, Err: err}
		}
	}()
	defer recoverAs(&err, "not a readable Parquet file")
	props := parquet.NewReaderProperties(mem)
	// Stream column chunks through a small buffer instead of reading each
	// whole chunk into memory.
	props.BufferedStreamEnabled = true
	props.BufferSize = 64 << 10
	pf, err := file.NewParquetReader(io.NewSectionReader(ra, 0, size), file.WithReadProps(props))
	if err != nil {
		return nil, fmt.Errorf("not a readable Parquet file: %w", oneLine(err))
	}
	if err := checkChunks(pf, size); err != nil {
		pf.Close()
		return nil, fmt.Errorf("not a readable Parquet file: %w", err)
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: parquetReadBatch}, mem)
	if err != nil {
		pf.Close()
		return nil, fmt.Errorf("not a readable Parquet file: %w", oneLine(err))
	}
	rr, err := fr.GetRecordReader(context.Background(), nil, nil)
	if err != nil {
		pf.Close()
		return nil, fmt.Errorf("not a readable Parquet file: %w", oneLine(err))
	}
	dec, err := arrowcodec.NewDecoder(rr.Schema())
	if err != nil {
		rr.Release()
		pf.Close()
		return nil, err
	}
	total := pf.NumRows()
	var read int64
	ar := &arrowReader{name: name, dec: dec}
	ar.next = func() (arrow.RecordBatch, error) {
		if rr.Next() {
			rec := rr.RecordBatch() // valid until the next call
			read += rec.NumRows()
			return rec, nil
		}
		if err := rr.Err(); err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("corrupt Parquet data: %w", err)
		}
		if read != total {
			return nil, fmt.Errorf("corrupt Parquet data: rows end at %d, the footer says %d", read, total)
		}
		return nil, io.EOF
	}
	ar.close = func() error {
		rr.Release()
		return pf.Close()
	}
	return ar, nil
}

// checkChunks checks that every column chunk named in the footer lies in
// the file. pqarrow opens the chunks of struct fields on goroutines of its
// own, where a corrupt offset or length panics out of reach of recover and
// takes the process down.
func checkChunks(pf *file.Reader, size int64) error {
	md := pf.MetaData()
	for g := 0; g < md.NumRowGroups(); g++ {
		rg := md.RowGroup(g)
		for c := 0; c < rg.NumColumns(); c++ {
			col, err := rg.ColumnChunk(c)
			if err != nil {
				return err
			}
			start := col.DataPageOffset()
			if col.HasDictionaryPage() && col.DictionaryPageOffset() > 0 && start > col.DictionaryPageOffset() {
				start = col.DictionaryPageOffset()
			}
			n := col.TotalCompressedSize()
			if start < 4 || n < 0 || start > size || n > size-start {
				return fmt.Errorf("row group %d column %d: chunk at %d of %d bytes outside the file of %d bytes (truncated or corrupt)", g, c, start, n, size)
			}
		}
	}
	return nil
}

// ParquetRows is the number of rows the footer of the Parquet file ra of
// the given size gives, without reading a page (the progress bar's total).
// It is arrow-go's footer reader, the one every Parquet read goes
// through, so that no second Parquet library is linked for a count.
func ParquetRows(ra io.ReaderAt, size int64) (rows int64, err error) {
	defer recoverAs(&err, "not a readable Parquet file")
	pf, err := file.NewParquetReader(io.NewSectionReader(ra, 0, size))
	if err != nil {
		return 0, err
	}
	defer pf.Close()
	return pf.NumRows(), nil
}
