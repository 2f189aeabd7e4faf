package stats

import (
	"testing"

	"github.com/ngkit/ngkit/filters/stats/evalmath"
	"github.com/ngkit/ngkit/filters/stats/internal/statstest"
	"github.com/ngkit/ngkit/filters/stats/simstats"
	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/record"
)

func findSim(rows []simstats.Row, assistant, mode, group string) *simstats.Row {
	for i, r := range rows {
		if r.Assistant == assistant && r.Mode == mode && r.Group == group {
			return &rows[i]
		}
	}
	return nil
}

// TestSimSection: the simulation figures (render's TestSimFormats shows
// them).
func TestSimSection(t *testing.T) {
	recs := statstest.SimSectionRecords()
	r := collect(t, recs...)
	s := r.Sim
	if s == nil || s.Episodes != 6 {
		t.Fatalf("sim section %+v", s)
	}
	a := findSim(s.Assistants, "a", "benchmark", "")
	if a == nil {
		t.Fatalf("no row for a: %+v", s.Assistants)
	}
	// a: 4 episodes, 3 judged. Assistance 4 2 5 -> 11/3; cultural 5 3 4
	// -> 4; language 5 5 4 -> 14/3.
	if a.Episodes != 4 || a.Judged != 3 || a.Assistance.N != 3 || !approx(a.Assistance.Mean, 11.0/3, 1e-12) ||
		!approx(a.Cultural.Mean, 4, 1e-12) || !approx(a.Language.Mean, 14.0/3, 1e-12) {
		t.Errorf("a scores %+v", a)
	}
	if a.Assistance.Low > a.Assistance.Mean || a.Assistance.High < a.Assistance.Mean || a.Assistance.Low < 2 || a.Assistance.High > 5 {
		t.Errorf("a assistance interval %+v", a.Assistance)
	}
	// Outcomes: inferred 2, respected 1, violated 1, not addressed 1 of
	// 5 judged; e3's c2 is unjudged (e4 is not judged at all).
	if a.Constraints != 5 || a.Outcomes[record.OutcomeInferred] != 2 || a.Outcomes[record.OutcomeRespected] != 1 ||
		a.Outcomes[record.OutcomeViolated] != 1 || a.Outcomes[record.OutcomeUnaddressed] != 1 || a.Unjudged != 1 ||
		!approx(a.Inferred.Mean, 0.4, 1e-12) {
		t.Errorf("a outcomes %+v inferred %+v unjudged %d", a.Outcomes, a.Inferred, a.Unjudged)
	}
	if lo, hi := evalmath.Wilson(2, 5); a.Inferred.Low != lo || a.Inferred.High != hi {
		t.Errorf("inference interval %+v, want Wilson %v %v", a.Inferred, lo, hi)
	}
	// Goal met 2 of 4 (the others ended at max turns); turns (6+16+4+16)/4.
	if a.GoalMet.Mean != 0.5 || a.GoalMet.N != 4 || a.MaxTurns != 2 || a.Turns != 10.5 {
		t.Errorf("a goal %+v max turns %d turns %v", a.GoalMet, a.MaxTurns, a.Turns)
	}
	// By culture: korean has e3 (judged) and e4 (not).
	if k := findSim(s.ByCulture, "a", "benchmark", "korean"); k == nil || k.Episodes != 2 || k.Judged != 1 || k.Assistance.Mean != 5 ||
		k.Assistance.Low != 5 || k.Assistance.High != 5 {
		t.Errorf("a korean %+v", k)
	}
	if d := findSim(s.ByDomain, "a", "benchmark", "health"); d == nil || d.Episodes != 1 || d.Outcomes[record.OutcomeViolated] != 1 {
		t.Errorf("a health %+v", d)
	}
	if g := findSim(s.BySubgroup, "b", "gold", "thai-urban"); g == nil || g.Outcomes["other"] != 1 || g.Constraints != 2 {
		t.Errorf("b gold thai-urban %+v", g)
	}
	// Leaderboard: benchmark only; b (5, 5, 5) above a ((11/3+4+14/3)/3).
	if len(s.Leaderboard) != 2 || s.Leaderboard[0].Assistant != "b" || s.Leaderboard[0].Rank != 1 || s.Leaderboard[0].Overall != 5 ||
		s.Leaderboard[1].Assistant != "a" || !approx(s.Leaderboard[1].Overall, (11.0/3+4+14.0/3)/3, 1e-12) {
		t.Errorf("leaderboard %+v", s.Leaderboard)
	}

}

// The leaderboard ranks by assistance quality by default, as the
// CultureConverse paper does, not by the mean of the three rubrics;
// RankBy picks another order.
func TestSimRankBy(t *testing.T) {
	recs := []*record.Record{
		// a: assistance 5, cultural 2, language 2 (overall 3)
		statstest.SimRec("e1", "a", "benchmark", "thai", "food", "goal_met", 6, &[3]int{5, 2, 2}, record.OutcomeInferred),
		// b: assistance 4, cultural 5, language 5 (overall 4.67)
		statstest.SimRec("e2", "b", "benchmark", "thai", "food", "goal_met", 6, &[3]int{4, 5, 5}, record.OutcomeViolated),
	}
	for by, want := range map[string]string{"": "a", "assistance": "a", "overall": "b", "cultural": "b", "inferred": "a"} {
		c := NewCollector()
		c.RankBy = by
		for _, r := range recs {
			c.Add(r)
		}
		s := c.Report().Sim
		if s.Leaderboard[0].Assistant != want || (by != "" && s.RankedBy != by) || (by == "" && s.RankedBy != "assistance") {
			t.Errorf("--rank-by %q: first %s ranked by %s, want %s", by, s.Leaderboard[0].Assistant, s.RankedBy, want)
		}
	}
}

// Subgroup coverage: every subgroup of the culture's catalogue, with the
// specs that ran (distinct: two assistants on one spec count once), the
// uncatalogued ones after.
func TestSimSubgroupCoverage(t *testing.T) {
	p, err := normbank.Profile("thai")
	if err != nil || len(p.Subgroups) < 2 {
		t.Fatalf("thai catalogue: %v %v", p, err)
	}
	e1 := statstest.SimRec("e1", "a", "benchmark", "thai", "food", "goal_met", 6, &[3]int{4, 4, 4})
	e2 := statstest.SimRec("e2", "b", "benchmark", "thai", "food", "goal_met", 6, &[3]int{4, 4, 4})
	e3 := statstest.SimRec("e3", "a", "benchmark", "thai", "food", "goal_met", 6, &[3]int{4, 4, 4})
	e1.ParentID, e2.ParentID, e3.ParentID = "spec1", "spec1", "spec2"
	e1.Episode.Subgroup, e2.Episode.Subgroup, e3.Episode.Subgroup = p.Subgroups[0], p.Subgroups[0], "a Thai student abroad"
	s := collect(t, e1, e2, e3).Sim
	if len(s.Coverage) != len(p.Subgroups)+1 {
		t.Fatalf("coverage %+v", s.Coverage)
	}
	if c := s.Coverage[0]; c.Subgroup != p.Subgroups[0] || !c.InCatalogue || c.Specs != 1 || c.Episodes != 2 {
		t.Errorf("first %+v", c)
	}
	if c := s.Coverage[1]; c.Subgroup != p.Subgroups[1] || c.Specs != 0 {
		t.Errorf("second %+v", c)
	}
	if c := s.Coverage[len(s.Coverage)-1]; c.InCatalogue || c.Specs != 1 || c.Subgroup != "a Thai student abroad" {
		t.Errorf("outside %+v", c)
	}
}

// The judge against human reviewers, per score, on the episodes both
// scored (e4 has no human scores); figures by hand below. Spearman: ranks
// 2 1 3 and 3 1 2, rho 0.5.
func TestSimJudgeHuman(t *testing.T) {
	h := func(a float64) *record.SimHuman { return &record.SimHuman{Assistance: &a, Reviewers: 2} }
	e1 := statstest.SimRec("e1", "a", "benchmark", "thai", "food", "goal_met", 6, &[3]int{4, 4, 4})
	e2 := statstest.SimRec("e2", "a", "benchmark", "thai", "food", "goal_met", 6, &[3]int{2, 4, 4})
	e3 := statstest.SimRec("e3", "a", "benchmark", "thai", "food", "goal_met", 6, &[3]int{5, 4, 4})
	e4 := statstest.SimRec("e4", "a", "benchmark", "thai", "food", "goal_met", 6, &[3]int{5, 4, 4}) // no human
	e1.Sim.Human, e2.Sim.Human, e3.Sim.Human = h(4.4), h(2), h(3)
	s := collect(t, e1, e2, e3, e4).Sim
	if len(s.JudgeHuman) != 1 {
		t.Fatalf("judge-human %+v", s.JudgeHuman)
	}
	j := s.JudgeHuman[0]
	// judge 4 2 5 (mean 11/3), human 4.4 2 3 (mean 3.1333); |diff| 0.4
	// 0 2: MAE 0.8, agreement 2 of 3 (4.4 rounds to 4, 3 is not 5).
	// Pearson: judge deviations 1/3 -5/3 4/3, human 1.2667 -1.1333
	// -0.1333: sxy = 0.4222+1.8889-0.1778 = 2.1333, sxx = 14/3, syy =
	// 1.6044+1.2844+0.0178 = 2.9067; r = 2.1333/sqrt(13.5644) = 0.5792.
	if j.Score != "assistance" || j.Episodes != 3 || !approx(j.MAE, 0.8, 1e-12) || !approx(j.Agreement.Mean, 2.0/3, 1e-12) ||
		j.Pearson == nil || !approx(*j.Pearson, 0.5792, 1e-3) || j.Spearman == nil || !approx(*j.Spearman, 0.5, 1e-12) {
		t.Errorf("%+v pearson %v spearman %v", j, j.Pearson, j.Spearman)
	}
}
