package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ngkit/ngkit/filters/stats/internal/statstest"
	"github.com/ngkit/ngkit/filters/stats/pactstats"
	"github.com/ngkit/ngkit/pkg/record"
)

// paperRow is one model's answer to one item, as the authors' CSVs have
// it: the test's independent implementation works on these rows only.
type paperRow struct {
	model, item, group, country                string // group: the scenario item (variant_of)
	actorAge, actorGender, recvAge, recvGender string
	p, h                                       float64 // model culture rate, human culture rate
}

// The known effects of the synthetic PACT run, on the allow rate
// (1 - p_follow), in shares.
var (
	synthCountry = map[string]float64{"brazil": 0.06, "india": -0.03, "south africa": 0.01, "united kingdom": -0.04}
	synthYounger = 0.02  // younger - older, actor and receiver alike
	synthFemale  = 0.012 // female - male
)

// synthPaper builds items in four countries x every actor/receiver age
// and gender, n scenarios each, answered once (one decision) by a base and
// an instruct model (the instruct model allows less by 0.08), with item
// spread; humans answer near the truth.
func synthPaper(n int, seed uint64) ([]*record.Record, []paperRow) {
	rng := rand.New(rand.NewPCG(seed, 29))
	var recs []*record.Record
	var rows []paperRow
	countries := []string{"brazil", "india", "south africa", "united kingdom"}
	i := 0
	for _, c := range countries {
		for s := range n {
			base := 0.3 + 0.1*rng.NormFloat64() // the scenario's own allow rate
			for _, aa := range []string{"younger", "older"} {
				for _, ag := range []string{"female", "male"} {
					for _, ra := range []string{"younger", "older"} {
						for _, rg := range []string{"female", "male"} {
							allow := base + synthCountry[c]
							for _, v := range []string{aa, ra} {
								if v == "younger" {
									allow += synthYounger / 2
								} else {
									allow -= synthYounger / 2
								}
							}
							for _, v := range []string{ag, rg} {
								if v == "female" {
									allow += synthFemale / 2
								} else {
									allow -= synthFemale / 2
								}
							}
							id := fmt.Sprintf("it-%d", i)
							i++
							h := clamp01(1 - allow + 0.1*rng.NormFloat64())
							rec := &record.Record{ID: id, VariantOf: fmt.Sprintf("sc-%s-%d", c, s), Culture: c,
								PactItem: &record.PactItem{Actor: "the actor", Expectation: "e", Preference: "p", FollowOption: "f", AllowOption: "a",
									ActorAge: aa, ActorGender: ag, ReceiverAge: ra, ReceiverGender: rg, ActorCountry: "united kingdom",
									Human: &record.HumanShare{FollowCulture: h, N: 30}}}
							for _, m := range []struct {
								name  string
								shift float64
							}{{"base", 0}, {"instruct", -0.08}} {
								// one sampled answer: the paper's one decision per item
								p := 0.0
								if rng.Float64() >= allow+m.shift {
									p = 1
								}
								rec.Pact = append(rec.Pact, record.PactResult{Model: m.name, Question: record.PactPersonal, Method: "sample", PFollow: statstest.FP(p), Samples: 1, Valid: 1})
								rows = append(rows, paperRow{m.name, id, rec.VariantOf, c, aa, ag, ra, rg, p, h})
							}
							recs = append(recs, rec)
						}
					}
				}
			}
		}
	}
	return recs, rows
}

func clamp01(x float64) float64 { return math.Min(1, math.Max(0, x)) }

// The independent implementation, written from the authors' code
// (group-bys over rows), sharing nothing with pactpaper.go.

func indMean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// indAllow: the share of ALLOW_PREFERENCE decisions (the authors'
// allow_rate_valid), a decision being A when the rate is >= 0.5.
func indAllow(rows []paperRow, keep func(paperRow) bool) float64 {
	var xs []float64
	for _, r := range rows {
		if keep(r) {
			x := 0.0
			if r.p < 0.5 {
				x = 1
			}
			xs = append(xs, x)
		}
	}
	return indMean(xs)
}

func byModel(rows []paperRow, m string) []paperRow {
	var out []paperRow
	for _, r := range rows {
		if r.model == m {
			out = append(out, r)
		}
	}
	return out
}

// indRegionDeltas: per model, each country's allow rate minus the
// model's; averaged over the (instruct) models per country; and max - min.
func indRegionDeltas(rows []paperRow, models, countries []string) (map[string]float64, float64) {
	avg := map[string]float64{}
	for _, m := range models {
		mr := byModel(rows, m)
		overall := indAllow(mr, func(paperRow) bool { return true })
		for _, c := range countries {
			avg[c] += (indAllow(mr, func(r paperRow) bool { return r.country == c }) - overall) * 100 / float64(len(models))
		}
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, d := range avg {
		lo, hi = math.Min(lo, d), math.Max(hi, d)
	}
	return avg, hi - lo
}

// indDemographic: demographic_delta_table then averaged_demographic_delta_table:
// per model and role, allow(plus) - allow(minus) in pp; the mean of the
// two roles per model; the average: each role's mean over the headline
// (instruct) models, then the mean of the roles.
func indDemographic(rows []paperRow, models, headline []string, factor string) (perModel map[string]float64, average float64) {
	perModel = map[string]float64{}
	roleAvg := make([]float64, 2)
	for _, m := range models {
		mr := byModel(rows, m)
		var roles []float64
		for _, get := range []func(paperRow) string{
			func(r paperRow) string {
				if factor == "age" {
					return r.actorAge
				}
				return r.actorGender
			},
			func(r paperRow) string {
				if factor == "age" {
					return r.recvAge
				}
				return r.recvGender
			},
		} {
			plus, minus := "younger", "older"
			if factor == "gender" {
				plus, minus = "female", "male"
			}
			d := (indAllow(mr, func(r paperRow) bool { return get(r) == plus }) - indAllow(mr, func(r paperRow) bool { return get(r) == minus })) * 100
			if slices.Contains(headline, m) {
				roleAvg[len(roles)] += d / float64(len(headline))
			}
			roles = append(roles, d)
		}
		perModel[m] = (roles[0] + roles[1]) / 2
	}
	return perModel, (roleAvg[0] + roleAvg[1]) / 2
}

type indAlign struct{ majority, mae, gap, r float64 }

// indAlignment: summarize_alignment and model_uncertainty of one model,
// whose rows are 0/1 decisions: majority and MAE per row, the gap per
// scenario item, the agreements per scenario item (its rows pooled).
func indAlignment(rows []paperRow) indAlign {
	var a indAlign
	type item struct{ sum, n, h float64 }
	items := map[string]*item{}
	var order []string
	for _, r := range rows {
		hm, mm := "B", "B"
		if r.h >= 0.5 {
			hm = "A"
		}
		if r.p >= 0.5 {
			mm = "A"
		}
		if hm == mm {
			a.majority++
		}
		a.mae += math.Abs(r.p - r.h)
		it := items[r.group]
		if it == nil {
			it = &item{h: r.h}
			items[r.group] = it
			order = append(order, r.group)
		}
		it.sum += r.p
		it.n++
	}
	n := float64(len(rows))
	a.majority, a.mae = a.majority/n, a.mae/n
	var hx, mx []float64
	for _, g := range order {
		it := items[g]
		rate := it.sum / it.n
		a.gap += 100 * (rate - it.h) / float64(len(order))
		hx, mx = append(hx, math.Max(it.h, 1-it.h)), append(mx, math.Max(rate, 1-rate))
	}
	// pandas Series.corr: Pearson
	mh, mm := indMean(hx), indMean(mx)
	var sxy, sxx, syy float64
	for i := range hx {
		sxy += (hx[i] - mh) * (mx[i] - mm)
		sxx += (hx[i] - mh) * (hx[i] - mh)
		syy += (mx[i] - mm) * (mx[i] - mm)
	}
	a.r = sxy / math.Sqrt(sxx*syy)
	return a
}

// indFlips: paired_flip_summary of left vs right.
func indFlips(left, right []paperRow) (pos, neg, same, delta float64) {
	dec := func(p float64) string {
		if p >= 0.5 {
			return "FOLLOW_CULTURE"
		}
		return "ALLOW_PREFERENCE"
	}
	rd := map[string]string{}
	for _, r := range right {
		rd[r.item] = dec(r.p)
	}
	var n, la, ra float64
	for _, l := range left {
		ld, r := dec(l.p), rd[l.item]
		n++
		switch {
		case ld == "FOLLOW_CULTURE" && r == "ALLOW_PREFERENCE":
			pos++
		case ld == "ALLOW_PREFERENCE" && r == "FOLLOW_CULTURE":
			neg++
		default:
			same++
		}
		if ld == "ALLOW_PREFERENCE" {
			la++
		}
		if r == "ALLOW_PREFERENCE" {
			ra++
		}
	}
	return pos / n, neg / n, same / n, 100 * (ra/n - la/n)
}

// TestPactPaperFigures: on a synthetic run with known country and
// demographic effects, the paper's figures equal an independent
// implementation of the authors' definitions to 1e-9, and the intervals
// cover the known effects.
func TestPactPaperFigures(t *testing.T) {
	recs, rows := synthPaper(12, 1)
	r := collect(t, recs...)
	if r.Pact == nil || len(r.Pact.Questions) != 1 {
		t.Fatalf("no PACT section: %+v", r.Pact)
	}
	paper := r.Pact.Questions[0].Paper
	models := []string{"base", "instruct"}
	countries := []string{"brazil", "india", "south africa", "united kingdom"}
	const tol = 1e-9

	// Country spread.
	// the average is over the instruct models: the base model is no family's headline
	wantDeltas, wantRange := indRegionDeltas(rows, []string{"instruct"}, countries)
	var avg *pactstats.Spread
	for i, s := range paper.Spread {
		if s.Attr == pactstats.Culture && s.Model == pactstats.Average {
			avg = &paper.Spread[i]
		}
	}
	if avg == nil || avg.RangePP == nil {
		t.Fatalf("no average country spread: %+v", paper.Spread)
	}
	t.Logf("country range %.3f pp (truth %.1f); deltas %+v", *avg.RangePP, 100*(0.06+0.04), avg.Countries)
	if !approx(*avg.RangePP, wantRange, tol) {
		t.Errorf("range %v, independent %v", *avg.RangePP, wantRange)
	}
	var trueMean float64
	for _, c := range countries {
		trueMean += synthCountry[c] / 4
	}
	for _, c := range avg.Countries {
		if !approx(c.DeltaPP.Mean, wantDeltas[c.Country], tol) {
			t.Errorf("%s delta %v, independent %v", c.Country, c.DeltaPP.Mean, wantDeltas[c.Country])
		}
	}
	// Per model, the intervals cover the known delta (the design is
	// balanced: the truth is the country's effect minus their mean).
	for _, s := range paper.Spread {
		if s.Attr != pactstats.Culture {
			continue
		}
		for _, c := range s.Countries {
			truth := 100 * (synthCountry[c.Country] - trueMean)
			if c.DeltaPP.Low > truth || truth > c.DeltaPP.High {
				t.Errorf("%s %s: delta %+v does not cover %v", s.Model, c.Country, c.DeltaPP, truth)
			}
		}
	}

	// Demographic effects.
	for _, f := range []struct {
		factor string
		truth  float64
	}{{"age", 100 * synthYounger}, {"gender", 100 * synthFemale}} {
		per, average := indDemographic(rows, models, []string{"instruct"}, f.factor)
		seen := 0
		for _, d := range paper.Demographics {
			if d.Factor != f.factor || d.Role != "both" {
				continue
			}
			want := per[d.Model]
			if d.Model == pactstats.Average {
				want = average
			}
			seen++
			t.Logf("%s %s both: %+v (truth %.2f)", f.factor, d.Model, d.DeltaPP, f.truth)
			if !approx(d.DeltaPP.Mean, want, tol) {
				t.Errorf("%s %s: %v, independent %v", f.factor, d.Model, d.DeltaPP.Mean, want)
			}
			if d.DeltaPP.Low > f.truth || f.truth > d.DeltaPP.High {
				t.Errorf("%s %s: %+v does not cover %v", f.factor, d.Model, d.DeltaPP, f.truth)
			}
		}
		if seen != 3 {
			t.Errorf("%s: %d rows of role both, want 3", f.factor, seen)
		}
	}

	// Alignment.
	if len(paper.Alignment) != 2 {
		t.Fatalf("alignment %+v", paper.Alignment)
	}
	for _, a := range paper.Alignment {
		w := indAlignment(byModel(rows, a.Model))
		if !approx(a.Majority.Mean, w.majority, tol) || !approx(a.MAE.Mean, w.mae, tol) || !approx(a.SignedGapPP.Mean, w.gap, tol) ||
			a.Uncertainty == nil || !approx(*a.Uncertainty, w.r, tol) {
			t.Errorf("%s: %+v, independent %+v", a.Model, a, w)
		}
		// the gap's truth: the instruct model is 8 pp more culture-following
		if a.Model == "instruct" && (a.SignedGapPP.Low > 8 || 8 > a.SignedGapPP.High) {
			t.Errorf("instruct gap %+v does not cover 8", a.SignedGapPP)
		}
	}

	// Flips.
	if len(paper.Flips) != 1 {
		t.Fatalf("flips %+v", paper.Flips)
	}
	f := paper.Flips[0]
	pos, neg, same, delta := indFlips(byModel(rows, "base"), byModel(rows, "instruct"))
	if f.Left != "base" || !approx(f.FlipPos.Mean, pos, tol) || !approx(f.FlipNeg.Mean, neg, tol) || !approx(f.Same.Mean, same, tol) || !approx(f.AllowDeltaPP, delta, tol) {
		t.Errorf("flips %+v, independent %v %v %v %v", f, pos, neg, same, delta)
	}
	if f.FlipNeg.Mean <= f.FlipPos.Mean {
		t.Errorf("the instruct model allows less, yet flips %+v", f)
	}
}

// The country spread is not the mean |change|: with no country effect at
// all, its range is small, and the per-country intervals cover 0 (most
// of the time: checked over seeds).
func TestPactPaperNullSpread(t *testing.T) {
	saved := synthCountry
	defer func() { synthCountry = saved }()
	synthCountry = map[string]float64{"brazil": 0, "india": 0, "south africa": 0, "united kingdom": 0}
	covered, total := 0, 0
	for seed := range uint64(10) {
		recs, _ := synthPaper(6, seed+100)
		paper := collect(t, recs...).Pact.Questions[0].Paper
		for _, s := range paper.Spread {
			if s.Attr != pactstats.Culture || s.Model == pactstats.Average {
				continue
			}
			for _, c := range s.Countries {
				total++
				if c.DeltaPP.Low <= 0 && 0 <= c.DeltaPP.High {
					covered++
				}
			}
		}
	}
	if share := float64(covered) / float64(total); share < 0.85 {
		t.Errorf("null country deltas covered 0 in %d of %d", covered, total)
	}
}

// Counterfactual variants (ngseed --vary: the same scenario, variant_of
// shared) are not duplicate scenarios; another group with the same text
// still is. PACT items are never: an item puts one scenario to actors of
// several ages, genders and countries on purpose, under one scenario_id
// (the rows of one item) or several.
func TestVariantsAreNotDuplicates(t *testing.T) {
	item := func(id, variantOf, scenario string) *record.Record {
		return &record.Record{ID: id, VariantOf: variantOf, Culture: "korean", DialogueType: "pact", Scenario: scenario}
	}
	sid := func(id, scenarioID, scenario string) *record.Record {
		r := item(id, "", scenario)
		r.PactItem = &record.PactItem{ScenarioID: scenarioID}
		return r
	}
	r := collect(t,
		item("base", "", "Mina joins her manager for a team dinner."),
		item("base-50", "base", "Mina joins her manager for a team dinner."),
		item("base-30", "base", "Mina joins her manager for a team dinner."),
		item("other", "", "Mina joins her manager for a team dinner."),
		item("other-v", "other", "Mina joins her manager for a team dinner."),
		item("third-v", "third", "Jun meets his teacher in the corridor."),
		item("third-w", "third", "Jun meets his teacher in the corridor."),
		// the rows of one scenario item by its scenario_id (the card's, and
		// ngcat --from pact --respondent-personas' persona items), no
		// variant_of: one scenario, as ngstats' PACT figures group them
		sid("study-1", "i7", "Ana is offered coffee late in the evening."),
		sid("study-1-p1", "i7", "Ana is offered coffee late in the evening."),
		sid("study-1-p2", "i7", "Ana is offered coffee late in the evening."),
		sid("study-2", "i8", "Ana is offered coffee late in the evening."),
	)
	got := defectIDs(r)
	if ids := got["duplicate_scenario"]; fmt.Sprint(ids) != "[other]" {
		t.Errorf("duplicate_scenario %v, want [other]", ids)
	}
	if ids := got["near_duplicate_scenario"]; len(ids) != 0 {
		t.Errorf("near_duplicate_scenario %v", ids)
	}
}

// The human study by its authors' summaries: culture rate and majority
// agreement per framing, by respondent country and by relation (an
// Indian respondent on a Brazilian scenario is "far" by the fallback, on
// a Pakistani one "close"); the alignment of each framing uses that
// framing's human share.
func TestPactHumanStudy(t *testing.T) {
	ans := func(r, c, personal, norm string) record.HumanAnswer {
		return record.HumanAnswer{Respondent: r, Country: c, Personal: personal, Norm: norm}
	}
	F, A := record.PactFollow, record.PactAllow
	i1 := &record.Record{ID: "i1", Culture: "brazilian", PactItem: &record.PactItem{Actor: "the actor", ReceiverCountry: "Brazil",
		Human: &record.HumanShare{FollowCulture: 0.5, Personal: statstest.FP(0.25), Norm: statstest.FP(0.75), Answers: []record.HumanAnswer{
			ans("r1", "India", F, F), ans("r2", "Brazil", A, F), ans("r3", "Brazil", A, F), ans("r4", "India", A, A)}}},
		Pact: []record.PactResult{{Model: "m", Question: record.PactPersonal, PFollow: statstest.FP(0.25)}, {Model: "m", Question: record.PactNorm, PFollow: statstest.FP(0.5)}}}
	i2 := &record.Record{ID: "i2", Culture: "pakistan", PactItem: &record.PactItem{Actor: "the actor", ReceiverCountry: "Pakistan",
		Human: &record.HumanShare{Answers: []record.HumanAnswer{ans("r1", "India", F, "")}}}}
	// a persona variant of i1 carries i1's answers: they count once
	i1v := &record.Record{ID: "i1-v", VariantOf: "i1", Culture: "brazilian", PactItem: i1.PactItem}
	r := collect(t, i1, i1v, i2)
	got := map[string]pactstats.HumanGroup{}
	for _, g := range r.Pact.HumanStudy {
		got[g.Framing+" "+g.Grouping+" "+g.Value] = g
	}
	for k, want := range map[string][2]float64{ // culture rate, agreement
		"personal overall ":                 {2.0 / 5, 3.0 / 5},
		"norm overall ":                     {3.0 / 4, 3.0 / 4},
		"personal relation same":            {0, 1},         // r2, r3 on Brazil
		"personal relation far":             {1.0 / 2, 0.5}, // India on Brazil: r1 F, r4 A
		"personal relation close":           {1, 1},         // India on Pakistan
		"personal respondent_country India": {2.0 / 3, 2.0 / 3},
		"norm respondent_country Brazil":    {1, 1},
		"norm scenario_country Brazil":      {3.0 / 4, 3.0 / 4},
	} {
		g, ok := got[k]
		if !ok || !approx(g.CultureRate.Mean, want[0], 1e-12) || g.Agreement == nil || !approx(*g.Agreement, want[1], 1e-12) {
			t.Errorf("%s: %+v (present %v), want rate %v agreement %v", k, g, ok, want[0], want[1])
		}
	}
	// The authors count every row of a group, a blank answer too
	// (len(grp)): judgments 5 in both framings, 4 answered in norm.
	for _, k := range []string{"personal overall ", "norm overall "} {
		if g := got[k]; g.Respondents != 4 || g.Items != 2 || g.Judgments != 5 {
			t.Errorf("%s counts %+v", k, g)
		}
	}
	if g := got["norm overall "]; g.Answered != 4 {
		t.Errorf("norm overall answered %d, want 4", g.Answered)
	}
	// India on Pakistan, norm: a row, no answer: the rate is undefined
	if g, ok := got["norm relation close"]; !ok || g.Judgments != 1 || g.Answered != 0 || g.CultureRate.N != 0 || g.Agreement != nil {
		t.Errorf("norm relation close: %+v (present %v)", g, ok)
	}
	// alignment per framing, with the framing's human share: personal
	// p 0.25 (decision allow, 0) vs h 0.25, norm p 0.5 (a tie: culture,
	// 1) vs 0.75; the p_follow MAE is ngkit's distributional variant
	for _, q := range r.Pact.Questions {
		a := q.Paper.Alignment[0]
		want := map[string][2]float64{record.PactPersonal: {0.25, 0}, record.PactNorm: {0.25, 0.25}}[q.Question]
		if !approx(a.MAE.Mean, want[0], 1e-12) || !approx(a.PFollowMAE.Mean, want[1], 1e-12) {
			t.Errorf("%s: MAE %v, p_follow MAE %v, want %v", q.Question, a.MAE.Mean, a.PFollowMAE.Mean, want)
		}
	}
}
