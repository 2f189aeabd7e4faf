package recio

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"golang.org/x/term"
)

// Output is a destination: stdout, or a file written atomically (a
// temporary file beside it, renamed over the final name by Commit).
type Output struct {
	w      io.Writer
	tmp    *os.File
	final  string
	Format Format
}

// IsTerminal reports whether w is a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// ResolveFormat picks the output format: the flag if given, else the
// extension of path, else (no extension) JSONL. An extension that names no
// format (out.csv, out.jsonl.gz) is refused rather than written as JSONL
// under a name that says otherwise.
func ResolveFormat(flag, path string) (Format, error) {
	if flag != "" {
		return ParseFormat(flag)
	}
	if f, ok := FormatFromPath(path); ok {
		return f, nil
	}
	if ext := filepath.Ext(path); ext != "" && path != "-" {
		return "", fmt.Errorf("-o %s: unknown extension %s: want .jsonl, .parquet, .arrows (Arrow IPC stream) or .arrow (IPC file), or give --format", path, ext)
	}
	return JSONL, nil
}

// Create opens path ("" or "-" for stdout) for writing in format. Binary
// formats are refused on a terminal.
func Create(path string, format Format, stdout io.Writer) (*Output, error) {
	if path == "" || path == "-" {
		if stdout == nil {
			stdout = os.Stdout
		}
		if format.Binary() && IsTerminal(stdout) {
			return nil, fmt.Errorf("refusing to write %s to a terminal: redirect stdout or use -o FILE", format)
		}
		return &Output{w: stdout, Format: format}, nil
	}
	dir := filepath.Dir(path)
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("%s: %w", path, unwrapPathError(err))
		}
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, unwrapPathError(err))
	}
	return &Output{w: tmp, tmp: tmp, final: path, Format: format}, nil
}

// Writer is where rows go.
func (o *Output) Writer() io.Writer { return o.w }

// Name is the final file name, or "stdout".
func (o *Output) Name() string {
	if o.tmp == nil {
		return "stdout"
	}
	return o.final
}

// Commit makes the written file visible under its final name.
func (o *Output) Commit() error {
	if o.tmp == nil {
		return nil
	}
	tmp := o.tmp
	o.tmp = nil
	err := tmp.Sync()
	if e := tmp.Close(); err == nil {
		err = e
	}
	if err == nil {
		// CreateTemp makes 0600 files; an output file should look like any other.
		err = os.Chmod(tmp.Name(), 0o666&^umask())
	}
	if err == nil {
		err = os.Rename(tmp.Name(), o.final)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("%s: %w", o.final, err)
	}
	return nil
}

// Abort removes the temporary file: nothing appears under the final name.
func (o *Output) Abort() {
	if o.tmp == nil {
		return
	}
	o.tmp.Close()
	os.Remove(o.tmp.Name())
	o.tmp = nil
}

// NewWriter returns a writer of rows of T in the output's format.
func NewWriter[T any](o *Output, opt WriteOptions) (Writer[T], error) {
	switch o.Format {
	case JSONL:
		return NewJSONLWriter[T](o.w), nil
	case Parquet:
		return NewParquetWriter[T](o.w, opt)
	case Arrow:
		return NewArrowWriter[T](o.w, false)
	case ArrowFile:
		return NewArrowWriter[T](o.w, true)
	}
	return nil, errors.New("unknown output format " + string(o.Format))
}
