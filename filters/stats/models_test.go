package stats

import (
	"math"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/pkg/record"
)

// A panel of three labellers over two records, by hand: norm votes per
// turn (a, b, c) AAA VVA AAA VVV. Cohen's kappa of a and b is 1 (the
// same labels); of a and c: confusion [[2 0] [1 1]], po 3/4, pe 1/2, so
// 0.5. Fleiss' kappa: P_i 1, 1/3, 1, 1 -> P 5/6; shares A 7/12, V 5/12 ->
// Pe 74/144; kappa (5/6 - 74/144) / (1 - 74/144) = 46/70. Alpha: n 12,
// coincidences within 10 (3 units of 3 alike give 3 each, VVA gives 1),
// n_A 7, n_V 5: 1 - 11 * 2 / (144 - 74) = 48/70. The turn disagreed on is
// r1 turn 1, with 2/3; c failed on r2 (its labels are absent there).
// panelTestReport is the report of TestPanelReport's two records.
func panelTestReport() *Report {
	ml := func(l, norm string) record.ModelLabels { return record.ModelLabels{Labeller: l, Norm: norm} }
	turn := func(i int, a, b, c string) record.Turn {
		bm := []record.ModelLabels{ml("a", a), ml("b", b)}
		if c != "" {
			bm = append(bm, ml("c", c))
		}
		return record.Turn{Index: i, Speaker: "S", Text: "text", Labels: &record.Labels{Norm: a, ByModel: bm}}
	}
	meta := &record.LabelsMeta{Panel: []string{"a", "b", "c"}}
	r1 := &record.Record{ID: "r1", Turns: []record.Turn{turn(0, "adhered", "adhered", "adhered"), turn(1, "violated", "violated", "adhered")}, LabelsMeta: meta,
		Gen: []record.Gen{{Stage: "nglabel", Role: "labeller", Endpoint: "a", Model: "ma", TokensIn: 100, TokensOut: 50, CostUSD: 0.002},
			{Stage: "nglabel", Role: "labeller", Endpoint: "b", Model: "mb", TokensIn: 90, TokensOut: 40, CacheHit: true, Retries: 1}}}
	meta2 := &record.LabelsMeta{Panel: []string{"a", "b", "c"}, Failed: []record.PanelFailure{{Labeller: "c", Error: "HTTP 503"}}}
	r2 := &record.Record{ID: "r2", Turns: []record.Turn{turn(0, "adhered", "adhered", "adhered"), turn(1, "violated", "violated", "violated")}, LabelsMeta: meta2,
		Gen: []record.Gen{{Stage: "nglabel", Role: "labeller", Endpoint: "a", Model: "ma", TokensIn: 10, TokensOut: 5, CostUSD: 0.001}}}
	c := NewCollector()
	c.Add(r1)
	c.Add(r2)
	return c.Report()
}

// TestPanelReport: the panel's figures, and the calls per endpoint (render's
// TestPanelText shows them).
func TestPanelReport(t *testing.T) {
	rep := panelTestReport()
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
