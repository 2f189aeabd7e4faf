// The stage that gives records their personas and variants (--personas,
// --vary) before a program's own stage sees them; the personas, their
// sampling and variants are pkg/persona's (which knows no pipeline).
package app

import (
	"context"

	"github.com/ngkit/ngkit/pkg/persona"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/record"
)

// personaStage gives every input record its persona and variants (Sampler.Apply)
// before Inner sees them: --personas and --vary on a stage that receives
// records (ngrefine, ngv2r). A record that already has a persona keeps it;
// one without is given one drawn by the sampler's seed and its parent_id
// when it has one (a violation or V2R seed then shares its adherence
// seed's persona, as in ngseed), else its id; with
// --vary each record becomes one variant per combination of values, each
// with its own id and variant_of the input record's id, and Inner runs on
// each. The outputs of all variants are the input record's outputs; if
// Inner fails on one, the input record fails (into the errors file) and
// none of its variants is written.
type personaStage struct {
	Sampler *persona.Sampler
	Inner   pipeline.Stage
}

// Name implements pipeline.Stage.
func (s *personaStage) Name() string { return s.Inner.Name() }

// Process implements pipeline.Stage.
func (s *personaStage) Process(ctx context.Context, rec *record.Record) ([]*record.Record, error) {
	if rec.Persona == nil && rec.ParentID != "" {
		rec.Persona = s.Sampler.Sample(rec.ParentID)
	}
	var out []*record.Record
	for _, v := range s.Sampler.Apply(rec) {
		o, err := s.Inner.Process(ctx, v)
		if err != nil {
			return nil, err
		}
		out = append(out, o...)
	}
	return out, nil
}
