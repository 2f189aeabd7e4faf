package recio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ngkit/ngkit/pkg/recio/arrowcodec"
	"github.com/ngkit/ngkit/pkg/record"
)

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
		opts := arrowReadOptions(mem)
		sr, err = ipc.NewReaderFromMessageReader(ipc.NewMessageReader(tr, opts...), opts...)
		return err
	}()
	if err != nil {
		return nil, fmt.Errorf("not a readable Arrow IPC stream: %w", oneLine(err))
	}
	dec, err := arrowcodec.NewDecoder(sr.Schema())
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
		fr, err = ipc.NewFileReader(io.NewSectionReader(ra, 0, size), arrowReadOptions(mem)...)
		return err
	}()
	if err != nil {
		return nil, fmt.Errorf("not a readable Arrow IPC file: %w", oneLine(err))
	}
	dec, err := arrowcodec.NewDecoder(fr.Schema())
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
	dec   *arrowcodec.Decoder
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
		if !batch.Schema().Equal(r.dec.Schema()) {
			return nil, &PosError{Name: r.name, Pos: "row " + strconv.FormatInt(r.row+1, 10),
				Err: errors.New("record batch schema differs from the stream schema")}
		}
		r.cur, r.i, r.n = r.dec.Bind(batch), 0, int(batch.NumRows())
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
