package stats

import (
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/ngkit/ngkit/filters/imports"
	"github.com/ngkit/ngkit/pkg/audit"
	"github.com/ngkit/ngkit/pkg/record"
)

// benchRecords imports the release (NG_RELEASE_DIR) or the testdata sample.
func benchRecords(b *testing.B) []*record.Record {
	dir := os.Getenv("NG_RELEASE_DIR")
	if dir == "" {
		dir = "../../testdata/normgenesis"
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	recs, err := imports.ReadNormGenesis(files)
	if err != nil || len(files) == 0 {
		b.Fatalf("%s: %v", dir, err)
	}
	return recs
}

// BenchmarkReport is ngstats' work on decoded records: Audit on every core
// (language detection of every turn), then the Collector in order.
func BenchmarkReport(b *testing.B) {
	recs := benchRecords(b)
	turns := 0
	for _, r := range recs {
		turns += len(r.Turns)
	}
	a := &audit.Audit{MinTurns: 5, MaxTurns: 15, MinLangShare: 0.8}
	a.Record(&record.Record{ID: "warm", Turns: []record.Turn{{Text: "warm up the models"}}})
	b.ResetTimer()
	for range b.N {
		c := NewCollector()
		var wg sync.WaitGroup
		w := runtime.GOMAXPROCS(0)
		for k := range w {
			wg.Go(func() {
				for i := k; i < len(recs); i += w {
					a.Record(recs[i])
				}
			})
		}
		wg.Wait()
		for _, r := range recs {
			c.Add(r)
		}
		_ = c.Report()
	}
	b.ReportMetric(float64(turns*b.N)/b.Elapsed().Seconds(), "turns/s")
}

// BenchmarkCollector is the sequential half alone.
func BenchmarkCollector(b *testing.B) {
	recs := benchRecords(b)
	a := &audit.Audit{}
	for _, r := range recs {
		a.Record(r)
	}
	b.ResetTimer()
	for range b.N {
		c := NewCollector()
		for _, r := range recs {
			c.Add(r)
		}
		_ = c.Report()
	}
	b.ReportMetric(float64(len(recs)*b.N)/b.Elapsed().Seconds(), "records/s")
}
