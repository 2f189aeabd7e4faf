// Package pipeline is the runner every ngkit program shares: read records,
// map them through a stage concurrently with output in input order, write
// them; failed records go to the errors file, never lost; Ctrl-C flushes
// what is done; --shard keeps one slice of the ids. It has no flags and
// no programs: those are in cmd/internal/app.
package pipeline

import (
	"context"
	"errors"
	"io"

	"github.com/ngkit/ngkit/pkg/record"
)

// Stage turns one input record into zero or more output records. It is
// called from several goroutines at once. An error fails only this record:
// it goes to the errors file with the error as the reason.
type Stage interface {
	Name() string
	Process(ctx context.Context, rec *record.Record) ([]*record.Record, error)
}

// StageFunc adapts a function to a Stage.
type StageFunc struct {
	StageName string
	Fn        func(ctx context.Context, rec *record.Record) ([]*record.Record, error)
}

// Name implements Stage.
func (s StageFunc) Name() string { return s.StageName }

// Process implements Stage.
func (s StageFunc) Process(ctx context.Context, rec *record.Record) ([]*record.Record, error) {
	return s.Fn(ctx, rec)
}

// Identity passes records through unchanged.
var Identity Stage = StageFunc{StageName: "cat", Fn: func(_ context.Context, r *record.Record) ([]*record.Record, error) {
	return []*record.Record{r}, nil
}}

// Item is one input unit: a decoded record, or raw bytes with the function
// that decodes them (decoding then runs on the workers, in parallel).
type Item struct {
	Rec    *record.Record
	Raw    []byte
	Decode func(raw []byte) (*record.Record, error)
	// Name and Line locate the item in its input, for error messages
	// (Line is a line number for JSONL, a row or element number otherwise).
	Name string
	Line int64
	// Err, when set, fails this record as it was read (an imported row
	// that is not a valid record): it goes to the errors file with Err and
	// Rec (what could be read of it), and the run goes on.
	Err error
}

// Source yields input items in order; io.EOF at the end. Any other error
// is fatal (unreadable input) and should name the file and position.
type Source interface {
	Next() (Item, error)
	Close() error
}

// Sink receives output records in input order.
type Sink interface {
	// Write takes one record. Returning ErrStop says the record was taken
	// and is the last one wanted: the run ends early and successfully
	// (e.g. --head).
	Write(rec *record.Record) error
	// Close flushes and commits the output.
	Close() error
	// Abort discards the output (nothing under a final file name).
	Abort()
}

// ErrStop, returned by Sink.Write, ends a run early without error.
var ErrStop = errors.New("stop")

// sliceSource serves records from memory (tests, small programs).
type sliceSource struct {
	recs []*record.Record
	i    int
}

// SliceSource returns a Source over recs.
func SliceSource(recs []*record.Record) Source { return &sliceSource{recs: recs} }

func (s *sliceSource) Next() (Item, error) {
	if s.i >= len(s.recs) {
		return Item{}, io.EOF
	}
	s.i++
	return Item{Rec: s.recs[s.i-1]}, nil
}

func (s *sliceSource) Close() error { return nil }
