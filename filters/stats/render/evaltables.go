package render

import (
	"strconv"

	"github.com/ngkit/ngkit/filters/stats"
	"github.com/ngkit/ngkit/filters/stats/evalmath"
	"github.com/ngkit/ngkit/filters/stats/pactstats"
	"github.com/ngkit/ngkit/filters/stats/simstats"
)

// The PACT and simulation sections laid out as tables (text, Markdown,
// and the HTML report's tables).

func f1(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }
func f2(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) }
func f3(f float64) string { return strconv.FormatFloat(f, 'f', 3, 64) }

// ivPct writes a share and its interval as percentages: "52.3% [48.1, 56.0]".
func ivPct(iv evalmath.Interval) string {
	if iv.N == 0 {
		return "-"
	}
	return f1(100*iv.Mean) + "% [" + f1(100*iv.Low) + ", " + f1(100*iv.High) + "]"
}

// ivNum writes a mean and its interval with the given formatter.
func ivNum(iv evalmath.Interval, f func(float64) string) string {
	if iv.N == 0 {
		return "-"
	}
	return f(iv.Mean) + " [" + f(iv.Low) + ", " + f(iv.High) + "]"
}

func optStr(p *float64) string {
	if p == nil {
		return "-"
	}
	return f3(*p)
}

func pactTables(p *pactstats.Report) []table {
	if p == nil {
		return nil
	}
	var ts []table
	for _, q := range p.Questions {
		pre := "PACT, question " + q.Question + ": "
		overall := table{title: pre + "culture-following rate per model",
			header: []string{"model", "results", "no valid", "p_follow (95% CI)", "majority follow (95% CI)", "follow", "allow", "tie", "entropy (bits)"}}
		byCulture := table{title: pre + "culture-following rate by culture",
			header: []string{"model", "culture", "items", "p_follow (95% CI)", "majority follow (95% CI)"}}
		byAttr := table{title: pre + "culture-following rate by persona attribute",
			header: []string{"model", "attribute", "value", "items", "p_follow (95% CI)", "majority follow (95% CI)"}}
		for _, r := range q.Rates {
			switch r.Attr {
			case "":
				overall.rows = append(overall.rows, []string{r.Model, num(r.Results), num(r.Invalid), ivPct(r.PFollow), ivPct(r.FollowShare),
					num(r.Follow), num(r.Allow), num(r.Tie), optStr(r.Entropy)})
			case pactstats.Culture:
				byCulture.rows = append(byCulture.rows, []string{r.Model, orNone(r.Value), num(r.PFollow.N), ivPct(r.PFollow), ivPct(r.FollowShare)})
			default:
				byAttr.rows = append(byAttr.rows, []string{r.Model, r.Attr, orNone(r.Value), num(r.PFollow.N), ivPct(r.PFollow), ivPct(r.FollowShare)})
			}
		}
		overall.notes = append(overall.notes, "p_follow: mean over items with a valid distribution, 95% t interval over items;",
			"majority follow: share of items whose majority is follow_culture (ties count as not), 95% Wilson interval")
		ts = append(ts, overall)
		for _, t := range []table{byCulture, byAttr} {
			if len(t.rows) > 0 {
				ts = append(ts, t)
			}
		}
		if len(q.Effects) > 0 {
			t := table{title: pre + "counterfactual effect of each attribute (variants of one item differing only in it)",
				header: []string{"model", "attribute", "items", "pairs", "mean |change| pp (95% CI)"}}
			c := table{title: pre + "signed change between attribute values (B - A)",
				header: []string{"model", "attribute", "A", "B", "pairs", "change pp (95% CI)"}}
			for _, e := range q.Effects {
				t.rows = append(t.rows, []string{e.Model, e.Attr, num(e.Items), num(e.Pairs), ivNum(e.MeanAbsPP, f1)})
				for _, k := range e.Contrasts {
					c.rows = append(c.rows, []string{e.Model, e.Attr, k.A, k.B, num(k.Pairs), ivNum(k.DiffPP, f1)})
				}
			}
			t.notes = append(t.notes, "mean absolute change of p_follow between two variants, percentage points; per item first, then over items;",
				"95% t interval over item groups; sampling noise in p_follow raises it (a null attribute scores above 0), so it is not the paper's effect size: see the signed changes and the paper's figures")
			ts = append(ts, t, c)
		}
		if len(q.Agreement) > 0 {
			t := table{title: pre + "agreement between models", header: []string{"model A", "model B", "items", "same majority", "Cohen's kappa", "Pearson r"}}
			for _, a := range q.Agreement {
				t.rows = append(t.rows, []string{a.A, a.B, num(a.Items), pct(a.Agreement), optStr(a.Kappa), optStr(a.Pearson)})
			}
			t.notes = append(t.notes, "kappa over the majorities (follow, allow, tie); Pearson r of p_follow; - when undefined")
			ts = append(ts, t)
		}
		if len(q.Human) > 0 {
			t := table{title: pre + "models against human distributions", header: []string{"model", "items", "majority agreement", "Pearson r", "Spearman rho", "mean JSD (bits)"}}
			for _, h := range q.Human {
				t.rows = append(t.rows, []string{h.Model, num(h.Items), pct(h.Agreement), optStr(h.Pearson), optStr(h.Spearman), f3(h.JSD)})
			}
			t.notes = append(t.notes, "human majority: follow share above 0.5 follow, below allow, 0.5 tie; Spearman with ties at mean ranks; JSD base 2 (0 same, 1 disjoint)")
			ts = append(ts, t)
		}
		ts = append(ts, paperTables(pre, q.Paper)...)
	}
	return append(ts, pactRunTables(p)...)
}

// pactRunTables are the PACT tables of more than one framing: the
// averages over the framings, the persona-prompted run, the human study.
func pactRunTables(p *pactstats.Report) []table {
	ts := framingAverageTable(p.FramingAverages)
	ts = append(ts, personaTable(p.Persona)...)
	ts = append(ts, humanStudyTable(p.HumanStudy)...)
	return append(ts, regressionTables(p.HumanRegression)...)
}

func outcomeCells(r simstats.Row) []string {
	var cells []string
	for _, o := range simstats.Outcomes {
		share := 0.0
		if r.Constraints > 0 {
			share = float64(r.Outcomes[o]) / float64(r.Constraints)
		}
		cells = append(cells, num(r.Outcomes[o])+" ("+pct(share)+")")
	}
	return cells
}

var simOutcomeHeader = []string{"inferred & respected", "respected w/o asking", "violated", "not addressed"}

func simRowCells(r simstats.Row) []string {
	return []string{num(r.Episodes), num(r.Judged), ivNum(r.Assistance, f2), ivNum(r.Cultural, f2), ivNum(r.Language, f2),
		ivPct(r.Inferred), ivPct(r.GoalMet), f1(r.Turns)}
}

var simRowHeader = []string{"episodes", "judged", "assistance (95% CI)", "cultural (95% CI)", "language (95% CI)", "inference rate (95% CI)", "goal met (95% CI)", "mean turns"}

func simTables(s *simstats.Report) []table {
	if s == nil {
		return nil
	}
	var ts []table
	if len(s.Leaderboard) > 0 {
		t := table{title: "Simulation leaderboard (benchmark mode)",
			header: append([]string{"rank", "assistant", "overall"}, simRowHeader...)}
		for _, r := range s.Leaderboard {
			t.rows = append(t.rows, append([]string{strconv.Itoa(r.Rank), r.Assistant, f2(r.Overall)}, simRowCells(r.Row)...))
		}
		t.notes = append(t.notes, "overall: mean of the assistance, cultural and language means (1-5); ranked by "+s.RankedBy+" (--rank-by), then by inference rate")
		ts = append(ts, t)
	}
	t := table{title: "Simulation per assistant and mode", header: append([]string{"assistant", "mode"}, simRowHeader...)}
	o := table{title: "Simulation: constraint outcomes per assistant and mode", header: append([]string{"assistant", "mode", "constraints"}, simOutcomeHeader...)}
	for _, r := range s.Assistants {
		t.rows = append(t.rows, append([]string{r.Assistant, r.Mode}, simRowCells(r)...))
		orow := append([]string{r.Assistant, r.Mode, num(r.Constraints)}, outcomeCells(r)...)
		o.rows = append(o.rows, orow)
		if r.Unjudged > 0 || r.Outcomes["other"] > 0 {
			o.notes = append(o.notes, r.Assistant+" "+r.Mode+": "+num(r.Unjudged)+" constraints without an outcome, "+num(r.Outcomes["other"])+" with an unknown outcome")
		}
	}
	t.notes = append(t.notes, "scores: judge's 1-5 means over judged episodes, 95% percentile bootstrap over episodes (normal interval above 2,000);",
		"inference rate: share of judged constraints inferred_and_respected; goal met: share of episodes; both 95% Wilson intervals; turns count both speakers",
		"episodes without a judge verdict count in episodes, goal met and turns only")
	ts = append(ts, t, o)
	for _, g := range []struct {
		name string
		rows []simstats.Row
	}{{"culture", s.ByCulture}, {"domain", s.ByDomain}, {"subgroup", s.BySubgroup}} {
		t := table{title: "Simulation by " + g.name, header: append([]string{"assistant", "mode", g.name}, simRowHeader...)}
		for _, r := range g.rows {
			t.rows = append(t.rows, append([]string{r.Assistant, r.Mode, orNone(r.Group)}, simRowCells(r)...))
		}
		if len(t.rows) > 0 {
			ts = append(ts, t)
		}
	}
	if len(s.JudgeHuman) > 0 {
		t := table{title: "Simulation: the judge against human reviewers", header: []string{"score", "episodes", "judge mean", "human mean", "mean |diff|", "agreement (95% CI)", "Pearson r", "Spearman rho"}}
		for _, j := range s.JudgeHuman {
			t.rows = append(t.rows, []string{j.Score, num(j.Episodes), f2(j.Judge), f2(j.Human), f2(j.MAE), ivPct(j.Agreement), optStr(j.Pearson), optStr(j.Spearman)})
		}
		t.notes = append(t.notes, "episodes scored by both (ngcat --to labelstudio --review-tasks rubric, and back); agreement: the reviewers' mean rounds to the judge's score, Wilson interval")
		ts = append(ts, t)
	}
	if len(s.Coverage) > 0 {
		t := table{title: "Simulation: subgroup coverage", header: []string{"culture", "subgroup", "in catalogue", "specs", "episodes"}}
		for _, c := range s.Coverage {
			in := "no"
			if c.InCatalogue {
				in = "yes"
			}
			t.rows = append(t.rows, []string{orNone(c.Culture), orNone(c.Subgroup), in, num(c.Specs), num(c.Episodes)})
		}
		t.notes = append(t.notes, "the culture profile's subgroup catalogue (ngseed --types episode --subgroups catalogue), 0 where none ran; specs: distinct episode specs")
		ts = append(ts, t)
	}
	return ts
}

// evalTables are the PACT and simulation tables of r.
func evalTables(r *stats.Report) []table {
	return append(pactTables(r.Pact), simTables(r.Sim)...)
}
