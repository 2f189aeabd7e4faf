package llm

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/recio"
	"github.com/ngkit/ngkit/pkg/record"
)

const koJSON = `{"text":"안녕하세요, 만나서 반갑습니다.","lang":"ko"}`

// startFakeProcess runs the fake server in a child process (this test
// binary as fakellm), so that the benchmark's CPU time is ours only.
func startFakeProcess(b *testing.B, args ...string) string {
	b.Helper()
	script := filepath.Join(b.TempDir(), "script.jsonl")
	os.WriteFile(script, []byte(`{"content":`+strconv.Quote(koJSON)+`}`+"\n"), 0o644)
	cmd := exec.Command(os.Args[0], append([]string{"--script", script}, args...)...)
	cmd.Env = append(os.Environ(), "NGKIT_TEST_ROLE=fakellm")
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() })
	url, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		b.Fatal(err)
	}
	return url[:len(url)-1]
}

// genSource makes n records on demand: the input is never all in memory.
type genSource struct {
	n, i int
	read *atomic.Int64
}

func (s *genSource) Next() (pipeline.Item, error) {
	if s.i >= s.n {
		return pipeline.Item{}, io.EOF
	}
	s.i++
	if s.read != nil {
		s.read.Add(1)
	}
	return pipeline.Item{Rec: &record.Record{ID: fmt.Sprintf("k%08d", s.i), Culture: "korean", Scenario: fmt.Sprintf("scenario %d", s.i)}}, nil
}
func (s *genSource) Close() error { return nil }

// discardSink encodes every record as JSONL (the real work of a sink)
// and throws it away.
func discardSink(b testing.TB) pipeline.Sink {
	out, err := recio.Create("", recio.JSONL, io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	s, err := pipeline.NewRecordSink(out, recio.WriteOptions{})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkThroughput: the test stage through the shared runner against
// the fake server (another process) with 100 ms latency at --concurrency
// 64; the ideal is 640 calls/s. Reports calls/s, the share of the ideal
// and our CPU per call (runner, client, SDK, JSON extraction, schema
// validation, the language check, cache writes, JSONL encoding, GC).
// Run with -benchtime=3000x or more: the first and last 100 ms are ramps.
func BenchmarkThroughput(b *testing.B) {
	const concurrency, latency = 64, 100 * time.Millisecond
	cacheDir := b.TempDir()
	if d := os.Getenv("NG_BENCH_CACHE"); d != "" {
		cacheDir, _ = os.MkdirTemp(d, "bench")
		defer os.RemoveAll(cacheDir)
	}
	if os.Getenv("NG_BENCH_CACHE") == "off" {
		cacheDir = ""
	}
	rate := runThroughput(b, concurrency, latency, cacheDir)
	ideal := float64(concurrency) / latency.Seconds()
	b.ReportMetric(100*rate/ideal, "%ideal")
}

// BenchmarkClientOverhead: as BenchmarkThroughput at 0 ms latency and
// --concurrency 256, without the cache: the client's own cost, where
// bench.sh peers found ngkit furthest from its CPU goal. alloc-B/call
// is steady on a busy machine, where CPU figures are not.
func BenchmarkClientOverhead(b *testing.B) {
	runThroughput(b, 256, 0, "")
}

// runThroughput runs b.N calls of the test stage through the shared
// runner against the fake server (another process) and reports calls/s,
// our CPU per call and the bytes allocated per call.
func runThroughput(b *testing.B, concurrency int, latency time.Duration, cacheDir string) (rate float64) {
	url := startFakeProcess(b, "--latency", latency.String())
	c, err := New(Config{BaseURL: url, Model: "fake", Concurrency: concurrency, CacheDir: cacheDir, MaxRetries: 6})
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	allocs := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(allocs)
	alloc0 := allocs[0].Value.Uint64()
	b.ResetTimer()
	cpu0, t0 := cpuTime(), time.Now()
	st, err := pipeline.Run(context.Background(), pipeline.Config{Stage: koStage{c}, Source: &genSource{n: b.N}, Sink: discardSink(b), Workers: c.cfg.Workers()})
	wall, cpu := time.Since(t0), cpuTime()-cpu0
	b.StopTimer()
	metrics.Read(allocs)
	if err != nil || st.Out != int64(b.N) {
		b.Fatalf("%+v %v", st, err)
	}
	rate = float64(b.N) / wall.Seconds()
	b.ReportMetric(rate, "calls/s")
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-us/call")
	b.ReportMetric(float64(allocs[0].Value.Uint64()-alloc0)/float64(b.N), "alloc-B/call")
	return rate
}

// memTransport answers every request from memory after a latency: the
// client, SDK and runner do all their work, without a network or server.
type memTransport struct{ latency time.Duration }

var cannedReply = []byte(`{"id":"x","object":"chat.completion","model":"fake","choices":[{"index":0,"message":{"role":"assistant","content":` +
	strconv.Quote(koJSON) + `},"finish_reason":"stop"}],"usage":{"prompt_tokens":40,"completion_tokens":12}}`)

func (m memTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil { // a GET (the client's /api/ps) has none
		io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	if m.latency > 0 {
		time.Sleep(m.latency)
	}
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(bytes.NewReader(cannedReply)), Request: r, ContentLength: int64(len(cannedReply))}, nil
}

// memRun streams n generated records through the test stage with an
// in-memory endpoint and reports the peak Go heap and the most records
// read but not yet written.
func memRun(tb testing.TB, n, concurrency int, latency time.Duration) (peakHeap uint64, maxInFlight int64) {
	c, err := New(Config{BaseURL: "http://fake.invalid/v1", Model: "fake", Concurrency: concurrency,
		HTTPClient: &http.Client{Transport: memTransport{latency}}})
	if err != nil {
		tb.Fatal(err)
	}
	var read, written atomic.Int64
	stage := pipeline.StageFunc{StageName: "koecho", Fn: func(ctx context.Context, r *record.Record) ([]*record.Record, error) {
		out, err := koStage{c}.Process(ctx, r)
		if n := read.Load() - written.Add(1) + 1; n > atomic.LoadInt64(&maxInFlight) {
			atomic.StoreInt64(&maxInFlight, n)
		}
		return out, err
	}}
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // sample the heap every 10 ms
		defer wg.Done()
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		for {
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	st, err := pipeline.Run(context.Background(), pipeline.Config{Stage: stage, Source: &genSource{n: n, read: &read}, Sink: discardSink(tb), Workers: c.cfg.Workers()})
	close(stop)
	wg.Wait()
	if err != nil || st.Out != int64(n) {
		tb.Fatalf("%+v %v", st, err)
	}
	return peak.Load(), atomic.LoadInt64(&maxInFlight)
}

// The concurrency window, not a queue of everything, bounds what is in
// memory: records in flight never exceed the runner's window (16 per
// worker), whatever the input size.
func TestWindowBoundsMemory(t *testing.T) {
	const concurrency = 16
	_, inFlight := memRun(t, 5000, concurrency, 200*time.Microsecond)
	window := 16 * Config{Concurrency: concurrency}.Workers() // the runner's default
	if inFlight > int64(window) {
		t.Errorf("%d records in flight, window %d", inFlight, window)
	}
}

// BenchmarkMillionRecords streams NG_BENCH_RECORDS (default 1,000,000)
// records through the runtime (in-memory endpoint, 1 ms latency,
// concurrency 64) and reports the peak heap and peak RSS: flat, since
// the window bounds the records in flight.
func BenchmarkMillionRecords(b *testing.B) {
	n := 1_000_000
	if v, err := strconv.Atoi(os.Getenv("NG_BENCH_RECORDS")); err == nil && v > 0 {
		n = v
	}
	for i := 0; i < b.N; i++ {
		cpu0, t0 := cpuTime(), time.Now()
		peak, inFlight := memRun(b, n, 64, time.Millisecond)
		wall, cpu := time.Since(t0), cpuTime()-cpu0
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		b.ReportMetric(float64(n), "records")
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
		b.ReportMetric(float64(ru.Maxrss)/1024, "peak-RSS-MiB")
		b.ReportMetric(float64(inFlight), "max-in-flight")
		b.ReportMetric(float64(n)/wall.Seconds(), "calls/s")
		b.ReportMetric(float64(cpu.Microseconds())/float64(n), "cpu-us/call")
	}
}
