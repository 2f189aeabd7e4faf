package pipeline

import (
	"github.com/ngkit/ngkit/pkg/recio"
	"github.com/ngkit/ngkit/pkg/record"
)

// RowSink writes each record, converted to rows of T, to one output.
type RowSink[T any] struct {
	out  *recio.Output
	w    recio.Writer[T]
	conv func(*record.Record) []T
}

// NewRowSink writes rows made by conv to out.
func NewRowSink[T any](out *recio.Output, opt recio.WriteOptions, conv func(*record.Record) []T) (*RowSink[T], error) {
	w, err := recio.NewWriter[T](out, opt)
	if err != nil {
		out.Abort()
		return nil, err
	}
	return &RowSink[T]{out: out, w: w, conv: conv}, nil
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

// Write implements Sink.
func (s *RowSink[T]) Write(r *record.Record) error {
	for _, row := range s.conv(r) {
		if err := s.w.Write(&row); err != nil {
			return err
		}
	}
	return nil
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
