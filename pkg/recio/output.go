package recio

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ngkit/ngkit/pkg/safeopen"
	"golang.org/x/term"
)

// Output is a destination: stdout, or a file written atomically (a
// temporary file beside it, renamed over the final name by Commit), or
// something written into as it is (a device, a FIFO, a socket, an open
// file descriptor: see Create).
type Output struct {
	w      io.Writer
	tmp    *os.File
	direct io.WriteCloser // written into, not replaced
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
//
// Only a regular file, or a new name, is written atomically. A character
// device, a FIFO or a socket is written into, and so is an open file
// descriptor named /dev/stdout, /dev/stderr, /dev/fd/N or
// /proc/self/fd/N: renaming a file over them would replace the device
// node or the pipe (as root, -o /dev/null would break /dev/null). A
// symbolic link is followed, as the shell's > follows it: the file it
// names is replaced in its own folder and the link stays; a dangling
// link makes the file it names.
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
	final, direct, err := destination(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, unwrapPathError(err))
	}
	if direct != nil {
		if format.Binary() && IsTerminal(direct) {
			direct.Close()
			return nil, fmt.Errorf("refusing to write %s to a terminal (%s)", format, path)
		}
		return &Output{w: direct, direct: direct, final: path, Format: format}, nil
	}
	dir := filepath.Dir(final)
	if final == path && dir != "" { // not through a link: make the folders
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("%s: %w", path, unwrapPathError(err))
		}
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(final)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, unwrapPathError(err))
	}
	return &Output{w: tmp, tmp: tmp, final: final, Format: format}, nil
}

// WriteFile writes b to path as Create and Commit do: atomically onto a
// regular file or a new name, into a device, FIFO or descriptor.
func WriteFile(path string, b []byte) error {
	o, err := Create(path, JSONL, nil)
	if err != nil {
		return err
	}
	if _, err := o.Writer().Write(b); err != nil {
		o.Abort()
		return fmt.Errorf("%s: %w", o.Name(), unwrapPathError(err))
	}
	return o.Commit()
}

// maxLinks bounds the symbolic links followed, as the kernel's ELOOP.
const maxLinks = 40

// destination resolves where a write to path goes: a file to replace
// atomically (final), or something to write into (direct).
func destination(path string) (final string, direct io.WriteCloser, err error) {
	p := path
	for hops := 0; ; hops++ {
		if fd, ok := fdPath(p); ok {
			f, err := dupFile(fd, path)
			return "", f, err
		}
		st, err := os.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return p, nil, nil // a new file
		case err != nil:
			return "", nil, err
		case st.Mode()&fs.ModeSymlink != 0:
			if hops == maxLinks {
				return "", nil, errors.New("too many levels of symbolic links")
			}
			if err := mayFollow(p, st); err != nil {
				return "", nil, err
			}
			t, err := os.Readlink(p)
			if err != nil {
				return "", nil, err
			}
			if !filepath.IsAbs(t) {
				// Relative to the folder the link is in, folder links
				// resolved (a lexical join would undo them with "..").
				d, err := filepath.EvalSymlinks(filepath.Dir(p))
				if err != nil {
					return "", nil, err
				}
				t = filepath.Join(d, t)
			}
			p = t
			continue
		case st.Mode().IsRegular():
			return p, nil, nil
		case st.IsDir():
			return "", nil, errors.New("is a directory")
		case st.Mode()&fs.ModeSocket != 0:
			c, err := net.Dial("unix", p)
			return "", c, err
		}
		// A device or a FIFO (this waits for the FIFO's reader, as the
		// shell does).
		f, err := os.OpenFile(p, os.O_WRONLY, 0)
		return "", f, err
	}
}

// fdPath reports whether path names one of this process's open file
// descriptors.
func fdPath(path string) (int, bool) {
	switch path = filepath.Clean(path); path {
	case "/dev/stdout":
		return 1, true
	case "/dev/stderr":
		return 2, true
	}
	var rest string
	for _, dir := range []string{"/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/", "/proc/" + strconv.Itoa(os.Getpid()) + "/fd/"} {
		if r, ok := strings.CutPrefix(path, dir); ok {
			rest = r
			break
		}
	}
	n, err := strconv.Atoi(rest)
	if rest == "" || err != nil || n < 0 || strconv.Itoa(n) != rest {
		return 0, false
	}
	return n, true
}

// Writer is where rows go.
func (o *Output) Writer() io.Writer { return o.w }

// Name is the final file name (a link's target), or "stdout".
func (o *Output) Name() string {
	if o.final == "" {
		return "stdout"
	}
	return o.final
}

// Commit makes the written file visible under its final name.
func (o *Output) Commit() error {
	if o.direct != nil {
		err := o.direct.Close()
		o.direct = nil
		if err != nil {
			return fmt.Errorf("%s: %w", o.final, unwrapPathError(err))
		}
		return nil
	}
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
	if o.direct != nil { // what was written stays written
		o.direct.Close()
		o.direct = nil
	}
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

// mayFollow applies the kernel's fs.protected_symlinks rule to a link that
// ngkit follows itself (to replace its target): a link in a sticky folder
// that others may write (/tmp) is followed only if it is the user's own
// or the folder owner's. Otherwise another user's link in /tmp could make
// a root run replace any file. Where owners are unknown, links are followed.
func mayFollow(link string, st fs.FileInfo) error {
	lu, ok := safeopen.Owner(st)
	if !ok {
		return nil
	}
	dst, err := os.Stat(filepath.Dir(link))
	if err != nil {
		return err
	}
	du, ok := safeopen.Owner(dst)
	if !ok {
		return nil
	}
	if dst.Mode()&fs.ModeSticky != 0 && dst.Mode().Perm()&0o002 != 0 && lu != os.Geteuid() && lu != du {
		return errors.New("a symbolic link of another user in a sticky folder open to all: not followed (as the kernel's fs.protected_symlinks)")
	}
	return nil
}
