package app

import (
	"fmt"

	"github.com/ngkit/ngkit/filters/personas"
	"github.com/ngkit/ngkit/pkg/persona"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/spf13/pflag"
)

// Personas is --personas and --vary, which the programs that write who is
// talking take (ngseed, ngrefine, ngv2r): persona attributes sampled per
// record by --seed and the record id, and counterfactual variants.
type Personas struct {
	file string
	vary []string
}

// Register adds --personas and --vary to fs.
func (p *Personas) Register(fs *pflag.FlagSet) {
	fs.StringVar(&p.file, "personas", "", "give each record a persona drawn from `FILE` (YAML: attribute -> list of values, or map of value -> weight), by --seed and the record id")
	fs.StringArrayVar(&p.vary, "vary", nil, "write one variant of each record per value of `ATTR=v1,v2,...`, alike but for that persona attribute, sharing variant_of (repeatable: every combination)")
}

// Sampler reads --personas and parses --vary; seed is --seed. It is nil
// when neither flag is given. Its error is one line naming the file and
// line.
func (p *Personas) Sampler(seed int64) (*persona.Sampler, error) {
	var set *persona.Set
	if p.file != "" {
		s, err := persona.Load(p.file)
		if err != nil {
			return nil, err
		}
		set = s
	}
	var vary []persona.Vary
	for _, v := range p.vary {
		pv, err := persona.ParseVary(v)
		if err != nil {
			return nil, err
		}
		vary = append(vary, pv)
	}
	return persona.NewSampler(set, vary, seed)
}

// Wrap makes stage give each input record its persona and variants first
// (personas.Stage), for a program that receives records (ngrefine, ngv2r);
// stage itself without --personas or --vary. seed is --seed. --vary with
// --resume is refused: the output holds the variants' ids, not the input
// record's, so a resumed run could not tell which inputs are done.
func (p *Personas) Wrap(stage pipeline.Stage, seed int64, resume bool) (pipeline.Stage, error) {
	s, err := p.Sampler(seed)
	if err != nil || !s.Active() {
		return stage, err
	}
	if s.Varies() && resume {
		return nil, fmt.Errorf("--vary with --resume: the output holds the variants' ids, not the input records'; rerun without --resume")
	}
	return &personas.Stage{Sampler: s, Inner: stage}, nil
}
