package seed

import (
	"bufio"
	"context"
	"fmt"
	"maps"
	"net"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ngkit/ngkit/filters/seed/seedtest"
	"github.com/ngkit/ngkit/internal/testkit"
	"github.com/ngkit/ngkit/pkg/llm/llmtest"
	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/record"
)

// TestMain lets a benchmark run this test binary as the fake model in a
// child process, so that the benchmark's CPU time is ngseed's only.
func TestMain(m *testing.M) {
	if os.Getenv("NGKIT_SEED_ROLE") == "fake" {
		os.Exit(serveFake())
	}
	os.Exit(m.Run())
}

// serveFake answers ngseed from the release fixture until stdin closes;
// NGKIT_SEED_FAULTS is the fault rate.
func serveFake() int {
	pool, err := seedtest.Load("")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	rate, _ := strconv.ParseFloat(os.Getenv("NGKIT_SEED_FAULTS"), 64)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	r := &seedtest.Replier{Pool: pool}
	srv, _ := llmtest.Listen(l, llmtest.Options{Reply: r.Reply, NoRecord: true, FaultRate: rate, Seed: 3,
		RetryAfter: 2 * time.Millisecond, SlowFor: 2 * time.Second})
	fmt.Println(srv.URL)
	bufio.NewReader(os.Stdin).ReadString('\n') // until the parent closes stdin
	return 0
}

func startFake(b *testing.B, faults float64) string {
	b.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "NGKIT_SEED_ROLE=fake", fmt.Sprintf("NGKIT_SEED_FAULTS=%g", faults))
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { stdin.Close(); cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() })
	url, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		b.Fatal(err)
	}
	return url[:len(url)-1]
}

// discard is a sink that counts seeds.
type discard struct{ n int }

func (d *discard) Write(*record.Record) error { d.n++; return nil }
func (d *discard) Close() error               { return nil }
func (d *discard) Abort()                     {}

// benchSeed runs b.N norms (of all cultures, in turn) through the stage
// and the shared runner, all three types, 10 scenarios per norm, against
// the fake in a child process; it reports seeds per second and requests
// per seed.
func benchSeed(b *testing.B, faults float64) {
	url := startFake(b, faults)
	var reqs int64
	cfg := testkit.LLMConfig(url, "ngseed")
	cfg.Concurrency, cfg.Timeout, cfg.Backoff = 32, 300*time.Millisecond, 2*time.Millisecond
	client := testkit.Client(b, cfg)
	st, err := New(client, Options{Types: record.DialogueTypes, MaxTopUps: DefaultMaxTopUps})
	if err != nil {
		b.Fatal(err)
	}
	all := normbank.BuiltinNorms()
	norms := make([]normbank.Norm, b.N)
	for i := range norms {
		norms[i] = all[(i*37)%len(all)] // spread over cultures and categories
	}
	src, _ := NormSource(norms, Selection{}, "bench")
	sink := &discard{}
	b.ResetTimer()
	stats, err := pipeline.Run(context.Background(), pipeline.Config{Stage: st, Source: src, Sink: sink, Workers: 32, Stderr: os.Stderr})
	b.StopTimer()
	if err != nil || stats.Failed > 0 && faults == 0 {
		b.Fatalf("%v; %d failed", err, stats.Failed)
	}
	u := client.Usage()
	reqs = u.Total.Requests
	b.ReportMetric(float64(sink.n)/b.Elapsed().Seconds(), "seeds/s")
	b.ReportMetric(float64(reqs)/float64(max(sink.n, 1)), "requests/seed")
	b.ReportMetric(float64(stats.Failed), "norms-failed")
	var by []string
	for _, name := range slices.Sorted(maps.Keys(u.ByCall)) {
		c := u.ByCall[name]
		by = append(by, fmt.Sprintf("%s %d calls %d requests", name, c.Calls, c.Requests))
	}
	b.Logf("%d norms, %d seeds: %s", b.N, sink.n, strings.Join(by, "; "))
}

// Our overhead: zero-latency fake, no faults.
func BenchmarkSeed(b *testing.B) { benchSeed(b, 0) }

// Requests per seed when 20% of requests fail (every fault kind).
func BenchmarkSeedFaults(b *testing.B) { benchSeed(b, 0.2) }
