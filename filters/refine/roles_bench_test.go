package refine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/llm/llmtest"
	"github.com/ngkit/ngkit/pkg/llm/roles"
	"github.com/ngkit/ngkit/pkg/pipeline"
)

// BenchmarkTwoEndpoints: ngrefine with the rewriter on a fast endpoint
// (100 ms a reply) and the judge on a slow one (1 s), --concurrency 32
// each, from a models file through roles.Open as the program makes
// them, with the runner's workers (twice both windows). Every seed is
// judged below the bar, rewritten once and judged again: two judge calls
// and one rewrite. The judge alone bounds the rate: 32 calls in flight of
// 1 s give 16 seeds/s, and the fast endpoint, which could take 320
// rewrites/s, is asked for 16/s. Reports seeds/s, that rate against the
// judge's bound, and each endpoint's utilisation (the mean share of its
// window in flight over the run, ramp-up and drain included).
// Run with: go test -run '^$' -bench TwoEndpoints -benchtime 320x ./filters/refine
func BenchmarkTwoEndpoints(b *testing.B) {
	seeds, model := benchSeeds(b)
	fast := llmtest.New(llmtest.Options{Reply: model.Reply, NoRecord: true, Latency: 100 * time.Millisecond})
	defer fast.Close()
	slow := llmtest.New(llmtest.Options{Reply: model.Reply, NoRecord: true, Latency: time.Second})
	defer slow.Close()
	dir := b.TempDir()
	file := filepath.Join(dir, "models.yaml")
	os.WriteFile(file, fmt.Appendf(nil, "endpoints:\n  fast:\n    base_url: %s/v1\n    model: rewriter\n    concurrency: 32\n  slow:\n    base_url: %s/v1\n    model: judge\n    concurrency: 32\n", fast.URL, slow.URL), 0o644)
	rs := []roles.Role{{Name: roles.Rewriter}, {Name: roles.Judge}}
	m, err := roles.Open(roles.Settings{Models: file, Assign: []roles.Assignment{{Role: "rewriter", Aliases: []string{"fast"}}, {Role: "judge", Aliases: []string{"slow"}}}}, "ngrefine", rs,
		llm.Config{Concurrency: 16, MaxRetries: 6, MaxReasks: 2, Timeout: time.Minute}, nil, func(string) string { return "" })
	if err != nil {
		b.Fatal(err)
	}
	stage := testStage(b, m.Caller(roles.Rewriter), func(o *Options) { o.Judge = m.Caller(roles.Judge) })
	b.ResetTimer()
	t0 := time.Now()
	st, err := pipeline.Run(context.Background(), pipeline.Config{Stage: stage, Source: &cycleSource{seeds: seeds, n: b.N}, Sink: discard{}, Workers: m.Workers()})
	wall := time.Since(t0)
	b.StopTimer()
	if err != nil || st.Out != int64(b.N) {
		b.Fatalf("%+v %v", st, err)
	}
	u := m.Usage()
	util := map[string]float64{}
	for _, e := range u.Endpoints {
		util[e.Alias] = e.Utilisation
	}
	rate := float64(b.N) / wall.Seconds()
	b.ReportMetric(rate, "seeds/s")
	b.ReportMetric(rate/16, "of-judge-bound")
	b.ReportMetric(util["slow"], "judge-util")
	b.ReportMetric(util["fast"], "rewriter-util")
	b.ReportMetric(float64(m.Workers()), "workers")
}
