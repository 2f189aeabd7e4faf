package render

import (
	"regexp"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/pkg/record"
)

// countsAndLabelsRecords: two labelled American dialogues with quality
// scores, one with a seed fit, and an empty Chinese record.
func countsAndLabelsRecords() []*record.Record {
	lab := func(norm, intent, emo string) *record.Labels {
		return &record.Labels{Norm: norm, Intent: intent, Emotion: emo}
	}
	a := &record.Record{ID: "a", Culture: "american", DialogueType: "v2r", Category: "apology", Turns: turns(goodEN...), Quality: &record.Quality{Naturalness: 4, Norm: 3, Fit: 2}}
	a.Turns[0].Labels = lab("violated", "CRT", "anger")
	a.Turns[1].Labels = lab("adhered", "APO", "sadness")
	b := &record.Record{ID: "b", Culture: "american", DialogueType: "adherence", Category: "thanks", Turns: turns(goodEN[:2]...), Quality: &record.Quality{Naturalness: 5}}
	b.Turns[0].Labels = lab("adhered", "THX", "joy")
	return []*record.Record{a, b, {ID: "c", Culture: "chinese"}}
}

// TestQualityFitColumn: the seed fit is a column of the quality table
// when some dialogue has one (stats' TestCountsAndLabels).
func TestQualityFitColumn(t *testing.T) {
	r := collect(t, countsAndLabelsRecords()...)
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
	rec := &record.Record{ID: "a", Culture: "american", Turns: turns("Ann: Hello [END]", "Ann: hi"), Checks: &record.Checks{Defects: []string{"x"}}}
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
