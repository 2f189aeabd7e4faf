package pipeline

import (
	"errors"
	"io"
	"sync/atomic"

	"github.com/ngkit/ngkit/pkg/recio"
	"github.com/ngkit/ngkit/pkg/record"
)

// FileSource reads the named inputs one after another ("-" or none: stdin),
// sniffing each one's format. JSONL lines are handed out raw so that the
// workers decode them in parallel.
type FileSource struct {
	names []string
	opt   recio.OpenOptions
	cur   recio.Reader
	jsonl *recio.JSONLReader
	name  string // of the current input, for messages
	row   int64
	// consumed counts the JSONL bytes handed out, for the progress bar.
	consumed atomic.Int64
}

// Consumed is the number of JSONL bytes read so far (lines and their
// newlines), safe to call from any goroutine.
func (s *FileSource) Consumed() int64 { return s.consumed.Load() }

// NewFileSource reads names in order; no names means stdin.
func NewFileSource(names []string, opt recio.OpenOptions) *FileSource {
	if len(names) == 0 {
		names = []string{"-"}
	}
	return &FileSource{names: names, opt: opt}
}

// Next implements Source.
func (s *FileSource) Next() (Item, error) {
	for {
		if s.cur == nil {
			if len(s.names) == 0 {
				return Item{}, io.EOF
			}
			r, err := recio.Open(s.names[0], s.opt)
			if err != nil {
				return Item{}, err
			}
			s.cur, s.row, s.name = r, 0, s.names[0]
			s.names = s.names[1:]
			if s.name == "" || s.name == "-" {
				s.name = "stdin"
			}
			s.jsonl, _ = r.(*recio.JSONLReader)
		}
		if s.jsonl != nil {
			raw, line, err := s.jsonl.NextRaw()
			if err == nil {
				s.consumed.Add(int64(len(raw)) + 1)
				name := s.name
				return Item{
					Raw:    append([]byte(nil), raw...),
					Decode: func(b []byte) (*record.Record, error) { return recio.DecodeJSONL(name, line, b) },
					Name:   name, Line: line,
				}, nil
			}
			if !errors.Is(err, io.EOF) {
				return Item{}, err
			}
		} else {
			rec, err := s.cur.Next()
			if err == nil {
				s.row++
				return Item{Rec: rec, Name: s.name, Line: s.row}, nil
			}
			if !errors.Is(err, io.EOF) {
				return Item{}, err
			}
		}
		err := s.cur.Close()
		s.cur, s.jsonl = nil, nil
		if err != nil {
			return Item{}, err
		}
	}
}

// Close implements Source.
func (s *FileSource) Close() error {
	if s.cur == nil {
		return nil
	}
	err := s.cur.Close()
	s.cur = nil
	return err
}
