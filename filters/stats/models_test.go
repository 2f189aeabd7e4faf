package stats

import (
	"math"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/filters/stats/internal/statstest"
)

// TestPanelReport: the panel's figures, and the calls per endpoint (render's
// TestPanelText shows them).
func TestPanelReport(t *testing.T) {
	rep := collect(t, statstest.PanelRecords()...)
	p := rep.Panel
	if p == nil || p.Records != 2 || strings.Join(p.Labellers, ",") != "a,b,c" || p.Failed["c"] != 1 {
		t.Fatalf("panel %+v", p)
	}
	if len(p.Agreement) != 1 || p.Agreement[0].Task != "norm" || p.Agreement[0].Turns != 4 {
		t.Fatalf("agreement %+v", p.Agreement)
	}
	a := p.Agreement[0]
	near := func(v *float64, want float64) bool { return v != nil && math.Abs(*v-want) < 1e-12 }
	if !near(a.Fleiss, 46.0/70) || !near(a.Alpha, 48.0/70) {
		t.Errorf("fleiss %v (want %v), alpha %v (want %v)", *a.Fleiss, 46.0/70, *a.Alpha, 48.0/70)
	}
	if len(a.Pairs) != 3 || a.Pairs[0].A != "a" || a.Pairs[0].B != "b" || a.Pairs[0].Kappa == nil || *a.Pairs[0].Kappa != 1 ||
		a.Pairs[1].B != "c" || !near(a.Pairs[1].Kappa, 0.5) || a.Pairs[1].Turns != 4 {
		t.Errorf("pairs %+v", a.Pairs)
	}
	if len(p.Disagreements) != 1 || p.Disagreements[0].ID != "r1" || p.Disagreements[0].Turn != 1 || p.Disagreements[0].Votes["c"] != "adhered" {
		t.Errorf("disagreements %+v", p.Disagreements)
	}
	if len(p.Dist) != 3 || p.Dist[2].Group != "c" || p.Dist[2].Counts["adhered"] != 3 || p.Dist[2].Counts["violated"] != 1 {
		t.Errorf("dist %+v", p.Dist)
	}
	if len(rep.Calls) != 2 {
		t.Fatalf("calls %+v", rep.Calls)
	}
	ga, gb := rep.Calls[0], rep.Calls[1]
	if ga.Endpoint != "a" || ga.Calls != 2 || ga.TokensIn != 110 || ga.TokensOut != 55 || math.Abs(ga.CostUSD-0.003) > 1e-12 ||
		gb.Endpoint != "b" || gb.CacheHits != 1 || gb.TokensIn != 0 || gb.Retries != 1 {
		t.Errorf("calls %+v", rep.Calls)
	}
}
