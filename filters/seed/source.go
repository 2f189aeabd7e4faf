package seed

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/record"
)

// Selection picks norms: of one culture ("" for all), in some categories
// (none for all), the first Limit of them (0 for all).
type Selection struct {
	Culture    string
	Categories []string
	Limit      int
}

// NormRecord is a norm as an input record: its id is the norm's id.
func NormRecord(n normbank.Norm) *record.Record {
	return &record.Record{ID: n.ID, Culture: n.Culture, Category: n.Category, NormID: n.ID, Norm: n.Text}
}

// NormSource yields the selected norms of a list (the built-in bank, or
// --norms FILE) as records. A culture or category that selects nothing
// is an error naming those there are, so that a typo is caught before
// any call.
func NormSource(norms []normbank.Norm, sel Selection, name string) (pipeline.Source, error) {
	picked, err := normbank.SelectNorms(norms, sel.Culture, sel.Categories)
	if err != nil {
		return nil, err
	}
	if sel.Limit > 0 && len(picked) > sel.Limit {
		picked = picked[:sel.Limit]
	}
	return &normSource{norms: picked, name: name}, nil
}

type normSource struct {
	norms []normbank.Norm
	name  string
	i     int
}

func (s *normSource) Next() (pipeline.Item, error) {
	if s.i == len(s.norms) {
		return pipeline.Item{}, io.EOF
	}
	s.i++
	return pipeline.Item{Rec: NormRecord(s.norms[s.i-1]), Name: s.name, Line: int64(s.i)}, nil
}

func (s *normSource) Close() error { return nil }

// StreamSource reads norm records as they come (files or stdin, so that
// seeds leave before the last norm is read) and keeps the selected ones:
// those of the culture and categories (records that lack either pass, to
// fail in the stage with the reason), each norm once (a norm repeated,
// as in every record of an imported release file, would give the same
// seeds again), at most Limit. On Close it notes on stderr what it left
// out and any --culture or --categories value that matched nothing.
func StreamSource(src pipeline.Source, sel Selection, stderr io.Writer, prog string) pipeline.Source {
	s := &streamSource{src: src, sel: sel, stderr: stderr, prog: prog, seen: map[string]bool{},
		culture: normKey(sel.Culture), cats: map[string]int{}, seenCultures: map[string]bool{}, seenCats: map[string]bool{}}
	for _, c := range sel.Categories {
		s.cats[normKey(c)] = 0
	}
	return s
}

type streamSource struct {
	src          pipeline.Source
	sel          Selection
	stderr       io.Writer
	prog         string
	culture      string
	cats         map[string]int // selected category -> norms kept
	cultureHits  int
	seen         map[string]bool // norm ids kept
	seenCultures map[string]bool
	seenCats     map[string]bool
	kept         int
	repeated     int
	unselected   int
	closed       bool
}

func normKey(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

func (s *streamSource) Next() (pipeline.Item, error) {
	for {
		if s.sel.Limit > 0 && s.kept >= s.sel.Limit {
			return pipeline.Item{}, io.EOF
		}
		it, err := s.src.Next()
		if err != nil {
			return it, err
		}
		rec := it.Rec
		if rec == nil {
			// Decoded here, not on the workers: the selection needs the
			// fields, and norm lists are small.
			if rec, err = it.Decode(it.Raw); err != nil {
				return pipeline.Item{}, err
			}
			it.Rec, it.Raw, it.Decode = rec, nil, nil
		}
		n, err := normbank.NormFromRecord(rec)
		if err != nil {
			s.kept++
			return it, nil // not a norm: the stage fails it with the reason
		}
		s.seenCultures[n.Culture] = true
		s.seenCats[n.Category] = true
		if s.culture != "" && n.Culture != s.culture {
			s.unselected++
			continue
		}
		s.cultureHits++
		if len(s.cats) > 0 {
			if _, ok := s.cats[n.Category]; !ok {
				s.unselected++
				continue
			}
			s.cats[n.Category]++
		}
		if s.seen[n.ID] {
			s.repeated++
			continue
		}
		s.seen[n.ID] = true
		s.kept++
		return it, nil
	}
}

func (s *streamSource) Close() error {
	err := s.src.Close()
	if s.closed || s.stderr == nil {
		return err
	}
	s.closed = true
	var notes []string
	if s.repeated > 0 {
		notes = append(notes, fmt.Sprintf("%d repeated norms read once", s.repeated))
	}
	if s.unselected > 0 {
		notes = append(notes, fmt.Sprintf("%d norms not selected by --culture/--categories", s.unselected))
	}
	if s.culture != "" && s.cultureHits == 0 {
		notes = append(notes, fmt.Sprintf("--culture %s matched no input norm (cultures read: %s)", s.culture, list(s.seenCultures)))
	}
	for _, c := range slices.Sorted(maps.Keys(s.cats)) {
		if s.cats[c] == 0 && s.cultureHits > 0 {
			notes = append(notes, fmt.Sprintf("--categories %s matched no input norm (categories read: %s)", c, list(s.seenCats)))
		}
	}
	if len(notes) > 0 {
		fmt.Fprintf(s.stderr, "%s: %s\n", s.prog, strings.Join(notes, "; "))
	}
	return err
}

func list(m map[string]bool) string {
	if len(m) == 0 {
		return "none"
	}
	return strings.Join(slices.Sorted(maps.Keys(m)), ", ")
}

// ErrBothInputs is returned when both FILE arguments and --norms are given.
var ErrBothInputs = errors.New("give norms as FILE arguments (or - for stdin) or with --norms FILE, not both")
