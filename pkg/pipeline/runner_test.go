package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ngkit/ngkit/pkg/record"
)

type memSink struct {
	mu       sync.Mutex
	recs     []*record.Record
	closed   bool
	aborted  bool
	stopAt   int
	writeErr error
}

func (m *memSink) Write(r *record.Record) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.writeErr != nil {
		return m.writeErr
	}
	m.recs = append(m.recs, r)
	if m.stopAt > 0 && len(m.recs) >= m.stopAt {
		return ErrStop
	}
	return nil
}
func (m *memSink) Close() error { m.closed = true; return nil }
func (m *memSink) Abort()       { m.aborted = true }

func recs(n int) []*record.Record {
	out := make([]*record.Record, n)
	for i := range out {
		out[i] = &record.Record{ID: strconv.Itoa(i)}
	}
	return out
}

// A stage with random delays must still produce output in input order.
func TestRunKeepsInputOrder(t *testing.T) {
	stage := StageFunc{"slow", func(_ context.Context, r *record.Record) ([]*record.Record, error) {
		time.Sleep(time.Duration(rand.Intn(300)) * time.Microsecond)
		n, _ := strconv.Atoi(r.ID)
		if n%10 == 3 { // one in, two out
			return []*record.Record{r, {ID: r.ID + "b"}}, nil
		}
		return []*record.Record{r}, nil
	}}
	sink := &memSink{}
	st, err := Run(context.Background(), Config{Stage: stage, Source: SliceSource(recs(2000)), Sink: sink, Workers: 8})
	if err != nil {
		t.Fatal(err)
	}
	if st.In != 2000 || st.Out != 2200 || st.Failed != 0 || !sink.closed {
		t.Fatalf("stats %+v closed %v", st, sink.closed)
	}
	j := 0
	for i := 0; i < 2000; i++ {
		if sink.recs[j].ID != strconv.Itoa(i) {
			t.Fatalf("out[%d] = %s, want %d", j, sink.recs[j].ID, i)
		}
		j++
		if i%10 == 3 {
			if sink.recs[j].ID != strconv.Itoa(i)+"b" {
				t.Fatalf("out[%d] = %s", j, sink.recs[j].ID)
			}
			j++
		}
	}
}

// Failed records go to the errors file with the reason; nothing is lost:
// every input is in the output or in the errors.
func TestRunFailedRecordsAreLogged(t *testing.T) {
	stage := StageFunc{"picky", func(_ context.Context, r *record.Record) ([]*record.Record, error) {
		n, _ := strconv.Atoi(r.ID)
		switch {
		case n%7 == 0:
			return nil, fmt.Errorf("no sevens")
		case n == 50:
			panic("boom")
		}
		return []*record.Record{r}, nil
	}}
	dir := t.TempDir()
	elog, err := OpenErrorLog(dir + "/errors.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	sink := &memSink{}
	st, err := Run(context.Background(), Config{Stage: stage, Source: SliceSource(recs(100)), Sink: sink, Errors: elog, Workers: 4})
	if err != nil {
		t.Fatal(err)
	}
	if err := elog.Close(); err != nil {
		t.Fatal(err)
	}
	if st.Failed != 16 || st.Out != 84 || int(st.Out+st.Failed) != 100 {
		t.Fatalf("stats %+v", st)
	}
	b := readFile(t, dir+"/errors.jsonl")
	lines := strings.Split(strings.TrimSpace(b), "\n")
	if len(lines) != 16 || !strings.Contains(lines[0], `"id":"0","stage":"picky","error":"no sevens"`) ||
		!strings.Contains(b, `panic in stage picky: boom`) {
		t.Errorf("errors file:\n%s", b)
	}
}

type failingSource struct{ n, failAt int }

func (f *failingSource) Next() (Item, error) {
	if f.n == f.failAt {
		return Item{}, errors.New("in.jsonl:4: malformed JSON")
	}
	f.n++
	return Item{Rec: &record.Record{ID: strconv.Itoa(f.n)}}, nil
}
func (f *failingSource) Close() error { return nil }

func TestRunUnreadableInputAborts(t *testing.T) {
	sink := &memSink{}
	_, err := Run(context.Background(), Config{Source: &failingSource{failAt: 3}, Sink: sink})
	var fe *FatalError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "in.jsonl:4") {
		t.Fatalf("err = %v", err)
	}
	if !sink.aborted || sink.closed {
		t.Error("sink not aborted")
	}
	// A decode error of a raw item is fatal too.
	src := &rawSource{lines: []string{`{"id":"a"}`, `{bad`}}
	_, err = Run(context.Background(), Config{Source: src, Sink: &memSink{}})
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("err = %v", err)
	}
}

type rawSource struct {
	lines []string
	i     int
}

func (s *rawSource) Next() (Item, error) {
	if s.i >= len(s.lines) {
		return Item{}, io.EOF
	}
	s.i++
	line := s.i
	return Item{Raw: []byte(s.lines[s.i-1]), Decode: func(b []byte) (*record.Record, error) {
		if !strings.HasPrefix(string(b), `{"id"`) {
			return nil, fmt.Errorf("x:line %d: malformed", line)
		}
		return &record.Record{ID: string(b[7:8])}, nil
	}}, nil
}
func (s *rawSource) Close() error { return nil }

func TestRunStopsEarly(t *testing.T) {
	sink := &memSink{stopAt: 5}
	st, err := Run(context.Background(), Config{Source: SliceSource(recs(1000)), Sink: sink, Workers: 3})
	if err != nil || st.Out != 5 || len(sink.recs) != 5 || !sink.closed || st.Interrupted {
		t.Fatalf("err %v stats %+v", err, st)
	}
}

// N runs with --shard K/N write, together, every record of the run
// without shards once, and each within one work item of an equal share,
// whatever the input's size (N larger than it too): records dealt one by
// one, and records of several work items (ngseed's norms of --per-norm
// scenarios) dealt item by item, the stage making only the items
// SlotsOf gives it.
func TestRunShard(t *testing.T) {
	// A record of slots items writes one record per item it makes.
	stage := func(slots int) Stage {
		return StageFunc{"items", func(ctx context.Context, r *record.Record) ([]*record.Record, error) {
			mine, ok := SlotsOf(ctx)
			if !ok {
				mine = nil
				for j := range max(slots, 1) {
					mine = append(mine, j)
				}
			}
			var out []*record.Record
			for _, j := range mine {
				out = append(out, &record.Record{ID: r.ID + "." + strconv.Itoa(j)})
			}
			return out, nil
		}}
	}
	for _, slots := range []int{0, 1, 3, 10} {
		for _, size := range []int{0, 1, 3, 6, 7, 300} {
			whole := &memSink{}
			if _, err := Run(context.Background(), Config{Stage: stage(slots), Source: SliceSource(recs(size)), Sink: whole, Slots: slots}); err != nil {
				t.Fatal(err)
			}
			for _, n := range []int{1, 2, 3, 4, 8, 13} {
				seen := map[string]int{}
				lo, hi := len(whole.recs), 0
				for k := range n {
					sink := &memSink{}
					st, err := Run(context.Background(), Config{Stage: stage(slots), Source: SliceSource(recs(size)), Sink: sink,
						Workers: 3, Shard: Shard{K: k, N: n}, Slots: slots})
					if err != nil {
						t.Fatal(err)
					}
					if st.Skipped+st.In != int64(size) {
						t.Errorf("slots %d, %d records, shard %d/%d: %+v", slots, size, k, n, st)
					}
					for _, r := range sink.recs {
						seen[r.ID]++
					}
					lo, hi = min(lo, len(sink.recs)), max(hi, len(sink.recs))
				}
				if hi-lo > 1 {
					t.Errorf("slots %d, %d records, %d shards: from %d to %d items a shard, want within one", slots, size, n, lo, hi)
				}
				for _, r := range whole.recs {
					if seen[r.ID] != 1 {
						t.Errorf("slots %d, %d records, %d shards: %s made %d times", slots, size, n, r.ID, seen[r.ID])
					}
					delete(seen, r.ID)
				}
				if len(seen) > 0 {
					t.Errorf("slots %d, %d records, %d shards: items the run without shards lacks: %v", slots, size, n, seen)
				}
			}
		}
	}
	for _, bad := range []string{"3/3", "-1/2", "1", "a/b", "0/0"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q) accepted", bad)
		}
	}
}

// blockingSource hands out n records, then blocks as a terminal would.
type blockingSource struct {
	n     int
	block chan struct{}
}

func (b *blockingSource) Next() (Item, error) {
	if b.n == 0 {
		<-b.block
		return Item{}, io.EOF
	}
	b.n--
	return Item{Rec: &record.Record{ID: strconv.Itoa(b.n)}}, nil
}
func (b *blockingSource) Close() error { return nil }

// Ctrl-C: in-flight records finish or fail with the cancellation; the done
// ones are written and the sink committed, even though the source blocks.
func TestRunInterruptFlushesDone(t *testing.T) {
	// Without an errors file, then with one.
	for _, withLog := range []bool{false, true} {
		ctx, cancel := context.WithCancel(context.Background())
		var started sync.WaitGroup
		started.Add(10)
		stage := StageFunc{"llm", func(ctx context.Context, r *record.Record) ([]*record.Record, error) {
			n, _ := strconv.Atoi(r.ID)
			if n < 10 { // the last ten wait for a "call" that Ctrl-C cancels
				started.Done()
				<-ctx.Done()
				return nil, ctx.Err()
			}
			return []*record.Record{r}, nil
		}}
		src := &blockingSource{n: 30, block: make(chan struct{})}
		go func() { started.Wait(); cancel() }()
		sink := &memSink{}
		var logged strings.Builder
		var elog *ErrorLog
		if withLog {
			var err error
			if elog, err = OpenErrorLog(filepath.Join(t.TempDir(), "errors.jsonl")); err != nil {
				t.Fatal(err)
			}
		}
		st, err := Run(ctx, Config{Stage: stage, Source: src, Sink: sink, Workers: 10, Stderr: &logged, Errors: elog})
		close(src.block)
		if err != nil {
			t.Fatal(err)
		}
		if withLog && elog.Count() != 10 { // none lost: each cancelled record is in the errors file
			t.Errorf("%d records in the errors file, want 10", elog.Count())
		}
		elog.Close()
		if !st.Interrupted || st.Out != 20 || st.Failed != 10 || st.Cancelled != 10 || !sink.closed {
			t.Fatalf("stats %+v closed %v", st, sink.closed)
		}
		// What the interrupt cancelled is counted, not a line each (the
		// program's summary says how many).
		if logged.Len() != 0 {
			t.Errorf("errors file %v: stderr:\n%s", withLog, logged.String())
		}
	}
}

type flushSink struct {
	memSink
	flushed chan int
}

func (f *flushSink) Flush() error {
	f.mu.Lock()
	n := len(f.recs)
	f.mu.Unlock()
	select {
	case f.flushed <- n:
	default:
	}
	return nil
}

// Records that are done leave (are flushed) while the input is still open:
// a downstream stage must not wait for the upstream one to finish.
func TestRunFlushesWhileInputIsOpen(t *testing.T) {
	src := &blockingSource{n: 3, block: make(chan struct{})}
	sink := &flushSink{flushed: make(chan int, 1)}
	done := make(chan struct{})
	go func() {
		Run(context.Background(), Config{Source: src, Sink: sink})
		close(done)
	}()
	select {
	case n := <-sink.flushed:
		if n != 3 {
			t.Errorf("flushed after %d records, want 3", n)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no flush while the input is open")
	}
	close(src.block)
	<-done
}

func TestRunGivesIDsToRecordsWithout(t *testing.T) {
	mk := func() []*record.Record {
		return []*record.Record{{Scenario: "a"}, {Scenario: "b"}, {ID: "keep"}}
	}
	ids := func() []string {
		sink := &memSink{}
		if _, err := Run(context.Background(), Config{Source: SliceSource(mk()), Sink: sink}); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range sink.recs {
			out = append(out, r.ID)
		}
		return out
	}
	a, b := ids(), ids()
	if a[0] == "" || a[0] == a[1] || a[2] != "keep" || a[0] != b[0] || a[1] != b[1] {
		t.Errorf("ids %v then %v", a, b)
	}
}

// A malformed line stops the run before any record after it reaches the
// stage, even with many workers decoding ahead in parallel.
func TestRunMalformedLineStopsBeforeLaterRecords(t *testing.T) {
	for round := 0; round < 20; round++ {
		lines := make([]string, 200)
		for i := range lines {
			lines[i] = fmt.Sprintf(`{"id":"%c"}`, 'A'+i%50)
		}
		lines[2] = `{bad`
		var mu sync.Mutex
		var seen []string
		stage := StageFunc{"count", func(_ context.Context, r *record.Record) ([]*record.Record, error) {
			mu.Lock()
			seen = append(seen, r.ID)
			mu.Unlock()
			return []*record.Record{r}, nil
		}}
		sink := &memSink{}
		_, err := Run(context.Background(), Config{Stage: stage, Source: &rawSource{lines: lines}, Sink: sink, Workers: 16})
		var fe *FatalError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), "line 3") {
			t.Fatalf("err = %v", err)
		}
		for _, id := range seen {
			if id != "A" && id != "B" {
				t.Fatalf("round %d: record %s, after the malformed line 3, reached the stage (%v)", round, id, seen)
			}
		}
	}
}

// --max-error-rate: a run where everything fails stops after the first
// window of records, the way Ctrl-C does (the output is committed, the
// rest is not read), and says what kept failing; a run where some
// records fail goes on to the end.
func TestRunStopsOnErrorRate(t *testing.T) {
	var calls atomic.Int64
	failing := func(every int) Stage {
		return StageFunc{"gen", func(_ context.Context, r *record.Record) ([]*record.Record, error) {
			calls.Add(1)
			time.Sleep(time.Millisecond) // a call to a model
			if n, _ := strconv.Atoi(r.ID); n%every == 0 {
				return nil, fmt.Errorf("call dialogue: gave up after 3 attempts: reply failed the check (record %d)\nmore", n%2)
			}
			return []*record.Record{r}, nil
		}}
	}
	sink := &memSink{}
	st, err := Run(context.Background(), Config{Stage: failing(1), Source: SliceSource(recs(1000)), Sink: sink,
		Workers: 4, MaxErrorRate: 0.9})
	if err != nil || !sink.closed || sink.aborted || st.Interrupted {
		t.Fatalf("err %v, closed %v, stats %+v", err, sink.closed, st)
	}
	if st.Stopped == "" || !strings.Contains(st.Stopped, "20 of the last 20 records failed (--max-error-rate 0.9)") ||
		!strings.Contains(st.Stopped, "10 times: call dialogue: gave up after 3 attempts: reply failed the check (record ") || strings.Contains(st.Stopped, "more") {
		t.Errorf("stopped: %q", st.Stopped)
	}
	if n := calls.Load(); n > 20+4*4 || st.In > 60 {
		t.Errorf("%d calls, %d records read before the stop", n, st.In)
	}
	// A reason over 300 bytes is counted whole, then cut for the line
	// (it was cut first, and said "0 times").
	long := StageFunc{"gen", func(context.Context, *record.Record) ([]*record.Record, error) {
		return nil, errors.New("call dialogue: " + strings.Repeat("가", 200))
	}}
	st, err = Run(context.Background(), Config{Stage: long, Source: SliceSource(recs(100)), Sink: &memSink{}, Workers: 4, MaxErrorRate: 0.9})
	if err != nil || !strings.Contains(st.Stopped, "; 20 times: call dialogue: 가가") || !strings.HasSuffix(st.Stopped, "가...") {
		t.Errorf("long reason: err %v, stopped %q", err, st.Stopped)
	}
	calls.Store(0)
	st, err = Run(context.Background(), Config{Stage: failing(2), Source: SliceSource(recs(1000)), Sink: &memSink{},
		Workers: 4, MaxErrorRate: 0.9})
	if err != nil || st.Stopped != "" || st.In != 1000 || st.Failed != 500 {
		t.Errorf("half failing: err %v, stats %+v", err, st)
	}
}
