package render

import (
	"regexp"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/filters/stats/internal/statstest"
	"github.com/ngkit/ngkit/pkg/record"
)

// TestQualityFitColumn: the seed fit is a column of the quality table
// when some dialogue has one (stats' TestCountsAndLabels).
func TestQualityFitColumn(t *testing.T) {
	r := collect(t, statstest.CountsAndLabelsRecords()...)
	// The seed fit is a column of the quality table when some dialogue has one.
	var text strings.Builder
	if err := WriteText(&text, r, 0); err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^ *group +n +consistency .* norm +fit *$`).MatchString(text.String()) {
		t.Errorf("no fit column in:\n%s", text.String())
	}
}

// TestCardSummaryLeavesRecordsAlone: the card's audit works on a copy, so
// ngcat --hf exports the records as they were.
func TestCardSummaryLeavesRecordsAlone(t *testing.T) {
	rec := &record.Record{ID: "a", Culture: "american", Turns: statstest.Turns("Ann: Hello [END]", "Ann: hi"), Checks: &record.Checks{Defects: []string{"x"}}}
	s := NewCardSummary()
	s.Add(rec)
	if rec.Turns[0].Lang != "" || len(rec.Checks.Defects) != 1 || rec.Checks.LangExpected != "" {
		t.Fatalf("record changed: %+v %+v", rec.Turns, rec.Checks)
	}
	md := s.Markdown()
	if !strings.HasPrefix(md, "## Statistics") || !strings.Contains(md, "| end_marker |") || !strings.Contains(md, "| single_speaker |") {
		t.Fatalf("card markdown:\n%s", md)
	}
}
