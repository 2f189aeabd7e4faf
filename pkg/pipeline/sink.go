package pipeline

import (
	"github.com/ngkit/ngkit/pkg/recio"
	"github.com/ngkit/ngkit/pkg/record"
)

// PreEncoder is a Sink that can do the costly part of writing — encoding —
// on the workers, in parallel, leaving only the copy of bytes to the
// ordered writer.
type PreEncoder interface {
	// PreEncode encodes the rows of rec; nil, nil when this sink cannot.
	PreEncode(rec *record.Record) ([]byte, error)
	// WriteEncoded writes what PreEncode made, in order.
	WriteEncoded(b []byte) error
}

// RowSink writes each record, converted to rows of T, to one output.
type RowSink[T any] struct {
	out   *recio.Output
	w     recio.Writer[T]
	jsonl *recio.JSONLWriter[T] // set when the output is JSONL
	conv  func(*record.Record) []T
}

// NewRowSink writes rows made by conv to out.
func NewRowSink[T any](out *recio.Output, opt recio.WriteOptions, conv func(*record.Record) []T) (*RowSink[T], error) {
	w, err := recio.NewWriter[T](out, opt)
	if err != nil {
		out.Abort()
		return nil, err
	}
	jw, _ := w.(*recio.JSONLWriter[T])
	return &RowSink[T]{out: out, w: w, jsonl: jw, conv: conv}, nil
}

// NewRecordSink writes records as they are.
func NewRecordSink(out *recio.Output, opt recio.WriteOptions) (Sink, error) {
	s, err := NewRowSink[record.Record](out, opt, nil)
	if err != nil {
		return nil, err
	}
	return recordSink{s}, nil
}

type recordSink struct{ *RowSink[record.Record] }

func (s recordSink) Write(r *record.Record) error { return s.w.Write(r) }

func (s recordSink) PreEncode(r *record.Record) ([]byte, error) {
	if s.jsonl == nil {
		return nil, nil
	}
	return recio.EncodeJSONL(nil, r)
}

// Write implements Sink.
func (s *RowSink[T]) Write(r *record.Record) error {
	for _, row := range s.conv(r) {
		if err := s.w.Write(&row); err != nil {
			return err
		}
	}
	return nil
}

// PreEncode implements PreEncoder for JSONL output.
func (s *RowSink[T]) PreEncode(r *record.Record) ([]byte, error) {
	if s.jsonl == nil {
		return nil, nil
	}
	var b []byte
	for _, row := range s.conv(r) {
		var err error
		if b, err = recio.EncodeJSONL(b, &row); err != nil {
			return nil, err
		}
	}
	if b == nil {
		b = []byte{} // no rows is still "encoded"
	}
	return b, nil
}

// WriteEncoded implements PreEncoder.
func (s *RowSink[T]) WriteEncoded(b []byte) error { return s.jsonl.WriteLines(b) }

// Flush implements Flusher: JSONL lines buffered so far go out now (a
// columnar format can only be written whole).
func (s *RowSink[T]) Flush() error {
	if s.jsonl == nil {
		return nil
	}
	return s.jsonl.Flush()
}

// Close implements Sink: flush the writer, then commit the file.
func (s *RowSink[T]) Close() error {
	if err := s.w.Close(); err != nil {
		s.out.Abort()
		return err
	}
	return s.out.Commit()
}

// Abort implements Sink.
func (s *RowSink[T]) Abort() { s.out.Abort() }
