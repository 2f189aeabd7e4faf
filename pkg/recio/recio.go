// Package recio reads and writes record streams: JSONL, Parquet and Arrow IPC
// (stream and file), with format sniffing on input, the output format taken
// from a flag or the file extension, and atomic file output. The Arrow form
// of a row type, which the Arrow and Parquet formats share, is
// pkg/recio/arrowcodec's.
package recio

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ngkit/ngkit/pkg/record"
)

// Format is a record file format.
type Format string

// The formats. Arrow is the IPC stream format; ArrowFile the IPC file format
// (random access, "ARROW1" magic).
const (
	JSONL     Format = "jsonl"
	Parquet   Format = "parquet"
	Arrow     Format = "arrow"
	ArrowFile Format = "arrow-file"
)

// Formats lists the formats by name, for flag help and errors.
var Formats = []Format{JSONL, Parquet, Arrow, ArrowFile}

// ParseFormat accepts a format name and common aliases.
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(s) {
	case "jsonl", "ndjson", "json":
		return JSONL, nil
	case "parquet", "pq":
		return Parquet, nil
	case "arrow", "arrows", "arrow-stream", "ipc":
		return Arrow, nil
	case "arrow-file", "feather", "arrowfile":
		return ArrowFile, nil
	}
	return "", fmt.Errorf("unknown format %q (want one of jsonl, parquet, arrow, arrow-file)", s)
}

// FormatFromPath picks a format from a file name's extension; ok is false
// when the extension says nothing.
func FormatFromPath(path string) (Format, bool) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".jsonl", ".ndjson", ".json":
		return JSONL, true
	case ".parquet", ".pq":
		return Parquet, true
	case ".arrows":
		return Arrow, true
	case ".arrow", ".feather", ".ipc":
		return ArrowFile, true
	}
	return "", false
}

// Binary reports whether a format must not be written to a terminal.
func (f Format) Binary() bool { return f != JSONL }

// Reader yields records one at a time.
type Reader interface {
	// Next returns the next record, or io.EOF at the end. Any other error is
	// a *PosError naming the file and position.
	Next() (*record.Record, error)
	// Where names the position of the record last returned ("file:line 12",
	// "file: row 3"), for messages about it.
	Where() string
	Close() error
}

// Writer writes rows of type T (record.Record, or a flat row type such as an
// exploded turn). Close flushes buffered rows and footers; it does not close
// the underlying io.Writer.
type Writer[T any] interface {
	Write(row *T) error
	Close() error
}

// PosError is a read error at a known place in a named input.
type PosError struct {
	Name string // file name, or "-" / "stdin"
	Pos  string // "line 12", "byte 3456", "row 7"
	Err  error
}

func (e *PosError) Error() string {
	if e.Pos == "" {
		return fmt.Sprintf("%s: %v", e.Name, e.Err)
	}
	return fmt.Sprintf("%s:%s: %v", e.Name, e.Pos, e.Err)
}

func (e *PosError) Unwrap() error { return e.Err }

// extraEncoder lets columnar writers fill Record.ExtraJSON for any row type
// that has one.
type extraEncoder interface{ EncodeExtra() error }

// writerState is what the columnar writers share: a sticky error (their
// libraries are unusable after one) and the closed flag.
type writerState struct {
	err    error
	closed bool
}

// begin tells whether a Write may go on, and fills ExtraJSON of rows that
// have it.
func (s *writerState) begin(kind string, row any) error {
	if s.err != nil {
		return s.err
	}
	if s.closed {
		return fmt.Errorf("%s: write after close", kind)
	}
	if e, ok := row.(extraEncoder); ok {
		return e.EncodeExtra()
	}
	return nil
}
