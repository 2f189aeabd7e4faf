package render

import (
	"strings"
	"testing"

	"github.com/ngkit/ngkit/filters/stats"
	"github.com/ngkit/ngkit/pkg/record"
)

// labelExtrasReport: labels from three samples, V2R stages and pairwise
// judgements.
func labelExtrasReport() *stats.Report {
	c := stats.NewCollector()
	mk := func(id, culture, pw string, turns ...record.Turn) *record.Record {
		r := &record.Record{ID: id, Culture: culture, DialogueType: record.TypeV2R, Turns: turns,
			LabelsMeta: &record.LabelsMeta{Samples: 3}}
		if pw != "" {
			r.SetExtra("pairwise", map[string]string{"against": "b", "naturalness": pw, "norm": "win"})
		}
		return r
	}
	turn := func(i int, stage, intent string, dist map[string]float64) record.Turn {
		return record.Turn{Index: i, Speaker: "A", Text: "x", Stage: stage,
			Labels: &record.Labels{Intent: intent, IntentDist: dist}}
	}
	unanimous := func(l string) map[string]float64 { return map[string]float64{l: 1} }
	c.Add(mk("r1", "american", "win",
		turn(0, "violation", "CRT", unanimous("CRT")),
		turn(1, "recognition", "QUE", map[string]float64{"QUE": 2.0 / 3, "CRT": 1.0 / 3}),
		turn(2, "repair", "APO", unanimous("APO"))))
	c.Add(mk("r2", "chinese", "loss",
		turn(0, "violation", "CRT", unanimous("CRT")),
		turn(1, "repair", "APO", unanimous("APO"))))
	c.Add(mk("r3", "chinese", "tie",
		turn(0, "violation", "JUS", map[string]float64{"JUS": 1.0 / 3, "CRT": 1.0 / 3, "DIS": 1.0 / 3})))
	return c.Report()
}

// The labels' extras (stats' TestLabelExtras) in every format.
func TestLabelExtrasFormats(t *testing.T) {
	r := labelExtrasReport()
	var text, md, html strings.Builder
	if err := WriteText(&text, r, 5); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Intent by V2R stage", "Label agreement", "Fleiss' kappa", "Pairwise judgements", "33.33%"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, text.String())
		}
	}
	if err := WriteMarkdown(&md, r, 5, 2); err != nil || !strings.Contains(md.String(), "## Pairwise judgements") {
		t.Errorf("markdown: %v", err)
	}
	if err := WriteHTML(&html, r); err != nil || !strings.Contains(html.String(), "intent by V2R stage") || !strings.Contains(html.String(), "Pairwise judgements") {
		t.Errorf("html: %v", err)
	}
}
