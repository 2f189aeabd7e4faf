package pactstats

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ngkit/ngkit/filters/stats/evalmath"
)

// The PACT human regressions by their authors' definition
// (section5_metrics.py, S5:252-664, its default backend, the NumPy
// ridge-logistic fit): the human answers in long form, one row per
// respondent, item and answered framing (human_long_for_regression), three
// models (both framings with the framing as a factor, each framing alone),
// each fitted on dummy-coded factors as pandas' get_dummies(drop_first=True)
// makes them (fit_manual_logit), and each model again without each of its
// terms, the drop-one deviances (write_manual_regressions). The linear
// algebra is small and hand-written here (evalmath, linalg.go).

// Regression is the authors' human regression output: their
// human_regression_coefficients.csv (Models' coefficients) and
// human_regression_drop_one_deviance.csv (DropOne).
type Regression struct {
	Models  []RegressionModel `json:"models"`
	DropOne []DropOne         `json:"drop_one"`
}

// RegressionModel is one fitted model (fit_manual_logit, S5:333-380).
type RegressionModel struct {
	Model        string        `json:"model"` // combined_personal_vs_norm, personal_choice_only, norm_judgment_only
	Terms        []string      `json:"terms"`
	Nobs         int           `json:"nobs"`
	DfModel      int           `json:"df_model"` // rank of the design minus one
	Deviance     float64       `json:"deviance"`
	Coefficients []Coefficient `json:"coefficients"`
	Error        string        `json:"error,omitempty"` // the fit failed (no rows): no figures
}

// Coefficient is one design column's estimate: the ridge-penalised
// maximum-likelihood coefficient, its standard error from the
// pseudo-inverse of the penalised Hessian, z = coef/se and the two-sided
// normal p (null when se is 0).
type Coefficient struct {
	Term   string   `json:"term"`
	Coef   float64  `json:"coef"`
	StdErr float64  `json:"std_err"`
	Z      *float64 `json:"z"`
	P      *float64 `json:"p"`
}

// DropOne is one model fitted again without one of its terms: the
// deviance it gains and the rank it loses.
type DropOne struct {
	Model           string  `json:"model"`
	Dropped         string  `json:"dropped_factor"`
	FullDeviance    float64 `json:"full_deviance"`
	ReducedDeviance float64 `json:"reduced_deviance"`
	DropOneDeviance float64 `json:"drop_one_deviance"`
	FullDfModel     int     `json:"full_df_model"`
	ReducedDfModel  int     `json:"reduced_df_model"`
	DfDifference    int     `json:"df_difference"`
}

// The factors of a regression row, in pactRegRow.f.
const (
	regQuestion = iota
	regRespondentCountry
	regRespondentAge
	regRespondentGender
	regReceiverAge
	regReceiverGender
	regRelation
	regScenarioCountry
	regFactors
)

// pactRegRow is one row of human_long_for_regression: the factors as
// strings, a blank one as "NA" (the authors' fillna("NA") of what their
// CSV reader makes of an empty cell), and the answer, 1 culture.
type pactRegRow struct {
	f [regFactors]string
	y float64
}

// regBlock is one get_dummies call of build_manual_design: a factor, or
// the interaction of two (values joined by ":").
type regBlock struct {
	prefix string
	a, b   int // b < 0: a factor alone
}

// pactRegTerms are build_manual_design's terms (S5:303-330).
var pactRegTerms = map[string][]regBlock{
	"question_type":                       {{"question_type", regQuestion, -1}},
	"respondent_country":                  {{"respondent_country", regRespondentCountry, -1}},
	"respondent_demographics":             {{"respondent_age", regRespondentAge, -1}, {"respondent_gender", regRespondentGender, -1}},
	"receiver_demographics":               {{"receiver_age", regReceiverAge, -1}, {"receiver_gender", regReceiverGender, -1}},
	"country_relation":                    {{"country_relation", regRelation, -1}},
	"scenario_country":                    {{"scenario_country", regScenarioCountry, -1}},
	"question_x_country":                  {{"question_x_country", regQuestion, regRespondentCountry}},
	"question_x_relation":                 {{"question_x_relation", regQuestion, regRelation}},
	"participant_x_receiver_demographics": {{"resp_age_x_recv_age", regRespondentAge, regReceiverAge}, {"resp_gender_x_recv_gender", regRespondentGender, regReceiverGender}},
}

// pactRegModels are write_regressions' manual term sets and drop-one
// terms (S5:452-516), in their order.
var pactRegModels = func() []struct {
	name  string
	terms []string
	drop  [][2]string // label, term
} {
	single := []string{"respondent_country", "respondent_demographics", "receiver_demographics", "country_relation", "scenario_country", "participant_x_receiver_demographics"}
	singleDrop := [][2]string{{"scenario_country", "scenario_country"}, {"participant_country", "respondent_country"}, {"country_relation", "country_relation"},
		{"participant_demographics", "respondent_demographics"}, {"receiver_demographics", "receiver_demographics"},
		{"participant_x_receiver_demographics", "participant_x_receiver_demographics"}}
	return []struct {
		name  string
		terms []string
		drop  [][2]string
	}{
		{"combined_personal_vs_norm", []string{"question_type", "respondent_country", "respondent_demographics", "receiver_demographics", "country_relation",
			"scenario_country", "question_x_country", "question_x_relation", "participant_x_receiver_demographics"},
			[][2]string{{"scenario_country", "scenario_country"}, {"participant_country", "respondent_country"}, {"country_relation", "country_relation"},
				{"question_type", "question_type"}, {"question_x_country", "question_x_country"}, {"question_x_relation", "question_x_relation"},
				{"participant_demographics", "respondent_demographics"}, {"receiver_demographics", "receiver_demographics"},
				{"participant_x_receiver_demographics", "participant_x_receiver_demographics"}}},
		{"personal_choice_only", single, singleDrop},
		{"norm_judgment_only", single, singleDrop},
	}
}()

// regNA is the authors' fillna("NA") of a blank value.
func regNA(s string) string {
	if s == "" {
		return "NA"
	}
	return s
}

// pactDesign is build_manual_design's matrix: the intercept, then each
// term's dummy columns, a column named as one before it dropped (pandas'
// columns.duplicated()). Every entry is 0 or 1, so a row is the indices
// of its ones, ascending.
type pactDesign struct {
	cols []string
	rows [][]int32
}

func buildPactDesign(data []pactRegRow, terms []string) pactDesign {
	d := pactDesign{cols: []string{"Intercept"}, rows: make([][]int32, len(data))}
	seen := map[string]bool{"Intercept": true}
	for i := range d.rows {
		d.rows[i] = []int32{0}
	}
	for _, term := range terms {
		for _, bl := range pactRegTerms[term] {
			vals := make([]string, len(data))
			for i, r := range data {
				vals[i] = r.f[bl.a]
				if bl.b >= 0 {
					vals[i] += ":" + r.f[bl.b]
				}
			}
			// get_dummies: the sorted distinct values, the first dropped
			levels := slices.Clone(vals)
			slices.Sort(levels)
			levels = slices.Compact(levels)
			col := map[string]int32{}
			for _, l := range levels[min(1, len(levels)):] {
				name := bl.prefix + "_" + l
				if seen[name] {
					continue
				}
				seen[name] = true
				col[l] = int32(len(d.cols))
				d.cols = append(d.cols, name)
			}
			for i, v := range vals {
				if c, ok := col[v]; ok {
					d.rows[i] = append(d.rows[i], c)
				}
			}
		}
	}
	return d
}

// pactLogitFit is fit_manual_logit's result.
type pactLogitFit struct {
	cols          []string
	beta, se      []float64
	deviance      float64
	dfModel, nobs int
}

// fitPactLogit is fit_manual_logit (S5:333-380): Newton's method on the
// log-likelihood with a ridge of 1e-6 on every coefficient but the
// intercept (eta clipped to ±35, weights to at least 1e-7), at most 100
// steps, stopping after a step whose largest change is below 1e-7; the
// deviance at the end (p clipped to [1e-12, 1 - 1e-12]); the standard
// errors from the pseudo-inverse of the penalised Hessian; df_model the
// design's rank minus one.
//
// basis, when not nil, is the factorisation of a design of which this
// one's columns are some (the full model's, for a drop-one fit).
func fitPactLogit(data []pactRegRow, terms []string, basis *designBasis) pactLogitFit {
	const ridge = 1e-6
	d := buildPactDesign(data, terms)
	k := len(d.cols)
	ridgeVec := make([]float64, k)
	for j := 1; j < k; j++ {
		ridgeVec[j] = ridge
	}
	y := make([]float64, len(data))
	for i, r := range data {
		y[i] = r.y
	}
	fit := pactLogitFit{cols: d.cols, beta: make([]float64, k), nobs: len(data)}
	beta := fit.beta
	probs := func(lo float64) []float64 {
		p := make([]float64, len(d.rows))
		for i, row := range d.rows {
			eta := 0.0
			for _, c := range row {
				eta += beta[c]
			}
			eta = math.Min(math.Max(eta, -35), 35)
			p[i] = 1 / (1 + math.Exp(-eta))
			if lo > 0 {
				p[i] = math.Min(math.Max(p[i], lo), 1-lo)
			}
		}
		return p
	}
	hessian := func(p []float64) []float64 {
		h := make([]float64, k*k)
		for i, row := range d.rows {
			w := math.Max(p[i]*(1-p[i]), 1e-7)
			for _, a := range row {
				for _, b := range row {
					h[int(a)*k+int(b)] += w
				}
			}
		}
		for j := range k {
			h[j*k+j] += ridgeVec[j]
		}
		return h
	}
	for range 100 {
		p := probs(0)
		grad := make([]float64, k)
		for i, row := range d.rows {
			for _, c := range row {
				grad[c] += y[i] - p[i]
			}
		}
		for j := range k {
			grad[j] -= ridgeVec[j] * beta[j]
		}
		h := hessian(p)
		step, ok := evalmath.SolveLU(h, grad, k)
		if !ok { // numpy's solve raises on a singular matrix; the authors then take pinv
			step = evalmath.MatVec(evalmath.PinvSym(h, k), grad, k)
		}
		big := 0.0
		for j := range k {
			beta[j] += step[j]
			big = math.Max(big, math.Abs(step[j]))
		}
		if big < 1e-7 {
			break
		}
	}
	p := probs(1e-12)
	ll := 0.0
	for i := range p {
		ll += y[i]*math.Log(p[i]) + (1-y[i])*math.Log(1-p[i])
	}
	fit.deviance = -2 * ll
	cov := evalmath.PinvSym(hessian(p), k)
	fit.se = make([]float64, k)
	for j := range k {
		fit.se[j] = math.Sqrt(math.Max(cov[j*k+j], 0))
	}
	r := -1
	if basis != nil {
		r = basis.rank(d.cols)
	}
	if r < 0 {
		r = designRank(d, len(data))
	}
	fit.dfModel = max(r-1, 0)
	return fit
}

// designBasis is a matrix B with B'B = X'X for a design X, so of X's
// singular values, and of any set of X's columns those of B's same
// columns (X = QB with Q's columns orthonormal): the rank of a design
// and of every design made of some of its columns (the drop-one fits)
// from one factorisation. Equal rows of X are taken once, scaled by the
// square root of their count, which leaves X'X as it is; a tall result
// is reduced to its R by Householder QR. The singular values are then
// B's own by one-sided Jacobi, never eigenvalues of X'X, whose rounding
// would hide the zero ones of collinear dummy columns.
type designBasis struct {
	col  map[string]int // a design column's name -> its column of B
	cols [][]float64    // B's columns
	n    int            // X's rows
}

func newDesignBasis(d pactDesign, n int) *designBasis {
	k := len(d.cols)
	count := map[string]int{}
	var order []string
	for _, row := range d.rows {
		var b strings.Builder
		for _, c := range row {
			b.WriteString(strconv.Itoa(int(c)))
			b.WriteByte(',')
		}
		key := b.String()
		if count[key] == 0 {
			order = append(order, key)
		}
		count[key]++
	}
	m := len(order)
	cols := make([][]float64, k)
	for j := range cols {
		cols[j] = make([]float64, m)
	}
	for i, key := range order {
		w := math.Sqrt(float64(count[key]))
		for _, f := range strings.Split(strings.TrimSuffix(key, ","), ",") {
			c, _ := strconv.Atoi(f)
			cols[c][i] = w
		}
	}
	if m > k {
		cols = evalmath.HouseholderR(cols, m, k)
	}
	b := &designBasis{col: map[string]int{}, cols: cols, n: n}
	for j, name := range d.cols {
		b.col[name] = j
	}
	return b
}

// rank is numpy's matrix_rank of the design of these columns (all in
// b): its singular values above S.max·max(M, N)·eps; -1 when a column
// is not b's.
func (b *designBasis) rank(names []string) int {
	sub := make([][]float64, len(names))
	for j, name := range names {
		c, ok := b.col[name]
		if !ok {
			return -1
		}
		sub[j] = slices.Clone(b.cols[c])
	}
	s := evalmath.JacobiSingular(sub)
	if len(s) == 0 || b.n == 0 {
		return 0
	}
	tol := slices.Max(s) * float64(max(b.n, len(names))) * 0x1p-52
	r := 0
	for _, v := range s {
		if v > tol {
			r++
		}
	}
	return r
}

// designRank is the rank of a design of n rows.
func designRank(d pactDesign, n int) int {
	return newDesignBasis(d, n).rank(d.cols)
}

// pactRegression fits write_regressions' three models on the human
// rows, personal ones first as human_long_for_regression concatenates
// them; nil when there are none.
func pactRegression(personal, norm []pactRegRow) *Regression {
	if len(personal)+len(norm) == 0 {
		return nil
	}
	all := append(slices.Clip(personal), norm...)
	data := map[string][]pactRegRow{"combined_personal_vs_norm": all, "personal_choice_only": personal, "norm_judgment_only": norm}
	out := &Regression{Models: []RegressionModel{}, DropOne: []DropOne{}}
	for _, m := range pactRegModels {
		rows := data[m.name]
		pm := RegressionModel{Model: m.name, Terms: m.terms, Nobs: len(rows), Coefficients: []Coefficient{}}
		if len(rows) == 0 {
			// numpy's matrix_rank fails on an empty design: the authors'
			// fit reports the model as failed
			pm.Error = "no answered rows"
			out.Models = append(out.Models, pm)
			continue
		}
		full := buildPactDesign(rows, m.terms)
		basis := newDesignBasis(full, len(rows))
		fit := fitPactLogit(rows, m.terms, basis)
		pm.DfModel, pm.Deviance = fit.dfModel, fit.deviance
		for j, name := range fit.cols {
			c := Coefficient{Term: name, Coef: fit.beta[j], StdErr: fit.se[j]}
			if fit.se[j] > 0 {
				z := fit.beta[j] / fit.se[j]
				c.Z, c.P = evalmath.OptFloat(z, true), evalmath.OptFloat(math.Erfc(math.Abs(z)/math.Sqrt2), true)
			}
			pm.Coefficients = append(pm.Coefficients, c)
		}
		out.Models = append(out.Models, pm)
		for _, dr := range m.drop {
			reduced := fitPactLogit(rows, slices.DeleteFunc(slices.Clone(m.terms), func(t string) bool { return t == dr[1] }), basis)
			out.DropOne = append(out.DropOne, DropOne{Model: m.name, Dropped: dr[0], FullDeviance: fit.deviance, ReducedDeviance: reduced.deviance,
				DropOneDeviance: reduced.deviance - fit.deviance, FullDfModel: fit.dfModel, ReducedDfModel: reduced.dfModel, DfDifference: fit.dfModel - reduced.dfModel})
		}
	}
	return out
}
