package pactstats

import (
	"math"
	"slices"
	"testing"
)

func regRows(factor int, vals []string, ys []float64) []pactRegRow {
	rows := make([]pactRegRow, len(vals))
	for i, v := range vals {
		rows[i].f[factor] = v
		rows[i].y = ys[i]
	}
	return rows
}

// A fit one can check by hand: one factor of two levels, 3 of 4 culture
// in a, 1 of 4 in b. Without the ridge the intercept is logit(3/4) = ln 3,
// b's coefficient logit(1/4) - logit(3/4) = -2 ln 3, their variances
// 1/(n p (1-p)) = 4/3 and 4/3 + 4/3; the ridge of 1e-6 moves them by
// about 1e-6.
func TestFitPactLogitByHand(t *testing.T) {
	rows := regRows(regRespondentCountry, []string{"a", "a", "a", "a", "b", "b", "b", "b"}, []float64{1, 1, 1, 0, 1, 0, 0, 0})
	fit := fitPactLogit(rows, []string{"respondent_country"}, nil)
	if !slices.Equal(fit.cols, []string{"Intercept", "respondent_country_b"}) {
		t.Fatalf("columns %v", fit.cols)
	}
	near := func(what string, got, want, tol float64) {
		t.Helper()
		if math.Abs(got-want) > tol {
			t.Errorf("%s = %.12g, want %.12g", what, got, want)
		}
	}
	near("intercept", fit.beta[0], math.Log(3), 1e-5)
	near("b", fit.beta[1], -2*math.Log(3), 1e-5)
	near("se intercept", fit.se[0], math.Sqrt(4.0/3), 1e-5)
	near("se b", fit.se[1], math.Sqrt(8.0/3), 1e-5)
	// the deviance of the saturated fit: -2 (2 (3 ln 3/4 + ln 1/4))
	near("deviance", fit.deviance, -4*(3*math.Log(0.75)+math.Log(0.25)), 1e-9)
	if fit.dfModel != 1 || fit.nobs != 8 {
		t.Errorf("df_model %d, nobs %d; want 1, 8", fit.dfModel, fit.nobs)
	}
}

// The design's columns as get_dummies(drop_first=True) names and orders
// them: sorted values ("NA" before lower case), the first dropped, a
// factor of one level without a column, a repeated column dropped.
func TestBuildPactDesignColumns(t *testing.T) {
	rows := make([]pactRegRow, 4)
	for i, v := range [][2]string{{"older", "female"}, {"NA", "NA"}, {"younger", "male"}, {"older", "male"}} {
		rows[i].f[regReceiverAge], rows[i].f[regReceiverGender] = v[0], v[1]
		rows[i].f[regRespondentAge] = "18+"
		rows[i].f[regRespondentGender] = "NA"
	}
	d := buildPactDesign(rows, []string{"receiver_demographics", "respondent_demographics", "receiver_demographics", "participant_x_receiver_demographics"})
	want := []string{"Intercept", "receiver_age_older", "receiver_age_younger", "receiver_gender_female", "receiver_gender_male",
		"resp_age_x_recv_age_18+:older", "resp_age_x_recv_age_18+:younger", "resp_gender_x_recv_gender_NA:female", "resp_gender_x_recv_gender_NA:male"}
	if !slices.Equal(d.cols, want) {
		t.Fatalf("columns\n%q\nwant\n%q", d.cols, want)
	}
	if !slices.Equal(d.rows[0], []int32{0, 1, 3, 5, 7}) || !slices.Equal(d.rows[1], []int32{0}) {
		t.Errorf("rows %v", d.rows)
	}
}

// The rank of a design whose dummy columns are collinear: receiver age
// and gender both blank on the same rows, so older + younger = female +
// male, and the interactions repeat the age and gender columns.
func TestDesignRankCollinear(t *testing.T) {
	var rows []pactRegRow
	for _, v := range [][2]string{{"NA", "NA"}, {"older", "female"}, {"younger", "male"}, {"older", "male"}, {"younger", "female"}, {"older", "female"}} {
		var r pactRegRow
		r.f[regReceiverAge], r.f[regReceiverGender], r.f[regRespondentAge], r.f[regRespondentGender] = v[0], v[1], "18+", "x"
		rows = append(rows, r)
	}
	d := buildPactDesign(rows, []string{"receiver_demographics"})
	if got := designRank(d, len(rows)); got != 4 || len(d.cols) != 5 {
		t.Errorf("rank %d of %d columns, want 4 of 5", got, len(d.cols))
	}
	d = buildPactDesign(rows, []string{"receiver_demographics", "participant_x_receiver_demographics"})
	if got := designRank(d, len(rows)); got != 4 || len(d.cols) != 9 {
		t.Errorf("with the interaction: rank %d of %d columns, want 4 of 9", got, len(d.cols))
	}
	// a fit on it: df_model is the rank less one, the coefficients finite
	fit := fitPactLogit(regRowsY(rows, []float64{1, 0, 1, 1, 0, 1}), []string{"receiver_demographics"}, nil)
	if fit.dfModel != 3 {
		t.Errorf("df_model %d, want 3", fit.dfModel)
	}
	for j, b := range fit.beta {
		if math.IsNaN(b) || math.IsInf(b, 0) || math.IsNaN(fit.se[j]) {
			t.Errorf("%s: coef %v se %v", fit.cols[j], b, fit.se[j])
		}
	}
}

func regRowsY(rows []pactRegRow, ys []float64) []pactRegRow {
	out := slices.Clone(rows)
	for i := range out {
		out[i].y = ys[i]
	}
	return out
}
