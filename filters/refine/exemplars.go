package refine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/record"
)

// pools are the indexes of one culture and category: of the seed's
// dialogue type (when the pool has some of it) and of every type.
type pools struct{ typed, all *normbank.Index }

// exemplars picks the K exemplars of the seed's culture and category most
// similar to the seed: of its dialogue type first, then, when those are
// too few, of the other types. The indexes of a culture, category and
// type are built on first use. An exemplar that is the seed itself (same
// id or same text: refining release records with the built-in exemplars)
// is never picked.
func (s *Stage) exemplars(rec *record.Record) ([]normbank.Exemplar, error) {
	culture, category, typ := key(rec.Culture), key(rec.Category), key(rec.DialogueType)
	p, err := s.pools.get(culture+"\x00"+category+"\x00"+typ, func() (*pools, error) {
		all := normbank.FilterExemplars(s.opt.Exemplars, culture, category, "")
		if len(all) == 0 && s.opt.Self {
			return nil, nil // no seed of the group qualified: the critique alone
		}
		if len(all) == 0 {
			if !slices.ContainsFunc(s.opt.Exemplars, func(e normbank.Exemplar) bool { return key(e.Culture) == culture }) {
				s.warnNone(culture)
				return nil, fmt.Errorf("no exemplars of culture %q in --exemplars %s (try --exemplars self)", culture, s.source())
			}
			return nil, fmt.Errorf("no exemplars of culture %q and category %q in --exemplars %s", culture, category, s.source())
		}
		p := &pools{all: normbank.NewIndex(all), typed: nil}
		if typed := normbank.FilterExemplars(all, culture, category, typ); len(typed) < len(all) {
			p.typed = normbank.NewIndex(typed)
		}
		return p, nil
	})
	if err != nil {
		return nil, err
	}
	if p == nil {
		if s.opt.Self {
			s.warnNone(culture + "/" + category)
		}
		return nil, nil
	}
	seed := normbank.SeedText(rec.Scenario, rec.Situation)
	out := make([]normbank.Exemplar, 0, s.opt.K)
	add := func(ix *normbank.Index) {
		if ix == nil || len(out) == s.opt.K {
			return
		}
		for _, m := range ix.Search(seed, s.opt.K+len(out)+1) {
			if len(out) == s.opt.K {
				return
			}
			e := m.Exemplar
			if e.ID == rec.ID || e.Text() == seed || slices.ContainsFunc(out, func(o normbank.Exemplar) bool { return o.ID == e.ID }) {
				continue
			}
			out = append(out, e)
		}
	}
	add(p.typed)
	add(p.all)
	if len(out) == 0 && !s.opt.Self {
		return nil, fmt.Errorf("no exemplars of culture %q and category %q in --exemplars %s but the seed itself", culture, category, s.source())
	}
	return out, nil
}

// warnNone says once per culture (per culture and category with Self)
// that it has no exemplars, and what happens to its seeds.
func (s *Stage) warnNone(what string) {
	if s.opt.Warn == nil {
		return
	}
	if _, told := s.warned.LoadOrStore(what, true); told {
		return
	}
	if s.opt.Self {
		s.opt.Warn("no seed of %s reached --min-score %d in the first pass, so it has no exemplars: its seeds are rewritten with the judge's critique alone", what, s.opt.MinScore)
		return
	}
	s.opt.Warn("no exemplars of culture %q in --exemplars %s: its seeds fail; refine them toward the run's own best seeds with --exemplars self, or give exemplars with --exemplars FILE", what, s.source())
}

func key(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

func (s *Stage) source() string {
	if s.opt.ExemplarSource == "" {
		return "builtin"
	}
	return s.opt.ExemplarSource
}
