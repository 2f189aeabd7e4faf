package render

import (
	"bytes"
	"html/template"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/filters/stats"
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
func panelTestReport() *stats.Report {
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
	c := stats.NewCollector()
	c.Add(r1)
	c.Add(r2)
	return c.Report()
}

// TestPanelText: the calls and the panel (stats' TestPanelReport) in the
// text report.
func TestPanelText(t *testing.T) {
	rep := panelTestReport()
	var txt bytes.Buffer
	if err := WriteText(&txt, rep, 5); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"LLM calls by stage, role and endpoint", "nglabel  labeller  a         ma", "Labelling panel agreement (2 records, a, b, c)",
		"norm: Cohen's kappa a / c 0.500 over 4 turns", "c gave no labels for 1 record", "Turns the panel disagrees on most", "a=violated b=violated c=adhered"} {
		if !strings.Contains(txt.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, txt.String())
		}
	}
}

// TestHTMLModelsSection: the HTML report has the calls and panel tables of
// the text report, every cell of them (escaped), with a link in the nav.
func TestHTMLModelsSection(t *testing.T) {
	rep := panelTestReport()
	h := renderHTML(t, rep)
	for _, want := range []string{`<a href="#models">Models</a>`, `<section id="models">`,
		"<h4>LLM calls by stage, role and endpoint (from the records&#39; gen)</h4>",
		"<h4>Labelling panel agreement (2 records, a, b, c)</h4>", "<h4>Turns the panel disagrees on most</h4>",
		"<h4>Labelling panel: norm by labeller</h4>"} {
		if !strings.Contains(h, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	ts := modelTables(rep)
	if len(ts) < 4 {
		t.Fatalf("%d model tables, want the calls, a distribution, the agreement and the disagreements", len(ts))
	}
	start := strings.Index(h, `<section id="models">`)
	if start < 0 {
		t.Fatal("no models section")
	}
	sec := h[start:]
	sec = sec[:strings.Index(sec, "</section>")]
	for _, tb := range ts {
		for _, row := range tb.rows {
			for _, cell := range row {
				if !strings.Contains(sec, ">"+template.HTMLEscapeString(cell)+"</td>") {
					t.Errorf("table %q: cell %q is not in the HTML section", tb.title, cell)
				}
			}
		}
	}
	if plain := renderHTML(t, htmlTestReport()); strings.Contains(plain, `id="models"`) || strings.Contains(plain, `href="#models"`) {
		t.Error("a report without gen or panel shows a models section")
	}
}
