package imports

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/recio"
	"github.com/ngkit/ngkit/pkg/record"
)

// Separator values of TextOptions with a meaning of their own; any other
// value is a separator line.
const (
	SeparatorBlank = "blank" // one or more blank lines end a dialogue (the default)
	SeparatorNone  = "none"  // the whole file is one dialogue
)

// maxDialogueBytes bounds the text of one dialogue, and so the memory a
// file without separators can take.
const maxDialogueBytes = 64 << 20

// TextOptions tune the transcript import.
type TextOptions struct {
	// Separator says what separates the dialogues of a file: SeparatorBlank
	// ("" too), SeparatorNone, or any other text: a line that is exactly
	// that text (surrounding spaces ignored), such as "---" or "===".
	Separator string
	Fields    // set on every record
	Stdin     io.Reader
}

// Text reads plain "Name: text" transcripts as a pipeline.Source: each
// dialogue of each file becomes one record, parsed by pkg/dialogue on the
// workers.
type Text struct {
	names   []string
	opt     TextOptions
	sp      *textSplitter
	f       io.Closer
	display string // the input's name in messages ("stdin" for "-")
	index   int64  // dialogues read from the current input
}

// NewText imports the named files ("-" or none: stdin).
func NewText(names []string, opt TextOptions) (*Text, error) {
	if err := opt.Fields.Check(); err != nil {
		return nil, err
	}
	if strings.ContainsAny(opt.Separator, "\r\n") {
		return nil, errors.New("--separator is one line: it cannot hold a line break")
	}
	// Spaces around a separator line do not count, in the flag either.
	if opt.Separator = strings.TrimSpace(opt.Separator); opt.Separator == "" {
		opt.Separator = SeparatorBlank
	}
	if len(names) == 0 {
		names = []string{"-"}
	}
	return &Text{names: names, opt: opt}, nil
}

// Next implements pipeline.Source.
func (t *Text) Next() (pipeline.Item, error) {
	for {
		if t.sp == nil {
			if len(t.names) == 0 {
				return pipeline.Item{}, io.EOF
			}
			name := t.names[0]
			t.names = t.names[1:]
			display, r, f, err := openText(name, t.opt.Stdin)
			if err != nil {
				return pipeline.Item{}, err
			}
			t.display, t.f, t.index = display, f, 0
			t.sp = newTextSplitter(r, t.opt.Separator, maxDialogueBytes)
		}
		text, line, err := t.sp.Next()
		if err == nil {
			idx := t.index
			t.index++
			file := sourceName(t.display)
			fields := t.opt.Fields
			return pipeline.Item{
				Raw:  append([]byte(nil), text...),
				Name: t.display, Line: line,
				Decode: func(b []byte) (*record.Record, error) {
					rec := decodeTranscript(string(b), file, idx)
					fields.apply(rec)
					return rec, nil
				},
			}, nil
		}
		if !errors.Is(err, io.EOF) {
			return pipeline.Item{}, &recio.PosError{Name: t.display, Pos: "line " + strconv.FormatInt(line, 10), Err: err}
		}
		if t.index == 0 {
			return pipeline.Item{}, fmt.Errorf("%s: no dialogue in it (empty or blank input)", t.display)
		}
		t.Close()
	}
}

// Close implements pipeline.Source.
func (t *Text) Close() error {
	t.sp = nil
	if t.f != nil {
		err := t.f.Close()
		t.f = nil
		return err
	}
	return nil
}

// openText opens a text input (openInput) and refuses the binary formats.
func openText(name string, stdin io.Reader) (display string, r *bufio.Reader, c io.Closer, err error) {
	display, r, c, err = openInput(name, stdin)
	if err != nil {
		return "", nil, nil, err
	}
	if err := notText(r); err != nil {
		if c != nil {
			c.Close()
		}
		return "", nil, nil, fmt.Errorf("%s: %w", display, err)
	}
	return display, r, c, nil
}

// sourceName is an input's name in ids and extra source_file: the name as
// given, cleaned (a base name alone would collide across folders).
func sourceName(display string) string {
	if display == "stdin" {
		return display
	}
	return filepath.ToSlash(filepath.Clean(display))
}

// notUTF8 is the error for a value that is not UTF-8, at the line of its
// first invalid byte: JSON decoders would put U+FFFD in silently.
func notUTF8(display string, line int64, raw []byte) error {
	at := invalidAt(raw) - 1
	return fmt.Errorf("%s:%d: not UTF-8 text; convert the file to UTF-8 first", display, line+int64(bytes.Count(raw[:at], []byte{'\n'})))
}

// notText refuses the binary formats ngcat reads without --from, so that
// a Parquet file given to --from text gets a clear word.
func notText(r *bufio.Reader) error {
	head, _ := r.Peek(8)
	if f, err := recio.Sniff(head); err == nil && f.Binary() {
		return fmt.Errorf("this is %s, not text; drop --from text to read records", f)
	}
	return nil
}

// decodeTranscript makes the record of one dialogue of a transcript file:
// turns, narration and defects as for the NormGenesis release (setDialogue),
// the original text in extra "dialogue", and where it came from.
func decodeTranscript(text, file string, idx int64) *record.Record {
	rec := &record.Record{ID: record.NewID("text", file, strconv.FormatInt(idx, 10))}
	setDialogue(rec, text)
	rec.SetExtra("dialogue", text)
	rec.SetExtra("source_file", file)
	rec.SetExtra("source_index", idx)
	return rec
}

// textSplitter cuts a transcript into the texts of its dialogues, line by
// line, holding one dialogue at a time.
type textSplitter struct {
	r      *bufio.Reader
	sep    string // SeparatorBlank, SeparatorNone or a separator line
	max    int
	line   int64  // lines read so far
	lb     []byte // the line being read
	buf    []byte // the dialogue being gathered
	sawSep bool   // a separator line came after the last dialogue
}

func newTextSplitter(r *bufio.Reader, sep string, max int) *textSplitter {
	return &textSplitter{r: r, sep: strings.TrimSpace(sep), max: max}
}

// Next returns the text of the next dialogue (lines joined by "\n", blank
// lines around it removed; valid until the next call) and the line it
// starts on; io.EOF at the end. Two separator lines with nothing but blank
// lines between are an empty dialogue (an empty text, at the second
// separator's line), so that dialogues are counted as the source counts
// them. Text that is not UTF-8 is an error at its line: a transcript in
// another encoding must be converted first.
func (s *textSplitter) Next() ([]byte, int64, error) {
	s.buf = s.buf[:0]
	var start int64
	for {
		ln, err := s.readLine()
		if errors.Is(err, io.EOF) {
			if start > 0 {
				return bytes.TrimRightFunc(s.buf, unicode.IsSpace), start, nil
			}
			return nil, s.line, io.EOF
		}
		if err != nil {
			return nil, s.line, err
		}
		if !utf8.Valid(ln) {
			return nil, s.line, fmt.Errorf("not UTF-8 text (invalid byte at column %d); convert the file to UTF-8 first", invalidAt(ln))
		}
		trimmed := bytes.TrimSpace(ln)
		blank := len(trimmed) == 0
		switch {
		case s.sep == SeparatorBlank && blank:
			if start > 0 {
				return bytes.TrimRightFunc(s.buf, unicode.IsSpace), start, nil
			}
			continue
		case s.sep != SeparatorBlank && s.sep != SeparatorNone && string(trimmed) == s.sep:
			if start > 0 {
				s.sawSep = true
				return bytes.TrimRightFunc(s.buf, unicode.IsSpace), start, nil
			}
			if s.sawSep {
				return s.buf[:0], s.line, nil // an empty dialogue
			}
			s.sawSep = true
			continue
		case start == 0 && blank:
			continue // blank lines before a dialogue are not part of it
		}
		if start == 0 {
			start = s.line
		}
		if len(s.buf)+1+len(ln) > s.max {
			return nil, s.line, fmt.Errorf("a dialogue is longer than %d MiB: is the separator right?", s.max>>20)
		}
		if len(s.buf) > 0 {
			s.buf = append(s.buf, '\n')
		}
		s.buf = append(s.buf, ln...)
	}
}

// readLine returns the next line without its line end (and without a BOM
// on the first line); io.EOF when there is none.
func (s *textSplitter) readLine() ([]byte, error) {
	s.lb = s.lb[:0]
	for {
		frag, err := s.r.ReadSlice('\n')
		s.lb = append(s.lb, frag...)
		if len(s.lb) > s.max {
			s.line++
			return nil, fmt.Errorf("a line is longer than %d MiB", s.max>>20)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		if errors.Is(err, io.EOF) && len(s.lb) == 0 {
			return nil, io.EOF
		}
		break
	}
	s.line++
	ln := bytes.TrimSuffix(s.lb, []byte("\n"))
	ln = bytes.TrimSuffix(ln, []byte("\r"))
	if s.line == 1 {
		ln = bytes.TrimPrefix(ln, []byte("\xef\xbb\xbf"))
	}
	return ln, nil
}

// invalidAt is the 1-based byte column of the first invalid UTF-8 in b.
func invalidAt(b []byte) int {
	off := 0
	for off < len(b) {
		r, n := utf8.DecodeRune(b[off:])
		if r == utf8.RuneError && n <= 1 {
			break
		}
		off += n
	}
	return off + 1
}
