package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ngkit/ngkit/cmd/internal/app"
	"github.com/ngkit/ngkit/filters/refine"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/record"
)

// selfSource is ngrefine's input with --exemplars self: it reads every
// record first (so stdin works too; the seeds are held in memory), has
// the stage judge them all and pick the exemplars (refine.FirstPass), says
// what it found on stderr, then hands the records on as they came.
type selfSource struct {
	src     pipeline.Source
	stage   *refine.Stage
	workers int
	note    func(string)

	items []pipeline.Item
	read  bool
	i     int
}

func (s *selfSource) Next() (pipeline.Item, error) {
	if !s.read {
		s.read = true
		if err := s.firstPass(); err != nil {
			return pipeline.Item{}, err
		}
	}
	if s.i == len(s.items) {
		return pipeline.Item{}, io.EOF
	}
	s.i++
	return s.items[s.i-1], nil
}

func (s *selfSource) Close() error { return s.src.Close() }

func (s *selfSource) firstPass() error {
	var recs []*record.Record
	for {
		it, err := s.src.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if it.Rec == nil && it.Decode != nil {
			// Decoded here for the first pass; a line that does not decode
			// stays raw, for the runner to report in its place.
			if r, err := it.Decode(it.Raw); err == nil {
				it.Rec, it.Raw, it.Decode = r, nil, nil
			}
		}
		if it.Rec != nil {
			recs = append(recs, it.Rec)
		}
		s.items = append(s.items, it)
	}
	sum, err := s.stage.FirstPass(context.Background(), recs, s.workers)
	if err != nil {
		return err
	}
	msg := fmt.Sprintf("--exemplars self: first pass judged %s", app.Plural(sum.Judged, "seed"))
	if sum.Failed > 0 {
		msg += fmt.Sprintf(" (%d judge calls failed)", sum.Failed)
	}
	msg += fmt.Sprintf("; %d of them are the exemplars of %d culture/category groups", sum.Exemplars, len(sum.Groups))
	if len(sum.Without) > 0 {
		msg += "; none for " + strings.Join(sum.Without, ", ")
	}
	s.note(msg)
	return nil
}
