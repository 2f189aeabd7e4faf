package render

import (
	"strings"
	"testing"

	"github.com/ngkit/ngkit/filters/stats/internal/statstest"
)

// The labels' extras (stats' TestLabelExtras) in every format.
func TestLabelExtrasFormats(t *testing.T) {
	r := collect(t, statstest.LabelExtrasRecords()...)
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
