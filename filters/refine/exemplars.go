package refine

import (
	"fmt"
	"strings"

	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/record"
)

// exemplars picks the K exemplars of the seed's culture and category (and
// dialogue type, when the pool has some of it) most similar to the seed.
// One index per culture, category and type is built on first use. An
// exemplar that is the seed itself (same id or same text: refining
// release records with the built-in exemplars) is never picked.
func (s *Stage) exemplars(rec *record.Record) ([]normbank.Exemplar, error) {
	culture, category, typ := key(rec.Culture), key(rec.Category), key(rec.DialogueType)
	ix, err := s.pools.get(culture+"\x00"+category+"\x00"+typ, func() (*normbank.Index, error) {
		pool := normbank.FilterExemplars(s.opt.Exemplars, culture, category, typ)
		if len(pool) == 0 {
			return nil, fmt.Errorf("no exemplars of culture %q and category %q in --exemplars %s", culture, category, s.source())
		}
		return normbank.NewIndex(pool), nil
	})
	if err != nil {
		return nil, err
	}
	seed := normbank.SeedText(rec.Scenario, rec.Situation)
	out := make([]normbank.Exemplar, 0, s.opt.K)
	for _, m := range ix.Search(seed, s.opt.K+1) {
		if m.Exemplar.ID == rec.ID || m.Exemplar.Text() == seed {
			continue
		}
		if out = append(out, m.Exemplar); len(out) == s.opt.K {
			break
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no exemplars of culture %q and category %q in --exemplars %s but the seed itself", culture, category, s.source())
	}
	return out, nil
}

func key(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

func (s *Stage) source() string {
	if s.opt.ExemplarSource == "" {
		return "builtin"
	}
	return s.opt.ExemplarSource
}
