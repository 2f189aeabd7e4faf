package stats

import (
	"slices"
	"strings"

	"github.com/ngkit/ngkit/pkg/record"
)

// CardSummary gives a dataset card (filters/hf) the ngstats report of the
// records written: it audits a copy of each record, so the exported records
// stay as they were, and renders the report as Markdown under "##" headings.
// It runs on the writer's goroutine: language detection is serial here.
type CardSummary struct {
	Audit     *Audit
	Collector *Collector
}

// NewCardSummary returns a summary with ngstats' default thresholds.
func NewCardSummary() *CardSummary {
	return &CardSummary{Audit: &Audit{MinTurns: 5, MaxTurns: 15, MinLangShare: 0.8}, Collector: NewCollector()}
}

// Add audits a copy of rec and counts it.
func (s *CardSummary) Add(rec *record.Record) {
	cp := *rec
	cp.Turns = slices.Clone(rec.Turns)
	if rec.Checks != nil {
		ch := *rec.Checks
		ch.Defects = slices.Clone(ch.Defects)
		cp.Checks = &ch
	}
	s.Audit.Record(&cp)
	s.Collector.Add(&cp)
}

// Markdown is the report under a "## Statistics" heading, with 5 ids per
// defect class.
func (s *CardSummary) Markdown() string {
	return CardMarkdown(s.Collector.Report())
}

// CardMarkdown renders a report for a dataset card: a "## Statistics"
// section with the tables at level 3.
func CardMarkdown(r *Report) string {
	var b strings.Builder
	b.WriteString("## Statistics\n\nComputed by `ngstats` (ngkit) over the records of every split.\n\n")
	WriteMarkdown(&b, r, 5, 3)
	return b.String()
}
