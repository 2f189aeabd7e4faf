package render

import (
	"context"
	"strings"
	"sync"

	"github.com/ngkit/ngkit/filters/stats"
	"github.com/ngkit/ngkit/pkg/audit"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/record"
)

// CardSummary gives a dataset card (filters/hf) the ngstats report of the
// records written: it audits a copy of each record, so the exported records
// stay as they were, and renders the report as Markdown. Add runs on the
// writer's goroutine; Stage, run by the pipeline before it, does the
// audit (language detection) on every core and leaves the copy for Add.
type CardSummary struct {
	Audit     *audit.Audit
	Collector *stats.Collector
	audited   sync.Map // *record.Record -> its audited copy, from Stage to Add
}

// NewCardSummary returns a summary with ngstats' default thresholds.
func NewCardSummary() *CardSummary {
	return &CardSummary{Audit: audit.Default(), Collector: stats.NewCollector()}
}

// Stage audits a copy of each record on the pipeline's workers and passes
// the record on unchanged.
func (s *CardSummary) Stage() pipeline.Stage {
	return pipeline.StageFunc{StageName: "ngcat", Fn: func(_ context.Context, rec *record.Record) ([]*record.Record, error) {
		s.audited.Store(rec, s.auditCopy(rec))
		return []*record.Record{rec}, nil
	}}
}

func (s *CardSummary) auditCopy(rec *record.Record) *record.Record { return s.Audit.Copy(rec) }

// Add counts the audited copy of rec (made by Stage, or here).
func (s *CardSummary) Add(rec *record.Record) {
	if cp, ok := s.audited.LoadAndDelete(rec); ok {
		s.Collector.Add(cp.(*record.Record))
		return
	}
	s.Collector.Add(s.auditCopy(rec))
}

// Markdown is the report under a "## Statistics" heading, with 5 ids per
// defect class.
func (s *CardSummary) Markdown() string {
	return CardMarkdown(s.Collector.Report())
}

// CardMarkdown renders a report for a dataset card: a "## Statistics"
// section with the tables at level 3.
func CardMarkdown(r *stats.Report) string {
	var b strings.Builder
	// A demo's note is under the totals (WriteMarkdown), once.
	b.WriteString("## Statistics\n\n")
	b.WriteString("Computed by `ngstats` (ngkit) over the records of every split.\n\n")
	WriteMarkdown(&b, r, 5, 3)
	return b.String()
}
