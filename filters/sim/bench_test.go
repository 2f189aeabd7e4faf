package sim

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ngkit/ngkit/pkg/lang"
	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/llm/llmtest"
	"github.com/ngkit/ngkit/pkg/llm/roles"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/record"
)

// benchReply answers the three roles cheaply (the fake's own CPU is part
// of what the benchmark measures): a user who never meets the goal, so
// every episode runs its 8 turns; a Thai assistant; a judge.
func benchReply(req *llmtest.ChatRequest) string {
	switch req.SchemaName() {
	case "sim_user":
		return `{"message":"ฟังดูดีครับ แต่ผมต้องคิดถึงสิ่งที่พ่อแม่คาดหวังด้วย","goal_met":false,"revealed":["c1"]}`
	case "sim_judge":
		return `{"assistance":4,"assistance_rationale":"ok","cultural":4,"cultural_rationale":"ok","language":5,"language_rationale":"ok","constraints":{"c1":{"outcome":"inferred_and_respected","rationale":"x"},"c2":{"outcome":"not_addressed","rationale":"x"},"c3":{"outcome":"violated","rationale":"x"}}}`
	}
	return "ได้เลยครับ นี่คือแผนง่าย ๆ ที่คุณปรับให้เข้ากับครอบครัวได้"
}

// stamp notes when each episode finished.
type stamp struct {
	pipeline.Stage
	mu   sync.Mutex
	done []time.Time
}

func (s *stamp) Process(ctx context.Context, r *record.Record) ([]*record.Record, error) {
	out, err := s.Stage.Process(ctx, r)
	s.mu.Lock()
	s.done = append(s.done, time.Now())
	s.mu.Unlock()
	return out, err
}

type discard struct{}

func (discard) Write(*record.Record) error { return nil }
func (discard) Close() error               { return nil }
func (discard) Abort()                     {}

type workSource struct {
	base *record.Record
	n, i int
}

func (w *workSource) Next() (pipeline.Item, error) {
	if w.i == w.n {
		return pipeline.Item{}, io.EOF
	}
	w.i++
	r := *w.base
	r.ID = fmt.Sprint("ep", w.i)
	return pipeline.Item{Rec: &r}, nil
}
func (w *workSource) Close() error { return nil }

func cpu() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkEpisodes: 8-turn episodes (8 assistant replies, 7 user turns,
// a judge call) with every role on its own endpoint of the fake server at
// 100 ms a reply, concurrency 64 each, the runner's workers as ngsim sets
// them (twice the windows). The assistant makes the most calls, so it
// bounds the rate: 64 in flight of 100 ms, 8 a episode, give 80
// episodes/s. Reports episodes/s over the run and in the steady state
// (between the 10th and 90th percentile of finishing times, without the
// ramp and the drain), both against that bound, each endpoint's window
// utilisation, the time an assistant call held its slot (on a loaded
// machine more than the fake's 100 ms), and the process CPU per turn (client, stage, runner and the
// in-process fake server together: an upper bound of ours).
// NGSIM_BENCH_URL=URL runs it against a fake server in another process
// (./fakeng --latency 100ms, internal/fakeng/cmd/fakeng), so that the CPU
// measured is ours alone; else the fake runs in-process, with replies of
// its own.
// Run with: go test -run '^$' -bench Episodes -benchtime 1280x ./filters/sim
func BenchmarkEpisodes(b *testing.B) {
	url := os.Getenv("NGSIM_BENCH_URL")
	if url == "" {
		srv := llmtest.New(llmtest.Options{Reply: benchReply, NoRecord: true, Latency: 100 * time.Millisecond})
		defer srv.Close()
		url = srv.URL
	}
	file := filepath.Join(b.TempDir(), "models.yaml")
	var y string
	for _, a := range [][2]string{{"sim", "sim-never-end"}, {"asst", "asst"}, {"judge", "judge"}} {
		y += fmt.Sprintf("  %s:\n    base_url: %s\n    model: %s\n    concurrency: 64\n", a[0], url, a[1])
	}
	os.WriteFile(file, []byte("endpoints:\n"+y), 0o644)
	m, err := roles.Open(roles.Settings{Models: file, Assign: []roles.Assignment{{Role: "user", Aliases: []string{"sim"}}, {Role: "assistant", Aliases: []string{"asst"}}, {Role: "judge", Aliases: []string{"judge"}}}}, "ngsim",
		[]roles.Role{{Name: roles.User}, {Name: roles.Assistant, Panel: true}, {Name: roles.Judge}},
		llm.Config{Concurrency: 16, MaxRetries: 6, MaxReasks: 2, Timeout: time.Minute}, nil, func(string) string { return "" })
	if err != nil {
		b.Fatal(err)
	}
	var asst []Assistant
	for _, mem := range m.Panel(roles.Assistant) {
		asst = append(asst, Assistant{Alias: mem.Alias, Caller: mem.Caller})
	}
	if _, err := lang.For("th"); err != nil { // its models load once, before the clock
		b.Fatal(err)
	}
	st, err := New(Options{User: m.Caller(roles.User), Judge: m.Caller(roles.Judge), Assistants: asst, MaxTurns: 8})
	if err != nil {
		b.Fatal(err)
	}
	base := spec("x")
	base.Sim = &record.Sim{Assistant: "asst", Mode: "benchmark"}
	stage := &stamp{Stage: st}
	b.ResetTimer()
	c0, t0 := cpu(), time.Now()
	stats, err := pipeline.Run(context.Background(), pipeline.Config{Stage: stage, Source: &workSource{base: base, n: b.N}, Sink: discard{}, Workers: m.Workers()})
	wall, used := time.Since(t0), cpu()-c0
	b.StopTimer()
	if err != nil || stats.Out != int64(b.N) {
		b.Fatalf("%+v %v", stats, err)
	}
	const bound = 64 / (8 * 0.1)
	rate := float64(b.N) / wall.Seconds()
	b.ReportMetric(rate, "episodes/s")
	b.ReportMetric(rate/bound, "of-ideal")
	sort.Slice(stage.done, func(i, j int) bool { return stage.done[i].Before(stage.done[j]) })
	if n := len(stage.done); n >= 20 {
		lo, hi := stage.done[n/10], stage.done[n*9/10]
		steady := float64(n*9/10-n/10) / hi.Sub(lo).Seconds()
		b.ReportMetric(steady/bound, "steady-of-ideal")
	}
	for _, e := range m.Usage().Endpoints {
		b.ReportMetric(e.Utilisation, e.Alias+"-util")
	}
	for _, e := range m.Usage().Endpoints {
		if e.Alias == "asst" {
			// The time a call held its slot: the fake's 100 ms, and what a
			// loaded machine adds to it.
			b.ReportMetric(64*e.Utilisation*wall.Seconds()/float64(b.N*8)*1000, "asst-ms/slot")
		}
	}
	turns := b.N * 15 // 8 assistant replies and 7 user turns
	b.ReportMetric(float64(used.Microseconds())/float64(turns), "cpu-µs/turn")
	b.ReportMetric(float64(m.Workers()), "workers")
}

// The per-episode reply schemas, made and compiled once per episode
// (BenchmarkEpisodes includes them; this is their share).
func BenchmarkEpisodeSchemas(b *testing.B) {
	cons := spec("s1").Episode.Constraints
	for b.Loop() {
		if _, _, err := episodeSchemas(cons); err != nil {
			b.Fatal(err)
		}
	}
}
