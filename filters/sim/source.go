package sim

import (
	"fmt"
	"io"

	"github.com/ngkit/ngkit/pkg/episode"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/record"
)

// Expand turns a source of episode specs into ngsim's work items: one per
// spec and assistant, in that order, each the spec with id EpisodeID,
// parent_id the spec's id and sim naming the assistant and mode, so that
// --resume skips the episodes already written and runs the others. A
// record that is not a valid spec is one item that fails with the reason
// (pipeline.Item.Err), naming its file and line.
func Expand(src pipeline.Source, assistants []string, mode string) pipeline.Source {
	return &expand{src: src, assistants: assistants, mode: mode}
}

type expand struct {
	src        pipeline.Source
	assistants []string
	mode       string
	pending    []pipeline.Item
}

func (e *expand) Next() (pipeline.Item, error) {
	if len(e.pending) > 0 {
		it := e.pending[0]
		e.pending = e.pending[1:]
		return it, nil
	}
	it, err := e.src.Next()
	if err != nil {
		return it, err
	}
	rec := it.Rec
	if rec == nil {
		// Specs are small: decoded here, so that each assistant's copy is
		// made from one decoding.
		if rec, err = it.Decode(it.Raw); err != nil {
			return pipeline.Item{}, err
		}
		it.Raw, it.Decode = nil, nil
	}
	if rec.ID == "" {
		rec.ID = record.ContentID(rec)
	}
	if it.Err != nil {
		it.Rec = rec
		return it, nil
	}
	if err := checkSpec(rec); err != nil {
		it.Rec, it.Err = rec, err
		return it, nil
	}
	for _, a := range e.assistants {
		w := *rec
		ep := *rec.Episode
		w.Episode = &ep
		w.ID, w.ParentID = EpisodeID(rec.ID, a, e.mode), rec.ID
		w.Turns, w.Sim = nil, &record.Sim{Assistant: a, Mode: e.mode}
		e.pending = append(e.pending, pipeline.Item{Rec: &w, Name: it.Name, Line: it.Line})
	}
	return e.Next()
}

// checkSpec normalises a spec record's episode and says what is wrong.
func checkSpec(rec *record.Record) error {
	if rec.Episode == nil {
		return fmt.Errorf("not an episode spec: the record has no episode field (make specs with ngseed --types episode, or import them with ngcat --from episodes)")
	}
	if rec.Sim != nil {
		return fmt.Errorf("already an ngsim episode (sim is set, assistant %s): give ngsim the specs", rec.Sim.Assistant)
	}
	ep := *rec.Episode
	ep.Constraints = append([]record.Constraint(nil), ep.Constraints...)
	episode.Normalize(&ep)
	if err := episode.Validate(&ep); err != nil {
		return fmt.Errorf("bad episode spec: %w", err)
	}
	rec.Episode = &ep
	return nil
}

func (e *expand) Close() error { return e.src.Close() }

var _ io.Closer = (*expand)(nil)
