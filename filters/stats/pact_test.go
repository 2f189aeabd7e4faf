package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/ngkit/ngkit/filters/stats/evalmath"
	"github.com/ngkit/ngkit/filters/stats/internal/statstest"
	"github.com/ngkit/ngkit/filters/stats/pactstats"
	"github.com/ngkit/ngkit/pkg/record"
)

func approx(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func findRate(q pactstats.Question, model, attr, value string) *pactstats.Rate {
	for i, r := range q.Rates {
		if r.Model == model && r.Attr == attr && r.Value == value {
			return &q.Rates[i]
		}
	}
	return nil
}

func findEffect(q pactstats.Question, model, attr string) *pactstats.Effect {
	for i, e := range q.Effects {
		if e.Model == model && e.Attr == attr {
			return &q.Effects[i]
		}
	}
	return nil
}

// TestPactSmallByHand: four items, two models; every figure by hand
// (render's TestPactFormats shows them).
func TestPactSmallByHand(t *testing.T) {
	recs := statstest.SmallPactRecords()
	r := collect(t, recs...)
	if r.Pact == nil || r.Pact.Items != 4 || len(r.Pact.Questions) != 1 || r.Pact.Questions[0].Question != "choice" {
		t.Fatalf("pact section %+v", r.Pact)
	}
	q := r.Pact.Questions[0]
	// Model a: p = .8 .5 .2 .4, mean .475; majorities follow, tie, allow,
	// allow: follow share 1/4.
	a := findRate(q, "a", "", "")
	if a == nil || a.PFollow.N != 4 || !approx(a.PFollow.Mean, 0.475, 1e-12) || a.Follow != 1 || a.Tie != 1 || a.Allow != 2 ||
		a.FollowShare.Mean != 0.25 || a.PFollow.Low > 0.475 || a.PFollow.High < 0.475 {
		t.Errorf("model a overall %+v", a)
	}
	lo, hi := evalmath.Wilson(1, 4)
	if a.FollowShare.Low != lo || a.FollowShare.High != hi {
		t.Errorf("follow share interval %+v, want Wilson %v %v", a.FollowShare, lo, hi)
	}
	// Model b: y-m has no valid sample.
	if b := findRate(q, "b", "", ""); b.Invalid != 1 || b.PFollow.N != 3 || !approx(b.PFollow.Mean, (0.6+0.4+0.3)/3, 1e-12) {
		t.Errorf("model b overall %+v", b)
	}
	// By culture: a korean .8 .5 -> .65; american .2 .4 -> .3.
	if k := findRate(q, "a", "culture", "korean"); k == nil || !approx(k.PFollow.Mean, 0.65, 1e-12) {
		t.Errorf("a korean %+v", k)
	}
	if g := findRate(q, "a", "gender", "male"); g == nil || !approx(g.PFollow.Mean, 0.45, 1e-12) {
		t.Errorf("a male %+v", g)
	}
	// Effect of gender on a: item x |.5-.8| = 30 pp, item y |.4-.2| = 20
	// pp: mean 25. Signed male - female: -30 and +20, mean -5.
	e := findEffect(q, "a", "gender")
	if e == nil || e.Items != 2 || e.Pairs != 2 || !approx(e.MeanAbsPP.Mean, 25, 1e-9) || len(e.Contrasts) != 1 {
		t.Fatalf("a gender effect %+v", e)
	}
	if c := e.Contrasts[0]; c.A != "female" || c.B != "male" || !approx(c.DiffPP.Mean, -5, 1e-9) || c.DiffPP.Low > -5 || c.DiffPP.High < -5 {
		t.Errorf("contrast %+v", c)
	}
	// Culture never varies within an item: no effect row.
	if findEffect(q, "a", "culture") != nil {
		t.Error("culture effect without culture variants")
	}
	// Model b: only item x has a valid pair: |.4-.6| = 20.
	if e := findEffect(q, "b", "gender"); e == nil || e.Items != 1 || !approx(e.MeanAbsPP.Mean, 20, 1e-9) {
		t.Errorf("b gender effect %+v", e)
	}
	// Agreement a vs b on the 3 items both answered: majorities
	// (follow,follow) (tie,allow) (allow,allow): 2/3 the same.
	// Confusion over follow, allow, tie: [1 0 0; 0 1 0; 0 1 0]; po = 2/3,
	// pe = (1/3)(1/3) + (1/3)(2/3) + (1/3)(0) = 1/3; kappa = (2/3-1/3)/(2/3) = .5.
	// Pearson of (.8 .5 .2) and (.6 .4 .3): deviations .3 0 -.3 and
	// .1667 -.0333 -.1333; sxy = .05+0+.04 = .09, sxx = .18, syy =
	// .02778+.00111+.01778 = .046667; r = .09/sqrt(.0084) = .981981.
	if len(q.Agreement) != 1 {
		t.Fatalf("agreement %+v", q.Agreement)
	}
	ag := q.Agreement[0]
	if ag.Items != 3 || !approx(ag.Agreement, 2.0/3, 1e-12) || ag.Kappa == nil || !approx(*ag.Kappa, 0.5, 1e-12) ||
		ag.Pearson == nil || !approx(*ag.Pearson, 0.981981, 1e-6) {
		t.Errorf("agreement %+v kappa %v pearson %v", ag, optStr(ag.Kappa), optStr(ag.Pearson))
	}
	// Human, model a on the 3 items with a human share (x-f .9, x-m .7,
	// y .2): p .8 .5 .2. Majorities follow/follow, tie/follow,
	// allow/allow: 2/3. Pearson of (.8 .5 .2) and (.9 .7 .2): deviations
	// .3 0 -.3 and .3 .1 -.4; sxy = .09+.12 = .21, sxx = .18, syy = .26;
	// r = .21/sqrt(.0468) = .970725. Spearman: ranks 3 2 1 and 3 2 1 -> 1.
	// JSD: (.8,.9) = .0133 (see below), (.5,.7) and (.2,.2) = 0.
	var ha *pactstats.Human
	for i := range q.Human {
		if q.Human[i].Model == "a" {
			ha = &q.Human[i]
		}
	}
	if ha == nil || ha.Items != 3 || !approx(ha.Agreement, 2.0/3, 1e-12) || ha.Pearson == nil || !approx(*ha.Pearson, 0.970725, 1e-6) ||
		ha.Spearman == nil || !approx(*ha.Spearman, 1, 1e-12) {
		t.Fatalf("human a %+v", ha)
	}
	if want := (evalmath.JSD2(0.8, 0.9) + evalmath.JSD2(0.5, 0.7) + 0) / 3; !approx(ha.JSD, want, 1e-12) || ha.JSD <= 0 || ha.JSD > 0.05 {
		t.Errorf("human JSD %v, want %v", ha.JSD, want)
	}

	// A p_follow or human share outside [0, 1] is no valid value.
	bad := statstest.PactRec("z", "", "korean", nil, statstest.FP(1.5), map[string]*float64{"a": statstest.FP(-0.1)})
	if rb := findRate(collect(t, append(recs, bad)...).Pact.Questions[0], "a", "", ""); rb.Invalid != 1 || rb.PFollow.N != 4 {
		t.Errorf("p_follow -0.1 taken as valid: %+v", rb)
	}

}

// injectedPact is a synthetic corpus of 300 items, each in two cultures
// and two genders: korean raises p_follow by 10 pp, gender changes
// nothing; each item has its own level, and each variant 2 pp of
// measurement noise, drawn from seed.
func injectedPact(t *testing.T, seed uint64) pactstats.Question {
	rng := rand.New(rand.NewPCG(seed, 4))
	var recs []*record.Record
	for i := range 300 {
		base := 0.2 + 0.5*rng.Float64() // the item's own level
		group := "item" + strconv.Itoa(i)
		for _, culture := range []string{"american", "korean"} {
			for _, gender := range []string{"female", "male"} {
				p := base + rng.NormFloat64()*0.02
				if culture == "korean" {
					p += 0.10
				}
				p = min(1, max(0, p))
				recs = append(recs, statstest.PactRec(group+"-"+culture+"-"+gender, group, culture,
					map[string]string{"gender": gender, "age": "30-49"}, nil, map[string]*float64{"a": statstest.FP(p)}))
			}
		}
	}
	return collect(t, recs...).Pact.Questions[0]
}

func contains(iv evalmath.Interval, v float64) bool { return iv.Low <= v && v <= iv.High }

// optStr is an optional figure for a log line.
func optStr(p *float64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf("%.3f", *p)
}

// ivStr is an interval for a log line: "mean [low, high]".
func ivStr(iv evalmath.Interval) string {
	return fmt.Sprintf("%.2f [%.2f, %.2f]", iv.Mean, iv.Low, iv.High)
}

// TestPactInjectedEffect: the analysis recovers an injected effect. On
// one fixed seed the culture effect's interval contains 10, gender's
// signed change contains 0, and every gender interval excludes 10; over
// 10 seeds the 95% intervals cover the truth at least 8 times (9.5 is
// expected; a biased estimate or a too-narrow interval would fall far
// below).
func TestPactInjectedEffect(t *testing.T) {
	q := injectedPact(t, 1)
	cu, ge := findEffect(q, "a", "culture"), findEffect(q, "a", "gender")
	if cu == nil || ge == nil {
		t.Fatalf("effects %+v", q.Effects)
	}
	if findEffect(q, "a", "age") != nil {
		t.Error("an attribute that never varies has an effect")
	}
	t.Logf("seed 1: culture |change| %s pp, gender |change| %s pp, gender signed %s pp",
		ivStr(cu.MeanAbsPP), ivStr(ge.MeanAbsPP), ivStr(ge.Contrasts[0].DiffPP))
	if cu.Items != 300 || cu.Pairs != 600 || !contains(cu.MeanAbsPP, 10) {
		t.Errorf("culture effect %+v: interval must contain 10", cu.MeanAbsPP)
	}
	if c := cu.Contrasts[0]; c.A != "american" || c.B != "korean" || !contains(c.DiffPP, 10) {
		t.Errorf("culture contrast %+v: interval must contain +10", c)
	}
	if g := ge.Contrasts[0].DiffPP; !contains(g, 0) || g.High >= 10 {
		t.Errorf("gender signed change %+v: must contain 0 and exclude 10", g)
	}
	// The mean absolute change of a null attribute is the noise floor:
	// the difference of two N(0, 2 pp) has mean |.| 2*2/sqrt(pi) = 2.26 pp.
	if ge.MeanAbsPP.High >= 10 || !approx(ge.MeanAbsPP.Mean, 2.26, 0.4) {
		t.Errorf("gender |change| %+v: want about 2.26 pp (the noise floor), far from 10", ge.MeanAbsPP)
	}
	// The rate by culture shows the same 10 pp.
	am, ko := findRate(q, "a", "culture", "american"), findRate(q, "a", "culture", "korean")
	if d := 100 * (ko.PFollow.Mean - am.PFollow.Mean); !approx(d, 10, 1) {
		t.Errorf("korean - american rate %.2f pp, want about 10", d)
	}

	var cuAbs, cuSigned, geSigned int
	for seed := uint64(1); seed <= 10; seed++ {
		q := injectedPact(t, seed)
		cu, ge := findEffect(q, "a", "culture"), findEffect(q, "a", "gender")
		if contains(cu.MeanAbsPP, 10) {
			cuAbs++
		}
		if contains(cu.Contrasts[0].DiffPP, 10) {
			cuSigned++
		}
		if contains(ge.Contrasts[0].DiffPP, 0) {
			geSigned++
		}
		if ge.MeanAbsPP.High >= 10 || ge.Contrasts[0].DiffPP.High >= 10 {
			t.Errorf("seed %d: a gender interval reaches 10: %+v", seed, ge)
		}
	}
	t.Logf("coverage over 10 seeds: culture |change| %d, culture signed %d, gender signed %d", cuAbs, cuSigned, geSigned)
	if cuAbs < 8 || cuSigned < 8 || geSigned < 8 {
		t.Errorf("95%% intervals cover the injected effect too rarely: culture %d and %d, gender %d of 10", cuAbs, cuSigned, geSigned)
	}
}
