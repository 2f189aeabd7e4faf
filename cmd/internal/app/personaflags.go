package app

import (
	"github.com/ngkit/ngkit/pkg/persona"
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
