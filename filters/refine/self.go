package refine

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/record"
)

// Self exemplars (--exemplars self): a new culture has no
// exemplars, so the run's own seeds become them. A first pass (FirstPass)
// judges every seed as it came in, the same judge.0 call the refinement
// starts with (made once: Process reuses it), and keeps, per culture,
// category and dialogue type, the K+1 best-judged seeds that reach the
// bar and break no exemplar rule (K+1, so that each of them still has K
// others): ranked by their lowest score, then their total, then id. A
// seed is never its own exemplar. Seeds of a culture and category none of
// whose seeds qualifies are rewritten with the critique alone.

// FirstPassSummary says what the first pass found.
type FirstPassSummary struct {
	// Judged is the number of seeds judged; Failed those whose judge call
	// failed (Process tries them again and reports the error).
	Judged, Failed int
	// Exemplars is the number of seeds chosen, Groups the cultures and
	// categories they cover ("new-zealand/apology").
	Exemplars int
	Groups    []string
	// Without are the cultures and categories of seeds that got no
	// exemplar.
	Without []string
}

// judged0 is a seed's first judgement, kept for its refinement.
type judged0 struct {
	scenario, situation string
	v                   *version
	gens                []record.Gen
}

type selfState struct {
	mu     sync.Mutex
	judged map[string]*judged0 // record id
}

// FirstPass judges recs (workers at a time) and makes the best-judged the
// exemplars of the stage. Call it once, before Process, on a stage made
// with Options.Self. The records are not changed.
func (s *Stage) FirstPass(ctx context.Context, recs []*record.Record, workers int) (FirstPassSummary, error) {
	if !s.opt.Self {
		return FirstPassSummary{}, fmt.Errorf("FirstPass: the stage was not made with Self")
	}
	type judgedSeed struct {
		rec *record.Record
		v   *version
	}
	results := make([]*judgedSeed, len(recs))
	var sum FirstPassSummary
	var mu sync.Mutex
	work := make(chan int)
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				rec := recs[i]
				if needs(rec) != nil {
					continue
				}
				cu, err := s.culture(rec.Culture)
				if err != nil {
					continue
				}
				r := &run{s: s, rec: rec, cu: cu}
				v := &version{scenario: rec.Scenario, situation: rec.Situation}
				v.problems = cu.audit(v)
				err = r.judge(ctx, v, nil, 0)
				mu.Lock()
				sum.Judged++
				if err != nil {
					sum.Failed++
				}
				mu.Unlock()
				if err != nil {
					continue
				}
				s.self.mu.Lock()
				s.self.judged[rec.ID] = &judged0{scenario: rec.Scenario, situation: rec.Situation, v: v, gens: r.gens}
				s.self.mu.Unlock()
				results[i] = &judgedSeed{rec, v}
			}
		}()
	}
	for i := range recs {
		if ctx.Err() != nil {
			break
		}
		work <- i
	}
	close(work)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return sum, err
	}

	groups := map[string][]*judgedSeed{}
	seen := map[string]bool{} // culture/category of every judged seed
	for _, j := range results {
		if j == nil {
			continue
		}
		seen[key(j.rec.Culture)+"/"+key(j.rec.Category)] = true
		if j.v.passes(s.opt.MinScore) {
			k := key(j.rec.Culture) + "/" + key(j.rec.Category) + "/" + key(j.rec.DialogueType)
			groups[k] = append(groups[k], j)
		}
	}
	var ex []normbank.Exemplar
	covered := map[string]bool{}
	for _, k := range slices.Sorted(maps.Keys(groups)) {
		g := groups[k]
		sort.SliceStable(g, func(a, b int) bool {
			va, vb := g[a].v, g[b].v
			return cmp.Or(-cmp.Compare(va.min(), vb.min()), -cmp.Compare(total(va), total(vb)), cmp.Compare(g[a].rec.ID, g[b].rec.ID)) < 0
		})
		for _, j := range g[:min(len(g), s.opt.K+1)] {
			r := j.rec
			ex = append(ex, normbank.Exemplar{ID: r.ID, Culture: key(r.Culture), Lang: r.Lang, Category: key(r.Category),
				DialogueType: key(r.DialogueType), NormID: r.NormID, Norm: r.Norm, Scenario: r.Scenario, Situation: r.Situation})
		}
		cc := k[:strings.LastIndexByte(k, '/')]
		if !covered[cc] {
			covered[cc] = true
			sum.Groups = append(sum.Groups, cc)
		}
	}
	for cc := range seen {
		if !covered[cc] {
			sum.Without = append(sum.Without, cc)
		}
	}
	slices.Sort(sum.Without)
	sum.Exemplars = len(ex)
	s.opt.Exemplars = ex
	return sum, nil
}

func total(v *version) float64 {
	return v.scores.TaskRelevance + v.scores.LinguisticQuality + v.scores.SemanticPreservation
}

// firstJudgement is the first pass's judgement of rec, when it was made
// on the text rec still has.
func (s *Stage) firstJudgement(rec *record.Record) *judged0 {
	if !s.opt.Self {
		return nil
	}
	s.self.mu.Lock()
	defer s.self.mu.Unlock()
	j := s.self.judged[rec.ID]
	if j == nil || j.scenario != rec.Scenario || j.situation != rec.Situation {
		return nil
	}
	return j
}
