package render

import (
	"testing"

	"github.com/ngkit/ngkit/filters/stats"
	"github.com/ngkit/ngkit/pkg/audit"
	"github.com/ngkit/ngkit/pkg/record"
)

// render's tests build their reports as ngstats does, through the
// Collector, mostly from the records of internal/statstest, which stats'
// own tests use too.

// collect audits and collects recs at ngstats' default thresholds.
func collect(t *testing.T, recs ...*record.Record) *stats.Report {
	t.Helper()
	a := &audit.Audit{MinTurns: 5, MaxTurns: 15, MinLangShare: 0.8}
	c := stats.NewCollector()
	for _, r := range recs {
		a.Record(r)
		c.Add(r)
	}
	return c.Report()
}
