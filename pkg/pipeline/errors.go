package pipeline

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/ngkit/ngkit/pkg/recio"
	"github.com/ngkit/ngkit/pkg/record"
)

// ErrorRecord is one line of the errors file: the record that failed, the
// stage and the reason, and where it came from.
type ErrorRecord struct {
	ID     string         `json:"id"`
	Stage  string         `json:"stage"`
	Error  string         `json:"error"`
	Where  string         `json:"where,omitempty"`
	Record *record.Record `json:"record,omitempty"`
}

// ErrorLog is the --errors file (JSONL of ErrorRecord), written atomically.
// A nil *ErrorLog only reports on stderr.
type ErrorLog struct {
	mu   sync.Mutex
	name string
	out  *recio.Output
	w    recio.Writer[ErrorRecord]
	err  error
	n    int64
}

// OpenErrorLog creates the errors file at path.
func OpenErrorLog(path string) (*ErrorLog, error) {
	out, err := recio.Create(path, recio.JSONL, nil)
	if err != nil {
		return nil, err
	}
	return &ErrorLog{name: path, out: out, w: recio.NewJSONLWriter[ErrorRecord](out.Writer())}, nil
}

// Add records one failed record. With no log, the reason goes to stderr.
func (l *ErrorLog) Add(stderr io.Writer, stage string, rec *record.Record, it Item, err error) {
	e := ErrorRecord{Stage: stage, Error: err.Error(), Record: rec}
	if re := (*RecordError)(nil); errors.As(err, &re) && re.Record != nil {
		e.Record = re.Record
	}
	if rec != nil {
		e.ID = rec.ID
	}
	if it.Name != "" {
		e.Where = it.Name
		if it.Line > 0 {
			e.Where += ":" + strconv.FormatInt(it.Line, 10)
		}
	}
	if l == nil {
		if stderr != nil {
			msg, _, _ := strings.Cut(e.Error, "\n")
			fmt.Fprintf(stderr, "%s: record %s (%s) failed: %s\n", stage, record.PrintableLine(e.ID), record.PrintableLine(e.Where), record.PrintableLine(msg))
		}
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.n++
	if l.err == nil {
		l.err = l.w.Write(&e)
		if big := (*recio.TooLargeError)(nil); errors.As(l.err, &big) && e.Record != nil {
			// The line would be one ngkit cannot read: without the record.
			e.Record = nil
			e.Error += fmt.Sprintf(" [the record is left out of this file: %.1f MiB as JSON, over the %d MiB limit]", float64(big.Size)/(1<<20), recio.MaxRecordBytes>>20)
			l.err = l.w.Write(&e)
		}
	}
}

// Count is the number of records logged.
func (l *ErrorLog) Count() int64 {
	if l == nil {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n
}

// Name is the file name of the log (also once closed).
func (l *ErrorLog) Name() string { return l.name }

// Close flushes and commits the errors file.
func (l *ErrorLog) Close() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	err := l.err
	if e := l.w.Close(); err == nil {
		err = e
	}
	if err != nil {
		l.out.Abort()
		return fmt.Errorf("errors file: %w", err)
	}
	return l.out.Commit()
}

// DropError, returned by a Stage or by Sink.Write, says the record was
// left out on purpose (a filter, a deduplication): it is counted in
// Stats.Dropped, not as a failure, and goes to the errors file with the
// reason, so that no record is lost without a trace.
type DropError struct{ Reason string }

func (e *DropError) Error() string { return "dropped: " + e.Reason }

// By is what dropped the record, for the summary's breakdown: the
// reason's first word, the flag of the filter ("--where", "--dedup").
func (e *DropError) By() string {
	by, _, _ := strings.Cut(e.Reason, " ")
	return strings.TrimSuffix(by, ":")
}

// Drop returns a *DropError with the formatted reason.
func Drop(format string, a ...any) error {
	return &DropError{Reason: fmt.Sprintf(format, a...)}
}

// RecordError, returned by a Stage, fails the record with Err and puts
// Record — what the stage had made of it, e.g. the partial transcript of
// an episode that could not finish — in the errors file in place of the
// input record.
type RecordError struct {
	Record *record.Record
	Err    error
}

func (e *RecordError) Error() string { return e.Err.Error() }
func (e *RecordError) Unwrap() error { return e.Err }
