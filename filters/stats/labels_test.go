package stats

import (
	"math"
	"testing"

	"github.com/ngkit/ngkit/filters/stats/evalmath"
	"github.com/ngkit/ngkit/filters/stats/internal/statstest"
	"github.com/ngkit/ngkit/pkg/record"
)

func TestWilson(t *testing.T) {
	for _, c := range []struct {
		k, n      int64
		low, high float64
	}{
		{65, 100, 0.55254, 0.73636},
		{3, 4, 0.30064, 0.95441},
		{0, 10, 0, 0.27753},
		{10, 10, 0.72247, 1},
		{0, 0, 0, 0},
	} {
		lo, hi := evalmath.Wilson(c.k, c.n)
		if math.Abs(lo-c.low) > 1e-4 || math.Abs(hi-c.high) > 1e-4 {
			t.Errorf("wilson(%d, %d) = %.5f, %.5f; want %.5f, %.5f", c.k, c.n, lo, hi, c.low, c.high)
		}
	}
}

// Labels from three samples, V2R stages and pairwise judgements: intent by
// stage, agreement with Fleiss' kappa, win rates (render's
// TestLabelExtrasFormats shows them in every format).
func TestLabelExtras(t *testing.T) {
	r := collect(t, statstest.LabelExtrasRecords()...)
	l := r.Labels
	if l == nil || len(l.IntentByStage) != 3 {
		t.Fatalf("labels %+v", l)
	}
	if v := l.IntentByStage[0]; v.Group != "violation" || v.Turns != 3 || v.Counts["CRT"] != 2 || v.Counts["JUS"] != 1 {
		t.Errorf("violation: %+v", v)
	}
	if l.IntentByStage[2].Group != "repair" || l.IntentByStage[2].Counts["APO"] != 2 {
		t.Errorf("stage order or counts: %+v", l.IntentByStage)
	}
	if len(l.Agreement) != 1 {
		t.Fatalf("agreement %+v", l.Agreement)
	}
	a := l.Agreement[0]
	// Six turns: four unanimous, one 2/3, one split three ways.
	wantAgree := (4 + 2.0/3 + 1.0/3) / 6
	if a.Task != "intent" || a.Turns != 6 || a.Samples != 3 || math.Abs(a.Agreement-wantAgree) > 1e-9 || a.Kappa == nil || *a.Kappa <= 0 || *a.Kappa >= 1 {
		t.Errorf("agreement %+v (kappa %v)", a, a.Kappa)
	}
	var all *PairwiseRate
	for i, p := range l.Pairwise {
		if p.Criterion == "naturalness" && p.Group == "all" {
			all = &l.Pairwise[i]
		}
	}
	if all == nil || all.N != 3 || all.Win != 1 || all.Tie != 1 || all.Loss != 1 || math.Abs(all.WinRate-1.0/3) > 1e-9 || all.Low <= 0 || all.High >= 1 {
		t.Errorf("pairwise %+v", l.Pairwise)
	}
	if l.Pairwise[0].Criterion != "naturalness" || l.Pairwise[0].Group != "all" || len(l.Pairwise) != 6 {
		t.Errorf("pairwise order: %+v", l.Pairwise)
	}
}

// ProsocialDialog's annotator shares, without labels_meta: three raters
// inferred from the thirds, and taken for the unanimous turn.
func TestAgreementOfAnnotators(t *testing.T) {
	c := NewCollector()
	c.Add(&record.Record{ID: "p", Turns: []record.Turn{
		{Index: 0, Speaker: "user", Text: "x", Labels: &record.Labels{Safety: "needs_caution",
			SafetyDist: map[string]float64{"needs_caution": 2.0 / 3, "needs_intervention": 1.0 / 3}}},
		{Index: 1, Speaker: "user", Text: "y", Labels: &record.Labels{Safety: "casual", SafetyDist: map[string]float64{"casual": 1}}},
	}})
	a := c.Report().Labels.Agreement
	if len(a) != 1 || a[0].Task != "safety" || a[0].Turns != 2 || a[0].Samples != 3 || math.Abs(a[0].Agreement-5.0/6) > 1e-9 {
		t.Errorf("%+v", a)
	}
}
