package stats

import (
	"testing"
)

// The awkward run's regressions have the cases that tell a careless
// design apart: collinear columns, a factor of one level, blank answers.
func TestPactRegressionAwkward(t *testing.T) {
	c := NewCollector()
	for _, r := range awkwardRecords() {
		c.Add(r)
	}
	reg := c.Report().Pact.HumanRegression
	if reg == nil || len(reg.Models) != 3 || len(reg.DropOne) != 21 {
		t.Fatalf("regressions %+v", reg)
	}
	comb := reg.Models[0]
	if comb.Model != "combined_personal_vs_norm" || comb.DfModel >= len(comb.Coefficients)-1 {
		t.Errorf("%s: df_model %d of %d columns: no collinear ones", comb.Model, comb.DfModel, len(comb.Coefficients))
	}
	if reg.Models[1].Nobs+reg.Models[2].Nobs != comb.Nobs {
		t.Errorf("nobs %d + %d != %d", reg.Models[1].Nobs, reg.Models[2].Nobs, comb.Nobs)
	}
	for _, x := range comb.Coefficients {
		if x.Term == "respondent_age_18+" {
			t.Error("a factor of one level has a column")
		}
	}
	for _, d := range reg.DropOne {
		if d.DropOneDeviance < -1e-6 || d.DfDifference < 0 {
			t.Errorf("%s without %s: deviance %v, df %d", d.Model, d.Dropped, d.DropOneDeviance, d.DfDifference)
		}
	}
}
