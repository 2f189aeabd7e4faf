package recio

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/ngkit/ngkit/pkg/record"
)

// Magic numbers used to sniff input.
var (
	magicParquet   = []byte("PAR1")
	magicArrowFile = []byte("ARROW1")
	magicArrowIPC  = []byte{0xff, 0xff, 0xff, 0xff} // continuation marker of an IPC stream message
	magicGzip      = []byte{0x1f, 0x8b}
	magicZstd      = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// ErrEmpty is Sniff's error for an input with no bytes at all (or blank
// lines only); Open reads such an input as a JSONL stream of no records.
var ErrEmpty = errors.New("empty input")

// PeekHead peeks at the start of an input, enough to sniff its format and
// no more: a JSONL stream is recognised at its first '{' even if a slow
// upstream stage has written only that, binary formats at their 8-byte
// magic, and blank lines are skipped (up to 64 KiB of them).
func PeekHead(br *bufio.Reader) ([]byte, error) {
	for n := 1; ; n++ {
		b, err := br.Peek(n)
		if err != nil || n >= 64<<10 {
			return b, err
		}
		t := bytes.TrimLeft(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")), " \t\r\n")
		switch {
		case len(t) == 0:
			// only blanks so far
		case t[0] == '{' || t[0] == '[':
			return b, nil
		case len(b) >= 8:
			return b, nil
		}
	}
}

// Sniff names the format of an input from its first bytes. JSONL is any
// input whose first non-blank byte is '{'.
func Sniff(head []byte) (Format, error) {
	switch {
	case bytes.HasPrefix(head, magicParquet):
		return Parquet, nil
	case bytes.HasPrefix(head, magicArrowFile):
		return ArrowFile, nil
	case bytes.HasPrefix(head, magicArrowIPC):
		return Arrow, nil
	}
	t := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n")
	switch {
	case len(head) == 0:
		return "", ErrEmpty
	case len(t) == 0 && len(head) < 4096:
		return "", ErrEmpty // blank lines only
	case len(t) == 0 || t[0] == '{':
		return JSONL, nil
	case t[0] == '[':
		return "", errors.New("input is a JSON array, not JSONL (one object per line); for the NormGenesis release use ngcat --from normgenesis")
	}
	n := len(head)
	if n > 8 {
		n = 8
	}
	return "", fmt.Errorf("unknown input format (starts with %q); want JSONL, Parquet or Arrow IPC", head[:n])
}

// OpenOptions tune Open.
type OpenOptions struct {
	// Stdin is read when the name is "" or "-"; os.Stdin when nil.
	Stdin io.Reader
	// TempDir holds the temporary copy of a columnar file read from a pipe.
	TempDir string
}

// Open opens a named input ("" or "-" for stdin), sniffs its format and
// returns a Reader for it. Gzip- and zstd-compressed JSONL are unpacked on
// the fly. Parquet and Arrow files read from a pipe are first copied to a
// temporary file, since their footer is at the end.
func Open(name string, opt OpenOptions) (Reader, error) {
	display := name
	var src io.Reader
	var file *os.File
	var closer io.Closer
	if name == "" || name == "-" {
		display = "stdin"
		src = opt.Stdin
		if src == nil {
			src = os.Stdin
		}
	} else {
		f, err := os.Open(name)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, unwrapPathError(err))
		}
		if st, err := f.Stat(); err == nil && st.IsDir() {
			f.Close()
			return nil, fmt.Errorf("%s: is a directory", name)
		}
		src, file, closer = f, f, f
	}
	br, compressed, err := Decompress(src)
	if err != nil {
		closeQuietly(closer)
		return nil, fmt.Errorf("%s: %w", display, err)
	}
	if compressed {
		file = nil // no random access into a compressed stream
	}
	head, err := PeekHead(br)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		closeQuietly(closer)
		return nil, fmt.Errorf("%s: %w", display, err)
	}
	format, err := Sniff(head)
	if errors.Is(err, ErrEmpty) {
		// An empty input is an empty dataset: a stage upstream with no
		// survivors does not make the pipeline a usage error.
		format, err = JSONL, nil
	}
	if err != nil {
		closeQuietly(closer)
		return nil, fmt.Errorf("%s: %w", display, err)
	}
	switch format {
	case JSONL:
		r := NewJSONLReader(display, br)
		r.c = closer
		return r, nil
	case Arrow:
		r, err := NewArrowReader(display, br)
		if err != nil {
			closeQuietly(closer)
			return nil, err
		}
		return withCloser(r, closer), nil
	}
	// Parquet and Arrow file need random access.
	var tmp *os.File
	if file == nil {
		tmp, err = os.CreateTemp(opt.TempDir, "ngkit-input-*")
		if err != nil {
			closeQuietly(closer)
			return nil, fmt.Errorf("%s: buffering %s input: %w", display, format, err)
		}
		os.Remove(tmp.Name()) // unlinked now: nothing is left behind whatever happens
		if _, err := io.Copy(tmp, br); err != nil {
			tmp.Close()
			closeQuietly(closer)
			return nil, fmt.Errorf("%s: buffering %s input: %w", display, format, err)
		}
		closeQuietly(closer)
		file, closer = tmp, tmp
	}
	st, err := file.Stat()
	if err != nil {
		closeQuietly(closer)
		return nil, fmt.Errorf("%s: %w", display, err)
	}
	var r Reader
	if format == Parquet {
		r, err = NewParquetReader(display, file, st.Size())
	} else {
		r, err = NewArrowFileReader(display, file, st.Size())
	}
	if err != nil {
		closeQuietly(closer)
		return nil, err
	}
	return withCloser(r, closer), nil
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func closeQuietly(c io.Closer) {
	if c != nil {
		c.Close()
	}
}

// closingReader closes an extra resource (the file) after the reader.
type closingReader struct {
	Reader
	c io.Closer
}

func (r closingReader) Close() error {
	err := r.Reader.Close()
	if r.c != nil {
		if e := r.c.Close(); err == nil {
			err = e
		}
	}
	return err
}

func withCloser(r Reader, c io.Closer) Reader {
	if c == nil {
		return r
	}
	return closingReader{r, c}
}

// ReadAll opens name and reads all its records into memory: for small
// fixed files (the demo's pool, a fixture), not for the streams programs
// read.
func ReadAll(name string) ([]*record.Record, error) {
	r, err := Open(name, OpenOptions{})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var recs []*record.Record
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return recs, nil
		}
		if err != nil {
			return nil, err
		}
		recs = append(recs, rec)
	}
}
