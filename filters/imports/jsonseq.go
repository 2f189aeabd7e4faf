package imports

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/ngkit/ngkit/pkg/jsonscan"
)

// valueScanner splits a stream of JSON values into the raw bytes of each:
// either one top-level array ("[v, v, ...]", the NormGenesis release) or
// values one after another (JSONL). It only finds boundaries (strings,
// escapes and nesting depth); the values are decoded later, in parallel.
// Memory is bounded by the largest value, not by the input.
type valueScanner struct {
	r       io.Reader
	buf     []byte
	start   int // start of unconsumed bytes in buf
	end     int // end of valid bytes in buf
	eof     bool
	inArray bool
	began   bool
	closed  bool  // saw the array's closing bracket
	line    int64 // lines consumed before buf[start]
	maxVal  int
}

func newValueScanner(r io.Reader, maxValue int) *valueScanner {
	return &valueScanner{r: r, buf: make([]byte, 1<<20), line: 1, maxVal: maxValue}
}

// fill reads more input, moving unconsumed bytes to the front and growing
// the buffer when a single value does not fit.
func (s *valueScanner) fill() error {
	if s.eof {
		return io.EOF
	}
	if s.start > 0 {
		copy(s.buf, s.buf[s.start:s.end])
		s.end -= s.start
		s.start = 0
	}
	if s.end == len(s.buf) {
		if len(s.buf) >= s.maxVal {
			return fmt.Errorf("a value is longer than %d MiB", s.maxVal>>20)
		}
		nb := make([]byte, 2*len(s.buf))
		copy(nb, s.buf[:s.end])
		s.buf = nb
	}
	n, err := s.r.Read(s.buf[s.end:])
	s.end += n
	if errors.Is(err, io.EOF) {
		s.eof = true
		if n > 0 {
			return nil
		}
		return io.EOF
	}
	return err
}

// skip consumes whitespace and the separators allowed between values.
func (s *valueScanner) skip() error {
	for {
		for s.start < s.end {
			c := s.buf[s.start]
			switch {
			case c == '\n':
				s.line++
			case c == ' ' || c == '\t' || c == '\r':
			case c == ',' && s.inArray:
			case c == '[' && !s.began:
				s.inArray = true
			case c == ']' && s.inArray && !s.closed:
				s.closed = true
			default:
				s.began = true
				return nil
			}
			s.began = true
			s.start++
		}
		if err := s.fill(); err != nil {
			return err
		}
	}
}

// Next returns the raw bytes of the next value (valid until the next call)
// and the line it starts on; io.EOF at the end.
func (s *valueScanner) Next() ([]byte, int64, error) {
	if err := s.skip(); err != nil {
		if errors.Is(err, io.EOF) && s.inArray && !s.closed {
			return nil, s.line, errors.New("unexpected end of input: the JSON array is not closed")
		}
		return nil, s.line, err
	}
	if s.closed {
		return nil, s.line, fmt.Errorf("unexpected %q after the end of the JSON array", s.buf[s.start])
	}
	line := s.line
	c := s.buf[s.start]
	if c != '{' && c != '[' {
		return nil, line, fmt.Errorf("want a JSON object, found %q", c)
	}
	depth := 0
	var str jsonscan.Strings
	i := s.start
	for {
		for ; i < s.end; i++ {
			c := s.buf[i]
			if !str.Outside(c) {
				continue
			}
			switch c {
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					v := s.buf[s.start : i+1]
					s.line += int64(bytes.Count(v, []byte{'\n'}))
					s.start = i + 1
					return v, line, nil
				}
			}
		}
		off := i - s.start
		if err := s.fill(); err != nil {
			if errors.Is(err, io.EOF) {
				return nil, line, errors.New("unexpected end of input inside a JSON value (truncated file?)")
			}
			return nil, line, err
		}
		i = s.start + off
	}
}
