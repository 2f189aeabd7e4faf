package refine

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/ngkit/ngkit/filters/refine/refinetest"
	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/llm/llmtest"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/record"
)

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cycleSource makes n seeds from the fixture's, with ids of their own.
type cycleSource struct {
	seeds []*record.Record
	n, i  int
}

func (s *cycleSource) Next() (pipeline.Item, error) {
	if s.i >= s.n {
		return pipeline.Item{}, io.EOF
	}
	r := *s.seeds[s.i%len(s.seeds)]
	r.ID = fmt.Sprintf("b%08d", s.i)
	s.i++
	return pipeline.Item{Rec: &r}, nil
}
func (s *cycleSource) Close() error { return nil }

// benchSeeds are the fixture's clean seeds but the first of each culture
// and category, and a fake model that judges each below the bar, rewrites
// it once into that first seed's release text and judges the rewrite
// good: three calls a seed.
func benchSeeds(b *testing.B) ([]*record.Record, *refinetest.Model) {
	recs := fixture(b)
	targets := map[string]*record.Record{} // culture/category -> the rewrite
	var seeds []*record.Record
	for _, r := range recs {
		if refinetest.FixtureKind(r) != kindClean {
			continue
		}
		k := r.Culture + "/" + r.Category
		if targets[k] == nil {
			targets[k] = r
		} else {
			seeds = append(seeds, r)
		}
	}
	rewriteOf := map[string]string{} // seed scenario -> rewrite reply
	for _, s := range seeds {
		t := targets[s.Culture+"/"+s.Category]
		rewriteOf[s.Scenario] = refinetest.Rewritten(t.Scenario, t.Situation)
	}
	model := refinetest.New()
	model.Default = func(req *llmtest.ChatRequest, kind, scenario string) string {
		switch kind {
		case refinetest.Judge:
			return refinetest.Judged(3, 3, 0, "Too vague about who says what.")
		case refinetest.Rejudge:
			return refinetest.Judged(5, 5, 5, "Good.")
		}
		return rewriteOf[scenario]
	}
	return seeds, model
}

// BenchmarkOverhead: our own cost per seed with a zero-latency fake server
// (in this process, so its CPU is counted too): each seed is judged below
// the bar, rewritten once into a release text of its culture and category,
// and judged again (3 calls): exemplar retrieval, prompt rendering, the
// client, schema validation, the language and length audit of the rewrite,
// the runner and JSONL encoding. Reports seeds/s, calls/s and CPU per seed.
func BenchmarkOverhead(b *testing.B) {
	seeds, model := benchSeeds(b)
	srv := llmtest.New(llmtest.Options{Reply: model.Reply, NoRecord: true})
	defer srv.Close()
	c, err := llm.New(llm.Config{BaseURL: srv.URL, Model: "fake", Stage: "ngrefine", Concurrency: 16, MaxRetries: 6, MaxReasks: 2})
	if err != nil {
		b.Fatal(err)
	}
	stage := testStage(b, c, nil)
	// Warm up: profiles, detectors and indexes are built once per run.
	pipeline.Run(context.Background(), pipeline.Config{Stage: stage, Source: &cycleSource{seeds: seeds, n: len(seeds)}, Sink: discard{}, Workers: 16})
	runtime.GC()
	b.ResetTimer()
	cpu0, t0 := cpuTime(), time.Now()
	st, err := pipeline.Run(context.Background(), pipeline.Config{Stage: stage, Source: &cycleSource{seeds: seeds, n: b.N}, Sink: discard{}, Workers: 16})
	wall, cpu := time.Since(t0), cpuTime()-cpu0
	b.StopTimer()
	if err != nil || st.Out != int64(b.N) {
		b.Fatalf("%+v %v", st, err)
	}
	b.ReportMetric(float64(b.N)/wall.Seconds(), "seeds/s")
	b.ReportMetric(3*float64(b.N)/wall.Seconds(), "calls/s")
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-us/seed")
}

// discard encodes records as JSONL, as a sink does, and drops them.
type discard struct{}

func (discard) Write(r *record.Record) error { _, err := r.AppendJSON(nil); return err }
func (discard) Close() error                 { return nil }
func (discard) Abort()                       {}

// BenchmarkCallsPerSeedWithFaults: the fault run of TestFaults (every
// fault kind on 20% of the requests; the fixture's seeds, a third
// accepted as they came, a third after one rewrite, a third after two),
// reporting answered calls and HTTP requests per refined seed, the calls
// the same seeds need without faults, and the share of seeds that failed.
func BenchmarkCallsPerSeedWithFaults(b *testing.B) {
	var calls, requests, ideal, failed float64
	for i := 0; i < b.N; i++ {
		res, plans := faultRun(b, uint64(i+1))
		c, r := callsPerSeed(res)
		calls, requests = calls+c, requests+r
		n := 0
		for _, p := range plans {
			n += 1 + 2*p.rounds
		}
		ideal += float64(n) / float64(len(plans))
		failed += float64(len(res.failed)) / float64(len(plans))
	}
	n := float64(b.N)
	b.ReportMetric(calls/n, "calls/seed")
	b.ReportMetric(requests/n, "requests/seed")
	b.ReportMetric(ideal/n, "calls/seed-no-faults")
	b.ReportMetric(100*failed/n, "%failed")
}
