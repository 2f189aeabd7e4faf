// Package testkit holds what the tests of the stages and programs share:
// a memory sink, running a stage over records through the shared runner
// (outputs and errors file back), reading and writing JSONL records and
// errors files, and an LLM client configuration with fast retries for the
// fake server of pkg/llm/llmtest, a turn label added to the table for a
// test. One copy here instead of one per package's tests.
package testkit

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/record"
)

// Sink is a pipeline.Sink that keeps the records in memory, in the order
// the runner writes them.
type Sink struct {
	mu   sync.Mutex
	recs []*record.Record
}

// Write keeps r.
func (s *Sink) Write(r *record.Record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recs = append(s.recs, r)
	return nil
}

// Close and Abort do nothing: the records stay readable.
func (s *Sink) Close() error { return nil }
func (s *Sink) Abort()       {}

// Records returns the records written so far.
func (s *Sink) Records() []*record.Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.recs
}

// Result is what a run of a stage gave.
type Result struct {
	Out    []*record.Record       // in input order
	Errors []pipeline.ErrorRecord // the errors file, read back
	Stats  pipeline.Stats
}

// Run runs stage over recs through the shared runner, workers at a time,
// with an errors file (its lines must parse); the runner's messages go to
// the test's output. A runner error fails the test.
func Run(t testing.TB, stage pipeline.Stage, recs []*record.Record, workers int) Result {
	t.Helper()
	path := filepath.Join(t.TempDir(), "errors.jsonl")
	elog, err := pipeline.OpenErrorLog(path)
	if err != nil {
		t.Fatal(err)
	}
	sink := &Sink{}
	st, err := pipeline.Run(context.Background(), pipeline.Config{Stage: stage, Source: pipeline.SliceSource(recs),
		Sink: sink, Errors: elog, Workers: workers, Stderr: t.Output()})
	if err != nil {
		t.Fatal(err)
	}
	if err := elog.Close(); err != nil {
		t.Fatal(err)
	}
	return Result{Out: sink.Records(), Errors: ReadErrors(t, path), Stats: st}
}

// Records drains src: its records in order; a read error or an item
// that carries one fails the test.
func Records(t testing.TB, src pipeline.Source) []*record.Record {
	t.Helper()
	defer src.Close()
	var out []*record.Record
	for {
		it, err := src.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if it.Err != nil {
			t.Fatalf("%s: %v", it.Rec.ID, it.Err)
		}
		out = append(out, it.Rec)
	}
}

// ReadErrors reads an errors file (none when it does not exist); every
// line must parse.
func ReadErrors(t testing.TB, path string) []pipeline.ErrorRecord {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []pipeline.ErrorRecord
	for n, l := range lines(b) {
		var e pipeline.ErrorRecord
		if err := json.Unmarshal(l, &e); err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		out = append(out, e)
	}
	return out
}

// ErrorMap is the errors file as id -> error (none when it does not exist).
func ErrorMap(t testing.TB, path string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, e := range ReadErrors(t, path) {
		out[e.ID] = e.Error
	}
	return out
}

// ReadJSONL parses JSONL records (name says where they came from in a
// failure); every line must parse.
func ReadJSONL(t testing.TB, name string, data []byte) []*record.Record {
	t.Helper()
	var out []*record.Record
	for n, l := range lines(data) {
		r := &record.Record{}
		if err := r.UnmarshalJSON(l); err != nil {
			t.Fatalf("%s:%d: %v (line %q)", name, n, err, l)
		}
		out = append(out, r)
	}
	return out
}

// ReadFile reads a JSONL file of records; every line must parse.
func ReadFile(t testing.TB, path string) []*record.Record {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return ReadJSONL(t, path, b)
}

// JSONL encodes records one a line, as the programs write them.
func JSONL(t testing.TB, recs []*record.Record) string {
	t.Helper()
	var b strings.Builder
	for _, r := range recs {
		line, err := r.AppendJSON(nil)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.String()
}

// lines yields the lines of b with their 1-based numbers (an empty line
// too: it is no record, and fails to parse).
func lines(b []byte) func(func(int, []byte) bool) {
	return func(yield func(int, []byte) bool) {
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, 1<<26)
		for n := 1; sc.Scan(); n++ {
			if !yield(n, sc.Bytes()) {
				return
			}
		}
	}
}

// LLMConfig is a client configuration for the fake server at url, for the
// named stage: no cache, quick retries (1 ms backoff, Retry-After capped at
// 20 ms), 6 retries and 2 re-asks, 8 calls at a time, a 2 s timeout.
// Tests change the fields their case needs.
func LLMConfig(url, stage string) llm.Config {
	return llm.Config{BaseURL: url, Model: "fake", Stage: stage, Concurrency: 8,
		MaxRetries: 6, MaxReasks: 2, Backoff: time.Millisecond, RetryAfterCap: 20 * time.Millisecond, Timeout: 2 * time.Second}
}

// Client is llm.New(cfg) for a test.
func Client(t testing.TB, cfg llm.Config) *llm.Client {
	t.Helper()
	c, err := llm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// FastRetryFlags are the command-line form of LLMConfig's retry settings,
// for running a program against the fake server: no cache, quick retries,
// no progress bar; args follow them.
func FastRetryFlags(args ...string) []string {
	return append([]string{"--no-cache", "--backoff", "1ms", "--retry-after-cap", "20ms", "-q"}, args...)
}

// AddLabel appends a turn label to record.LabelTasks for the test (and
// takes it out when the test ends), as a new label is added: one row. It
// has no field of its own in the record's types, so its values are kept
// here, by the address of the Labels or ModelLabels that holds them: they
// live in memory only (not in JSON), which is enough for a test that
// hands records from stage to stage. Not for parallel tests.
func AddLabel(t testing.TB, row record.LabelTask) *record.LabelTask {
	t.Helper()
	var mu sync.Mutex
	labels, dists, byModel := map[*record.Labels]*string{}, map[*record.Labels]*map[string]float64{}, map[*record.ModelLabels]*string{}
	row.Field = func(l *record.Labels) *string { return slot(&mu, labels, l) }
	row.Dist = func(l *record.Labels) *map[string]float64 { return slot(&mu, dists, l) }
	row.ByModel = func(m *record.ModelLabels) *string { return slot(&mu, byModel, m) }
	row.Column = nil
	old := record.LabelTasks
	record.LabelTasks = append(old[:len(old):len(old)], row)
	t.Cleanup(func() { record.LabelTasks = old })
	return &record.LabelTasks[len(record.LabelTasks)-1]
}

// slot is the value kept for key, made on first use.
func slot[K comparable, V any](mu *sync.Mutex, m map[K]*V, key K) *V {
	mu.Lock()
	defer mu.Unlock()
	p := m[key]
	if p == nil {
		p = new(V)
		m[key] = p
	}
	return p
}
