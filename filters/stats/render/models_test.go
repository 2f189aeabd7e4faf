package render

import (
	"bytes"
	"html/template"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/filters/stats/internal/statstest"
)

// TestPanelText: the calls and the panel (stats' TestPanelReport) in the
// text report.
func TestPanelText(t *testing.T) {
	rep := collect(t, statstest.PanelRecords()...)
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
	rep := collect(t, statstest.PanelRecords()...)
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
