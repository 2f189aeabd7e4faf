// Package simstats computes the simulation section of ngstats' report:
// for simulated episodes (ngsim), per
// assistant and mode, the judge's mean 1-5 scores, the constraint outcomes
// and the goal-met rate, overall and by culture, domain and subgroup, and
// a leaderboard of the assistants in benchmark mode. Its memory is a few
// counters per assistant, mode and group.
//
// Acc is fed by stats' Collector as it folds each record; the section's
// tables are the renderers' (filters/stats).
package simstats

import (
	"cmp"
	"maps"
	"math"
	"slices"

	"github.com/ngkit/ngkit/filters/stats/evalmath"
	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/record"
)

// Report is the simulation section of the report.
type Report struct {
	Episodes int64 `json:"episodes"`
	// Assistants: one row per assistant and mode over all episodes
	// (Group ""); ByCulture, ByDomain, BySubgroup break them down.
	Assistants []Row `json:"assistants"`
	ByCulture  []Row `json:"by_culture"`
	ByDomain   []Row `json:"by_domain"`
	BySubgroup []Row `json:"by_subgroup"`
	// Leaderboard ranks the assistants of benchmark mode (gold mode gives
	// the assistant the constraints, so it is no benchmark) by RankedBy:
	// assistance quality by default, as the CultureConverse paper ranks
	// (ngstats --rank-by), then by inference rate.
	Leaderboard []Rank `json:"leaderboard"`
	RankedBy    string `json:"ranked_by"`
	// Coverage counts, per culture, the specs run of each subgroup: every
	// subgroup of the culture profile's catalogue (0 when none ran), then
	// those outside it.
	Coverage []SubgroupCoverage `json:"subgroup_coverage"`
	// JudgeHuman compares the judge with human reviewers' scores of the
	// same rubric, per score, on the episodes that have both.
	JudgeHuman []JudgeHuman `json:"judge_human"`
}

// JudgeHuman is the judge against the reviewers on one rubric score:
// the means, the mean absolute difference, the share of episodes where
// they agree (the reviewers' mean rounds to the judge's score), and
// Pearson's and Spearman's correlation (nil when undefined).
type JudgeHuman struct {
	Score     string            `json:"score"`
	Episodes  int64             `json:"episodes"`
	Judge     float64           `json:"judge_mean"`
	Human     float64           `json:"human_mean"`
	MAE       float64           `json:"mae"`
	Agreement evalmath.Interval `json:"agreement"`
	Pearson   *float64          `json:"pearson"`
	Spearman  *float64          `json:"spearman"`
}

// SubgroupCoverage is how many episode specs of a culture's subgroup
// were simulated (distinct specs: the episode's parent_id, else its id).
type SubgroupCoverage struct {
	Culture     string `json:"culture"`
	Subgroup    string `json:"subgroup"`
	InCatalogue bool   `json:"in_catalogue"`
	Specs       int64  `json:"specs"`
	Episodes    int64  `json:"episodes"`
}

// RankBys are the leaderboard's orders (ngstats --rank-by): a rubric
// mean, overall (the mean of the three) or inferred (the inference rate).
var RankBys = []string{"assistance", "cultural", "language", "overall", "inferred"}

// rankValue is r's figure for the order by.
func rankValue(r Rank, by string) float64 {
	switch by {
	case "cultural":
		return r.Cultural.Mean
	case "language":
		return r.Language.Mean
	case "overall":
		return r.Overall
	case "inferred":
		return r.Inferred.Mean
	}
	return r.Assistance.Mean
}

// Row is one assistant's episodes in one mode and group.
type Row struct {
	Assistant string `json:"assistant"`
	Mode      string `json:"mode"`
	Group     string `json:"group"`
	Episodes  int64  `json:"episodes"`
	// Judged episodes have the judge's verdict; the scores are over them,
	// each a mean with a 95% interval (percentile bootstrap over episodes,
	// seeded; a normal interval above 2,000 episodes, where they agree).
	Judged     int64             `json:"judged"`
	Assistance evalmath.Interval `json:"assistance"`
	Cultural   evalmath.Interval `json:"cultural"`
	Language   evalmath.Interval `json:"language"`
	// Constraints are the judged constraint outcomes; Outcomes counts each
	// of the four (and "other" for an outcome outside them); Inferred is
	// the share inferred_and_respected, with a 95% Wilson interval.
	Constraints int64             `json:"constraints"`
	Outcomes    map[string]int64  `json:"outcomes"`
	Inferred    evalmath.Interval `json:"inferred"`
	// Unjudged are spec constraints of judged episodes with no outcome.
	Unjudged int64 `json:"unjudged,omitempty"`
	// GoalMet episodes ended with the goal met (the rest at max turns),
	// as a share with a 95% Wilson interval; Turns is the mean number of
	// turns (both speakers).
	GoalMet  evalmath.Interval `json:"goal_met"`
	MaxTurns int64             `json:"max_turns"`
	Turns    float64           `json:"turns"`
}

// Rank is one assistant's place on the leaderboard.
type Rank struct {
	Rank    int     `json:"rank"`
	Overall float64 `json:"overall"`
	Row
}

// Outcomes are the constraint outcomes, in the order of the tables.
var Outcomes = []string{record.OutcomeInferred, record.OutcomeRespected, record.OutcomeViolated, record.OutcomeUnaddressed}

type simKey struct{ assistant, mode, dim, group string }

type simRowAcc struct {
	episodes, judged, goal, maxTurns, turns int64
	scores                                  [3][5]int64 // assistance, cultural, language: count of each score 1-5
	outcomes                                map[string]int64
	unjudged                                int64
}

type simAcc struct {
	episodes int64
	rows     map[simKey]*simRowAcc
	coverage map[[2]string]*coverAcc // culture, subgroup
	// judged pairs (judge, human) per rubric score
	judgeHuman [3][][2]float64
}

type coverAcc struct {
	specs    map[string]bool
	episodes int64
}

// The breakdowns, in report order.
const (
	simAll      = ""
	simCulture  = "culture"
	simDomain   = "domain"
	simSubgroup = "subgroup"
)

// Acc folds simulated episodes into the simulation section; the zero Acc
// is empty and ready.
type Acc struct {
	a *simAcc // nil until an episode is added
}

// Add folds one record in; records that are not episodes are skipped.
func (acc *Acc) Add(rec *record.Record) {
	s := rec.Sim
	if s == nil {
		return
	}
	if acc.a == nil {
		acc.a = &simAcc{rows: map[simKey]*simRowAcc{}}
	}
	a := acc.a
	a.episodes++
	var domain, subgroup string
	if rec.Episode != nil {
		domain, subgroup = rec.Episode.Domain, rec.Episode.Subgroup
	}
	if a.coverage == nil {
		a.coverage = map[[2]string]*coverAcc{}
	}
	ck := [2]string{rec.Culture, subgroup}
	cv := a.coverage[ck]
	if cv == nil {
		cv = &coverAcc{specs: map[string]bool{}}
		a.coverage[ck] = cv
	}
	cv.episodes++
	cv.specs[cmp.Or(rec.ParentID, rec.ID)] = true
	if j, h := s.Judge, s.Human; j != nil && h != nil {
		for i, p := range []struct {
			judge int
			human *float64
		}{{j.Assistance, h.Assistance}, {j.Cultural, h.Cultural}, {j.Language, h.Language}} {
			if p.judge >= 1 && p.judge <= 5 && p.human != nil {
				a.judgeHuman[i] = append(a.judgeHuman[i], [2]float64{float64(p.judge), *p.human})
			}
		}
	}
	for _, g := range [][2]string{{simAll, ""}, {simCulture, rec.Culture}, {simDomain, domain}, {simSubgroup, subgroup}} {
		k := simKey{s.Assistant, s.Mode, g[0], g[1]}
		r := a.rows[k]
		if r == nil {
			r = &simRowAcc{outcomes: map[string]int64{}}
			a.rows[k] = r
		}
		r.add(rec)
	}
}

func (r *simRowAcc) add(rec *record.Record) {
	s := rec.Sim
	r.episodes++
	r.turns += int64(len(rec.Turns))
	switch s.End {
	case "goal_met":
		r.goal++
	case "max_turns":
		r.maxTurns++
	}
	j := s.Judge
	if j == nil {
		return
	}
	r.judged++
	for i, v := range []int{j.Assistance, j.Cultural, j.Language} {
		if v >= 1 && v <= 5 {
			r.scores[i][v-1]++
		}
	}
	judged := map[string]bool{}
	for _, o := range j.Constraints {
		judged[o.ID] = true
		if slices.Contains(Outcomes, o.Outcome) {
			r.outcomes[o.Outcome]++
		} else {
			r.outcomes["other"]++
		}
	}
	if rec.Episode != nil {
		for _, c := range rec.Episode.Constraints {
			if !judged[c.ID] {
				r.unjudged++
			}
		}
	}
}

// scoreInterval is the mean of the 1-5 scores counted in n with its 95%
// interval: a seeded percentile bootstrap over the episodes, or, above
// 2,000 of them, mean ± 1.96 standard errors.
func scoreInterval(n [5]int64) evalmath.Interval {
	var total int64
	var sum, sq float64
	for i, c := range n {
		total += c
		v := float64(i + 1)
		sum += v * float64(c)
		sq += v * v * float64(c)
	}
	if total == 0 {
		return evalmath.Interval{}
	}
	iv := evalmath.Interval{N: total, Mean: sum / float64(total)}
	if total > evalmath.BootstrapMaxN {
		sd := math.Sqrt(max(0, sq/float64(total)-iv.Mean*iv.Mean) * float64(total) / float64(total-1))
		half := evalmath.Z95 * sd / math.Sqrt(float64(total))
		iv.Low, iv.High = iv.Mean-half, iv.Mean+half
		return iv
	}
	// The bootstrap draws from the counts: a resample is total draws of a
	// score with probability count / total.
	var cum [5]int64
	var acc int64
	for i, c := range n {
		acc += c
		cum[i] = acc
	}
	rng := evalmath.Resampler(evalmath.BootstrapSeed ^ uint64(total))
	means := make([]float64, evalmath.BootstrapRounds)
	for b := range means {
		s := 0
		for range total {
			u := int64(rng.Intn(int(total)))
			v := 0
			for u >= cum[v] {
				v++
			}
			s += v + 1
		}
		means[b] = float64(s) / float64(total)
	}
	slices.Sort(means)
	iv.Low, iv.High = evalmath.QuantileSorted(means, 0.025), evalmath.QuantileSorted(means, 0.975)
	return iv
}

func shareInterval(k, n int64) evalmath.Interval {
	if n == 0 {
		return evalmath.Interval{}
	}
	iv := evalmath.Interval{N: n, Mean: float64(k) / float64(n)}
	iv.Low, iv.High = evalmath.Wilson(k, n)
	return iv
}

func (r *simRowAcc) row(k simKey) Row {
	out := Row{Assistant: k.assistant, Mode: k.mode, Group: k.group, Episodes: r.episodes, Judged: r.judged,
		Assistance: scoreInterval(r.scores[0]), Cultural: scoreInterval(r.scores[1]), Language: scoreInterval(r.scores[2]),
		Outcomes: map[string]int64{}, Unjudged: r.unjudged, MaxTurns: r.maxTurns,
		GoalMet: shareInterval(r.goal, r.episodes)}
	for _, o := range Outcomes {
		out.Outcomes[o] = r.outcomes[o]
	}
	for o, n := range r.outcomes {
		out.Outcomes[o] = n
		out.Constraints += n
	}
	out.Inferred = shareInterval(r.outcomes[record.OutcomeInferred], out.Constraints)
	if r.episodes > 0 {
		out.Turns = float64(r.turns) / float64(r.episodes)
	}
	return out
}

// Report is the simulation section of what was added, its leaderboard
// ranked by rankBy (one of RankBys); nil when nothing was.
func (acc *Acc) Report(rankBy string) *Report { return acc.a.report(rankBy) }

func (a *simAcc) report(rankBy string) *Report {
	if a == nil {
		return nil
	}
	s := &Report{Episodes: a.episodes, Assistants: []Row{}, ByCulture: []Row{}, ByDomain: []Row{}, BySubgroup: []Row{}}
	keys := make([]simKey, 0, len(a.rows))
	for k := range a.rows {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(x, y simKey) int {
		return cmp.Or(cmp.Compare(x.assistant, y.assistant), cmp.Compare(x.mode, y.mode), evalmath.NoneLast(x.group, y.group))
	})
	for _, k := range keys {
		row := a.rows[k].row(k)
		switch k.dim {
		case simAll:
			s.Assistants = append(s.Assistants, row)
			if k.mode == "benchmark" {
				s.Leaderboard = append(s.Leaderboard, Rank{Overall: overall(row), Row: row})
			}
		case simCulture:
			s.ByCulture = append(s.ByCulture, row)
		case simDomain:
			s.ByDomain = append(s.ByDomain, row)
		case simSubgroup:
			s.BySubgroup = append(s.BySubgroup, row)
		}
	}
	if !slices.Contains(RankBys, rankBy) {
		rankBy = RankBys[0]
	}
	s.RankedBy = rankBy
	slices.SortStableFunc(s.Leaderboard, func(x, y Rank) int {
		return cmp.Or(cmp.Compare(rankValue(y, rankBy), rankValue(x, rankBy)), cmp.Compare(y.Inferred.Mean, x.Inferred.Mean), cmp.Compare(x.Assistant, y.Assistant))
	})
	for i := range s.Leaderboard {
		s.Leaderboard[i].Rank = i + 1
	}
	s.Coverage = a.coverageReport()
	s.JudgeHuman = []JudgeHuman{}
	for i, name := range []string{"assistance", "cultural", "language"} {
		pairs := a.judgeHuman[i]
		if len(pairs) == 0 {
			continue
		}
		var js, hs []float64
		var abs float64
		var same int64
		for _, p := range pairs {
			js, hs = append(js, p[0]), append(hs, p[1])
			abs += math.Abs(p[0] - p[1])
			if math.Abs(p[0]-p[1]) < 0.5 {
				same++
			}
		}
		n := int64(len(pairs))
		s.JudgeHuman = append(s.JudgeHuman, JudgeHuman{Score: name, Episodes: n, Judge: evalmath.Mean(js), Human: evalmath.Mean(hs),
			MAE: abs / float64(n), Agreement: evalmath.ShareWilson(same, n), Pearson: evalmath.OptFloat(evalmath.Pearson(js, hs)), Spearman: evalmath.OptFloat(evalmath.Spearman(js, hs))})
	}
	return s
}

// coverageReport lists each culture's catalogue subgroups (ngseed
// --subgroups catalogue), run or not, then the others run.
func (a *simAcc) coverageReport() []SubgroupCoverage {
	out := []SubgroupCoverage{}
	cultures := map[string]bool{}
	for k := range a.coverage {
		cultures[k[0]] = true
	}
	for _, c := range slices.Sorted(maps.Keys(cultures)) {
		var catalogue []string
		if p, err := normbank.Profile(c); err == nil {
			catalogue = p.Subgroups
		}
		row := func(sg string, in bool) SubgroupCoverage {
			r := SubgroupCoverage{Culture: c, Subgroup: sg, InCatalogue: in}
			if cv := a.coverage[[2]string{c, sg}]; cv != nil {
				r.Specs, r.Episodes = int64(len(cv.specs)), cv.episodes
			}
			return r
		}
		for _, sg := range catalogue {
			out = append(out, row(sg, true))
		}
		var others []string
		for k := range a.coverage {
			if k[0] == c && !slices.Contains(catalogue, k[1]) {
				others = append(others, k[1])
			}
		}
		slices.SortFunc(others, evalmath.NoneLast)
		for _, sg := range others {
			out = append(out, row(sg, false))
		}
	}
	return out
}

// overall is the mean of the rubric means that were scored (0 when none).
func overall(r Row) float64 {
	var s float64
	var n int
	for _, iv := range []evalmath.Interval{r.Assistance, r.Cultural, r.Language} {
		if iv.N > 0 {
			s += iv.Mean
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return s / float64(n)
}
