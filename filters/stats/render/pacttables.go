package render

import "github.com/ngkit/ngkit/filters/stats/pactstats"

func humanStudyTable(gs []pactstats.HumanGroup) []table {
	if len(gs) == 0 {
		return nil
	}
	t := table{title: "PACT, the paper's human study: culture rate and majority agreement",
		header: []string{"framing", "grouping", "value", "judgments", "respondents", "items", "answered", "culture rate (95% CI)", "majority agreement"}}
	for _, g := range gs {
		t.rows = append(t.rows, []string{g.Framing, g.Grouping, orNone(g.Value), num(g.Judgments), num(g.Respondents), num(g.Items), num(g.Answered), ivPct(g.CultureRate), optPct(g.Agreement)})
	}
	t.notes = append(t.notes, "from human.answers, one row per respondent and item (an item's variants count once); judgments count every row, answered those with an answer in the framing;",
		"relation of the respondent's country to the scenario's (same, close, far) as the authors' table; majority agreement = max(rate, 1 - rate); Wilson intervals over answered rows")
	return []table{t}
}

func framingAverageTable(fs []pactstats.FramingAverage) []table {
	if len(fs) == 0 {
		return nil
	}
	t := table{title: "PACT, the paper's alignment averaged over the two framings (personal, norm)",
		header: []string{"model", "majority alignment", "distributional MAE", "signed gap pp", "uncertainty r"}}
	for _, f := range fs {
		gap := "-"
		if f.SignedGapPP != nil {
			gap = f1(*f.SignedGapPP)
		}
		t.rows = append(t.rows, []string{f.Model, pct(f.Majority), optStr(f.MAE), gap, optStr(f.Uncertainty)})
	}
	t.notes = append(t.notes, "the mean of the two framings' figures (the paper's alignmentAvg); r: of the framings where it is defined, of this persona-free run (the paper's uncertaintyAvg is of the persona-prompted run)")
	return []table{t}
}

// optPct is a percentage or "-".
func optPct(p *float64) string {
	if p == nil {
		return "-"
	}
	return pct(*p)
}

// paperTables lays out the paper's figures of one framing.
func paperTables(pre string, p pactstats.Paper) []table {
	var ts []table
	if len(p.Models) > 0 {
		t := table{title: pre + "the paper's models: family, stage, UNKNOWN rate, decision conflict across an item's variants",
			header: []string{"model", "family", "stage", "results", "invalid", "unknown rate", "allow rate", "items", "decision entropy", "conflict rate"}}
		for _, m := range p.Models {
			t.rows = append(t.rows, []string{m.Model, m.Family, m.Stage, num(m.Results), num(m.Invalid), pct(m.UnknownRate), optPct(m.AllowRate),
				num(m.Items), optStr(m.DecisionEntropy), optPct(m.DecisionConflict)})
		}
		t.notes = append(t.notes, "family and stage from the model's name as the authors' scripts read it; (average) rows average the non-base models over families;",
			"allow rate: share of allow decisions among valid results; entropy (bits) of each item's decisions, mean over items; conflict: share of items whose decisions differ")
		ts = append(ts, t)
	}
	if len(p.Spread) > 0 {
		t := table{title: pre + "the paper's country spread (allow-rate delta of each country from the model's overall rate)",
			header: []string{"model", "country attribute", "country", "items", "allow rate", "delta pp (95% CI)"}}
		r := table{title: pre + "the paper's country spread: range of the deltas (max - min)",
			header: []string{"model", "country attribute", "countries", "allow rate", "range pp"}}
		for _, s := range p.Spread {
			for _, c := range s.Countries {
				t.rows = append(t.rows, []string{s.Model, s.Attr, c.Country, num(c.Items), pct(c.AllowRate), ivNum(c.DeltaPP, f1)})
			}
			rng := "-"
			if s.RangePP != nil {
				rng = f1(*s.RangePP)
			}
			r.rows = append(r.rows, []string{s.Model, s.Attr, num(int64(len(s.Countries))), pct(s.AllowRate), rng})
		}
		t.notes = append(t.notes, "allow rate: share of allow decisions; culture is the scenario's country, region its world region; (average): each delta averaged over the families, half-widths averaged (conservative)")
		r.notes = append(r.notes, "the paper's 7.8 is this range for (average), region")
		ts = append(ts, t, r)
	}
	if len(p.Demographics) > 0 {
		t := table{title: pre + "the paper's demographic effects (signed allow-rate differences)",
			header: []string{"model", "factor", "role", "contrast", "delta pp (95% CI)"}}
		for _, d := range p.Demographics {
			t.rows = append(t.rows, []string{d.Model, d.Factor, d.Role, d.Plus + " - " + d.Minus, ivNum(d.DeltaPP, f2)})
		}
		t.notes = append(t.notes, "cluster interval over item groups; both: mean of the roles the model has; (average): each role averaged over the families, both the mean of those;",
			"half-widths averaged (conservative); the paper's 1.0 (age) and 0.7 (gender) are (average), both")
		ts = append(ts, t)
	}
	if len(p.Alignment) > 0 {
		t := table{title: pre + "the paper's human-model alignment (one decision per result: argmax, p_follow >= 0.5 is culture)",
			header: []string{"model", "rows", "invalid", "items", "human culture rate", "model culture rate", "majority alignment (95% CI)", "distributional MAE (95% CI)", "signed gap pp (95% CI)", "p_follow MAE"}}
		u := table{title: pre + "the paper's uncertainty alignment (each item's results pooled)",
			header: []string{"model", "items", "human agreement", "model agreement", "model agreement where humans disagree", "uncertainty r (95% CI)"}}
		for _, a := range p.Alignment {
			r := optStr(a.Uncertainty)
			if a.UncertaintyLow != nil {
				r += " [" + f3(*a.UncertaintyLow) + ", " + f3(*a.UncertaintyHigh) + "]"
			}
			t.rows = append(t.rows, []string{a.Model, num(a.Rows), num(a.Invalid), num(a.Items), pct(a.HumanCultureRate), optPct(a.ModelCultureRate), ivPct(a.Majority),
				ivNum(a.MAE, f3), ivNum(a.SignedGapPP, f1), ivNum(a.PFollowMAE, f3)})
			u.rows = append(u.rows, []string{a.Model, num(a.UncertaintyItems), pct(a.HumanAgreement), optPct(a.ModelAgreement), optPct(a.ModelAgreementLowHuman), r})
		}
		t.notes = append(t.notes, "human majority: share >= 0.5; an invalid result is a mismatch; MAE = mean |decision - human share| over valid rows; gap = model - human, per item;",
			"p_follow MAE: the same with p_follow for the decision (ngkit's distributional variant, not a paper figure)")
		u.notes = append(u.notes, "agreement = max(r, 1 - r); an item's model rate is the mean decision of its results (persona variants);",
			"where humans disagree: items with human agreement <= the median; r: Pearson across items, Fisher-z interval; - when undefined (one result per item: agreement 1 everywhere)")
		ts = append(ts, t, u)
	}
	ts = append(ts, subgroupTable(pre, p.Subgroups)...)
	if len(p.Flips) > 0 {
		t := table{title: pre + "the paper's paired flips (left model -> right model, same items)",
			header: []string{"left", "right", "items", "left allow", "right allow", "delta pp", "culture -> preference (95% CI)", "preference -> culture (95% CI)", "same (95% CI)"}}
		for _, f := range p.Flips {
			t.rows = append(t.rows, []string{f.Left, f.Right, num(f.Items), pct(f.LeftAllow), pct(f.RightAllow), f1(f.AllowDeltaPP),
				ivPct(f.FlipPos), ivPct(f.FlipNeg), ivPct(f.Same)})
		}
		t.notes = append(t.notes, "decision: follow_culture when p_follow >= 0.5; Wilson intervals; pairs in name order (base vs instruct: the base model's name first)")
		ts = append(ts, t)
	}
	return ts
}

// personaTable shows every row, or the one line that says why there is
// none.
func personaTable(run *pactstats.PersonaRun) []table {
	if run == nil {
		return nil
	}
	const title = "PACT, the paper's persona-subgroup alignment (a persona-prompted run against its persona's human subgroup)"
	unc := personaUncertaintyTable(run)
	if run.NotComputable != "" {
		return append([]table{{title: title + ": not computable: " + run.NotComputable}}, unc...)
	}
	t := table{title: title,
		header: []string{"question", "model", "persona country", "persona demo", "rows", "items", "human culture rate", "model culture rate", "majority alignment (95% CI)", "distributional MAE (95% CI)", "signed gap pp (95% CI)"}}
	for _, s := range run.Alignment {
		t.rows = append(t.rows, []string{s.Question, s.Model, s.Country, s.Demo, num(s.Rows), num(s.Items), pct(s.HumanCultureRate), optPct(s.ModelCultureRate),
			ivPct(s.Majority), ivNum(s.MAE, f3), ivNum(s.SignedGapPP, f1)})
	}
	t.notes = append(t.notes, "the subgroup's human share is that of its answers (respondent country and demo equal to the persona's) to the item in the framing;",
		"the persona-prompted results count in no other PACT figure")
	if run.Incomplete > 0 || run.Unmatched > 0 {
		t.notes = append(t.notes, num(run.Incomplete)+" of "+num(run.Results)+" persona-prompted results lack persona_country or persona_demo, "+
			num(run.Unmatched)+" have no answer of their subgroup on their item: in no row")
	}
	return append([]table{t}, unc...)
}

// personaUncertaintyTable shows the run's uncertainty alignment, per
// framing and averaged over the two (the paper's uncertainty figures).
func personaUncertaintyTable(run *pactstats.PersonaRun) []table {
	if len(run.Uncertainty) == 0 {
		return nil
	}
	t := table{title: "PACT, the paper's uncertainty alignment, of the persona-prompted run",
		header: []string{"question", "model", "items", "model majority agreement", "where humans disagree", "uncertainty r (95% CI)"}}
	r := func(u pactstats.PersonaUncertainty) string {
		s := optStr(u.Uncertainty)
		if u.UncertaintyLow != nil {
			s += " [" + f3(*u.UncertaintyLow) + ", " + f3(*u.UncertaintyHigh) + "]"
		}
		return s
	}
	for _, u := range run.Uncertainty {
		t.rows = append(t.rows, []string{u.Question, u.Model, num(u.Items), optPct(u.ModelAgreement), optPct(u.ModelAgreementLowHuman), r(u)})
	}
	for _, u := range run.UncertaintyAverages {
		t.rows = append(t.rows, []string{"(both)", u.Model, "", optPct(u.ModelAgreement), "", r(u)})
	}
	t.notes = append(t.notes, "every persona's results of an item pooled into its model rate, against the human rate of all its answers;",
		"(both): model agreement and r averaged over personal and norm, r where defined (the paper's uncertaintyAvg)")
	return []table{t}
}

// regressionTables show the fits briefly: per model its size, rank and
// deviance, and the drop-one deviances (the coefficients are in --json).
func regressionTables(r *pactstats.Regression) []table {
	if r == nil {
		return nil
	}
	t := table{title: "PACT, the paper's human regressions (ridge logistic, the authors' NumPy fit): drop-one deviance per factor",
		header: []string{"model", "rows", "df model", "deviance", "dropped factor", "drop-one deviance", "df difference"}}
	for _, m := range r.Models {
		if m.Error != "" {
			t.rows = append(t.rows, []string{m.Model, num(int64(m.Nobs)), "-", "-", "(not fitted: " + m.Error + ")", "-", "-"})
			continue
		}
		t.rows = append(t.rows, []string{m.Model, num(int64(m.Nobs)), num(int64(m.DfModel)), f3(m.Deviance), "(none)", "-", "-"})
		for _, d := range r.DropOne {
			if d.Model == m.Model {
				t.rows = append(t.rows, []string{"", "", num(int64(d.ReducedDfModel)), f3(d.ReducedDeviance), d.Dropped, dev3(d.DropOneDeviance), num(int64(d.DfDifference))})
			}
		}
	}
	t.notes = append(t.notes, "one row per respondent, item and answered framing; factors dummy-coded (first level dropped), ridge 1e-6 on all but the intercept;",
		"df model = rank of the design - 1; the coefficients, standard errors, z and p are in --json (pact.human_regression)")
	return []table{t}
}

// dev3 is a deviance difference to three decimals, a rounding error below
// zero shown as 0.000.
func dev3(x float64) string {
	if s := f3(x); s != "-0.000" {
		return s
	}
	return "0.000"
}

// subgroupTable shows each model's three closest subgroups (all are in
// the JSON).
func subgroupTable(pre string, subs []pactstats.Subgroup) []table {
	if len(subs) == 0 {
		return nil
	}
	t := table{title: pre + "the paper's closest human subgroups (respondent country and demographic group), the first three per model",
		header: []string{"model", "rank", "respondent country", "respondent demo", "rows", "items", "human culture rate", "majority alignment (95% CI)", "distributional MAE (95% CI)", "signed gap pp (95% CI)"}}
	for _, s := range subs {
		if s.Rank > 3 {
			continue
		}
		t.rows = append(t.rows, []string{s.Model, num(int64(s.Rank)), s.Country, s.Demo, num(s.Rows), num(s.Items), pct(s.HumanRate),
			ivPct(s.Majority), ivNum(s.MAE, f3), ivNum(s.SignedGapPP, f1)})
	}
	t.notes = append(t.notes, "ranked by majority alignment, then MAE; the subgroup's human share is that of its answers to the item; every subgroup is in --json (paper.subgroups)")
	return []table{t}
}
