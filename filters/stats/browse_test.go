package stats

import (
	"testing"

	"github.com/ngkit/ngkit/filters/stats/internal/statstest"
	"github.com/ngkit/ngkit/pkg/audit"
)

func browseReport(t *testing.T) *Report {
	t.Helper()
	c := NewCollector()
	c.Browse, c.Examples, c.ShowDefect = true, 2, audit.DefectSingleSpeaker
	a := &audit.Audit{MinTurns: 0, MaxTurns: 0, MinLangShare: 0}
	for _, r := range statstest.BrowseRecords() {
		a.Record(r)
		c.Add(r)
	}
	return c.Report()
}

// TestBrowser: the browser keeps --examples dialogues per group and every
// record of the --show-defect class; without Browse, nothing (render's
// TestBrowserHTML shows them).
func TestBrowser(t *testing.T) {
	r := browseReport(t)
	if b := r.Browser; b == nil || len(b.Examples) != 4 || len(b.Shown) != 1 || b.Shown[0].Record.ID != "solo" {
		t.Fatalf("browser %+v", r.Browser)
	}
	c := NewCollector()
	c.Add(statstest.BrowseRecords()[0])
	if b := c.Report().Browser; b != nil {
		t.Errorf("browser without Browse: %+v", b)
	}
}
