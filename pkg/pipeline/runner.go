package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/ngkit/ngkit/pkg/recio"
	"github.com/ngkit/ngkit/pkg/record"
)

// flushEvery bounds how long written output may wait in a buffer.
const flushEvery = 100 * time.Millisecond

// Flusher is a Sink whose buffered output can be pushed out early.
type Flusher interface{ Flush() error }

// Config is one run.
type Config struct {
	Stage  Stage // nil: Identity
	Source Source
	Sink   Sink
	// Errors receives failed records; nil reports them on Stderr only.
	Errors *ErrorLog
	// Workers is the number of concurrent Process calls (default NumCPU).
	Workers int
	// Window bounds the records in flight, read but not yet written
	// (default 16 x Workers): it bounds memory when one record is slow.
	Window int
	// Shard deals the input out by place (see Shard); Slots is how many
	// work items each input record holds (ngseed: a norm's scenarios), so
	// that the shard deals those items, not whole records (0 or 1: a
	// record is one item).
	Shard Shard
	Slots int
	// Progress, when not nil, is updated as records are written.
	Progress *Progress
	Stderr   io.Writer
	// Done holds the ids of input records finished by an earlier run
	// (--resume): they are skipped, counted in Stats.Resumed.
	Done map[string]struct{}
	// MaxErrorRate, when in (0, 1), stops the run early, the way Ctrl-C
	// does, once more than this share of the last ErrorWindow records
	// (default 20) failed: a broken prompt or model would otherwise burn
	// every attempt of every record. Stats.Stopped says why.
	MaxErrorRate float64
	ErrorWindow  int
}

// Stats count what a run did.
type Stats struct {
	In, Out, Failed, Skipped int64
	Resumed                  int64            // skipped: done by an earlier run
	Dropped                  int64            // left out on purpose (DropError)
	DroppedBy                map[string]int64 // Dropped by what dropped them (DropError.By)
	Interrupted              bool
	// Cancelled are the Failed records the interrupt (Ctrl-C, --budget)
	// cancelled: not processed, or their model calls not answered.
	Cancelled int64
	// Stopped, when not "", says why the run stopped early (MaxErrorRate).
	Stopped string
}

// FatalError is an input that cannot be read (exit 2).
type FatalError struct{ Err error }

func (e *FatalError) Error() string { return e.Err.Error() }
func (e *FatalError) Unwrap() error { return e.Err }

type job struct {
	seq  int64
	item Item
	err  error // read error: fatal
	// prev is closed once every earlier item is decoded, ready once this
	// one is too: no record goes to the stage while an earlier line may
	// still turn out malformed (the run then stops before any call on a
	// later record).
	prev, ready chan struct{}
}

type result struct {
	seq     int64
	item    Item
	in      *record.Record
	out     []*record.Record
	encoded [][]byte // out, encoded by the sink's PreEncode (nil: not encoded)
	err     error    // the record failed
	fatal   error    // the input is unreadable
	skipped bool     // not in this shard
	resumed bool     // done by an earlier run
}

// Run reads every item of cfg.Source, maps it through cfg.Stage on
// cfg.Workers goroutines and writes the results to cfg.Sink in input
// order; it closes the source when done with it. It returns a *FatalError for unreadable input (the sink is then
// aborted) and nil otherwise; failed records are counted in Stats.Failed.
// When ctx is cancelled (Ctrl-C), reading stops, records in flight finish
// or fail with the cancellation, what is done is written and committed.
func Run(parent context.Context, cfg Config) (Stats, error) {
	stage := cfg.Stage
	if stage == nil {
		stage = Identity
	}
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	window := cfg.Window
	if window <= 0 {
		window = 16 * workers
	}
	ctx, cancelCause := context.WithCancelCause(parent)
	r := &run{
		cfg: cfg, stage: stage, parent: parent, ctx: ctx, cancelCause: cancelCause,
		jobs:    make(chan job, workers),
		results: make(chan result, window),
		tokens:  make(chan struct{}, window),
		rate:    newErrorRate(cfg.MaxErrorRate, cfg.ErrorWindow),
	}
	r.preEncoder, _ = cfg.Sink.(PreEncoder)
	defer r.cancel()
	go r.read()
	r.startWorkers(workers)
	r.write()
	return r.finish()
}

// run is the state of one Run that its reader, workers and writer share.
type run struct {
	cfg         Config
	stage       Stage
	parent, ctx context.Context
	cancelCause context.CancelCauseFunc
	preEncoder  PreEncoder

	jobs    chan job
	results chan result
	tokens  chan struct{} // one per record read and not yet written: the window

	// The reader counts jobs sent under mu, so that once ctx is done the
	// writer knows exactly how many results are still to come, even if the
	// reader is blocked in a read that never returns (a terminal on stdin).
	mu   sync.Mutex
	sent int64

	// abandoned: the input is unreadable, the run ends with exit 2 and no
	// output; the records it cancelled are not reported one by one.
	abandoned atomic.Bool

	// the writer's
	st      Stats
	fatal   error
	stopped bool // the sink said ErrStop
	rate    *errorRate
}

func (r *run) cancel() { r.cancelCause(nil) }

// read sends every item of the source to the workers, one token of the
// window each.
func (r *run) read() {
	defer close(r.jobs)
	// The reader owns the source: it may still be in a read when Run
	// returns early (--head, Ctrl-C), so only it may close it.
	defer r.cfg.Source.Close()
	prev := make(chan struct{})
	close(prev)
	for seq := int64(0); ; seq++ {
		select {
		case r.tokens <- struct{}{}:
		case <-r.ctx.Done():
			return
		}
		it, err := r.cfg.Source.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		r.mu.Lock()
		if r.ctx.Err() != nil {
			r.mu.Unlock()
			return
		}
		r.sent++
		r.mu.Unlock()
		ready := make(chan struct{})
		r.jobs <- job{seq: seq, item: it, err: err, prev: prev, ready: ready}
		prev = ready
		if err != nil {
			return
		}
	}
}

// startWorkers starts the workers that run the stage on each job; results
// is closed once they are all done.
func (r *run) startWorkers(workers int) {
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range r.jobs {
				res := process(r.ctx, r.stage, r.cfg.Shard, r.cfg.Slots, r.cfg.Done, r.preEncoder, j)
				if res.fatal != nil {
					// Now, not when the result's turn comes: the records
					// after it must not reach the stage.
					r.abandoned.Store(true)
					r.cancelCause(res.fatal)
				}
				r.results <- res
			}
		}()
	}
	go func() { wg.Wait(); close(r.results) }()
}

// write takes the results in input order and handles each, until every
// record read is handled (after Ctrl-C: every record the reader sent).
func (r *run) write() {
	pending := make(map[int64]result)
	var next int64
	target := int64(-1)
	done := r.ctx.Done()
	// Output written is flushed at most flushEvery after it was written,
	// so that a downstream stage gets records while a slow one (an LLM
	// stage) is still working, without a write per record when fast.
	flusher, _ := r.cfg.Sink.(Flusher)
	var flushC <-chan time.Time
	for {
		if target >= 0 && next >= target {
			return
		}
		select {
		case res, ok := <-r.results:
			if !ok {
				return
			}
			pending[res.seq] = res
			for {
				res, ok := pending[next]
				if !ok {
					break
				}
				delete(pending, next)
				next++
				<-r.tokens
				r.handle(res)
			}
			if flusher != nil && flushC == nil {
				flushC = time.After(flushEvery)
			}
		case <-flushC:
			flushC = nil
			if err := flusher.Flush(); err != nil && r.fatal == nil {
				r.fatal = fmt.Errorf("writing output: %w", err)
				r.cancel()
			}
		case <-done:
			done = nil
			r.mu.Lock()
			target = r.sent
			r.mu.Unlock()
		}
	}
}

// handle counts one result, in its turn, and writes its records.
func (r *run) handle(res result) {
	st, cfg := &r.st, &r.cfg
	if r.fatal != nil || r.stopped {
		return
	}
	if res.fatal != nil {
		r.fatal = res.fatal
		r.cancel()
		return
	}
	if res.skipped {
		st.Skipped++
		return
	}
	if res.resumed {
		st.Resumed++
		return
	}
	st.In++
	if drop := (*DropError)(nil); errors.As(res.err, &drop) {
		st.drop(drop)
		if cfg.Errors != nil {
			cfg.Errors.Add(cfg.Stderr, r.stage.Name(), res.in, res.item, drop)
		}
		return
	}
	if st.Stopped == "" && r.ctx.Err() == nil { // not the records a stop cancelled
		if why := r.rate.add(res.err); why != "" {
			st.Stopped = why
			r.cancelCause(errStoppedEarly)
		}
	}
	if res.err != nil {
		r.failed(res)
		return
	}
	if !r.writeOut(res) {
		return
	}
	if cfg.Progress != nil {
		cfg.Progress.Update(*st)
	}
}

// failed counts and logs a record the stage failed.
func (r *run) failed(res result) {
	st, cfg := &r.st, &r.cfg
	st.Failed++
	if r.abandoned.Load() {
		return
	}
	if r.parent.Err() != nil && errors.Is(res.err, context.Cause(r.parent)) {
		// Cancelled by Ctrl-C (or --budget): counted in the
		// summary, kept in the errors file, not a line each.
		st.Cancelled++
		if cfg.Errors != nil {
			cfg.Errors.Add(cfg.Stderr, r.stage.Name(), res.in, res.item, res.err)
		}
		return
	}
	cfg.Errors.Add(cfg.Stderr, r.stage.Name(), res.in, res.item, res.err)
}

// writeOut writes a result's records to the sink; false: the run stops
// (the sink took its last record, or failed).
func (r *run) writeOut(res result) bool {
	st, cfg := &r.st, &r.cfg
	for i, o := range res.out {
		var err error
		if res.encoded != nil && res.encoded[i] != nil {
			err = r.preEncoder.WriteEncoded(res.encoded[i])
		} else {
			err = cfg.Sink.Write(o)
		}
		if drop := (*DropError)(nil); errors.As(err, &drop) {
			st.drop(drop)
			if cfg.Errors != nil {
				cfg.Errors.Add(cfg.Stderr, r.stage.Name(), o, res.item, drop)
			}
			continue
		}
		if big := (*recio.TooLargeError)(nil); errors.As(err, &big) {
			// Refused before a byte of it was written: the run goes on.
			st.Failed++
			cfg.Errors.Add(cfg.Stderr, r.stage.Name(), o, res.item, err)
			continue
		}
		if err != nil {
			if errors.Is(err, ErrStop) { // taken, and the last wanted
				st.Out++
				r.stopped = true
				r.cancel()
				return false
			}
			r.fatal = fmt.Errorf("writing output: %w", err)
			r.cancel()
			return false
		}
		st.Out++
	}
	return true
}

// finish ends the progress and commits the output, or aborts it when the
// input was unreadable or the output failed.
func (r *run) finish() (Stats, error) {
	st := r.st
	if r.cfg.Progress != nil {
		r.cfg.Progress.Finish(st)
	}
	st.Interrupted = r.parent.Err() != nil
	if fatal := r.fatal; fatal != nil {
		r.cfg.Sink.Abort()
		var fe *FatalError
		if !errors.As(fatal, &fe) {
			fatal = &FatalError{Err: fatal}
		}
		return st, fatal
	}
	if err := r.cfg.Sink.Close(); err != nil {
		return st, &FatalError{Err: err}
	}
	return st, nil
}

func process(ctx context.Context, stage Stage, shard Shard, slots int, done map[string]struct{}, pe PreEncoder, j job) (r result) {
	r = result{seq: j.seq, item: j.item}
	if j.err != nil {
		r.fatal = j.err
		return r
	}
	rec := j.item.Rec
	if rec == nil {
		var err error
		if rec, err = j.item.Decode(j.item.Raw); err != nil {
			r.fatal = err // j.ready stays open: later records wait, then see ctx done
			return r
		}
	}
	select {
	case <-j.prev:
		close(j.ready)
	case <-ctx.Done():
	}
	if rec.ID == "" {
		// Foreign data (a DuckDB export, a hand-made file) may have no ids;
		// shards, splits and --resume need one, stable across runs.
		rec.ID = record.ContentID(rec)
	}
	r.in = rec
	if mine, all := shard.Slots(j.seq, slots); !all {
		if len(mine) == 0 {
			r.skipped = true
			return r
		}
		ctx = withSlots(ctx, mine)
	}
	if _, ok := done[rec.ID]; ok {
		r.resumed = true
		return r
	}
	if j.item.Err != nil {
		r.err = j.item.Err
		return r
	}
	// A culture names profiles and prompt templates: a record whose culture
	// is not a culture name ("x/../quality") fails here, before any stage
	// looks it up.
	if err := record.CheckCulture(rec.Culture); err != nil {
		r.err = err
		return r
	}
	if ctx.Err() != nil {
		r.err = fmt.Errorf("not processed: %w", context.Cause(ctx))
		return r
	}
	defer func() {
		if p := recover(); p != nil {
			buf := make([]byte, 4096)
			buf = buf[:runtime.Stack(buf, false)]
			r.out, r.err = nil, fmt.Errorf("panic in stage %s: %v\n%s", stage.Name(), p, buf)
		}
	}()
	r.out, r.err = stage.Process(ctx, rec)
	if fe := (*FatalError)(nil); errors.As(r.err, &fe) {
		// A stage says the run cannot go on (a --where over its bounds).
		r.fatal, r.out, r.err = fe, nil, nil
		return r
	}
	if pe != nil && r.err == nil {
		r.encoded = make([][]byte, len(r.out))
		for i, o := range r.out {
			if r.encoded[i], r.err = pe.PreEncode(o); r.err != nil {
				r.out, r.encoded = nil, nil
				r.err = fmt.Errorf("encoding the output: %w", r.err)
				break
			}
		}
	}
	return r
}

// Shard deals the input out to N tasks by place, as cards are dealt:
// the records at places K, K+N, K+2N, ... (from 0) are shard K's, so that
// N tasks get within one record of an equal share whatever the input's
// size, and together every record once. Every task must read the same
// input in the same order (the same files; an upstream program keeps its
// input's order). A record that holds several work items (Config.Slots)
// is dealt item by item. The zero Shard keeps everything.
type Shard struct{ K, N int }

// ParseShard parses "K/N" with K counted from 0.
func ParseShard(s string) (Shard, error) {
	if s == "" {
		return Shard{}, nil
	}
	var sh Shard
	ks, ns, ok := strings.Cut(s, "/")
	k, err1 := strconv.Atoi(ks)
	n, err2 := strconv.Atoi(ns)
	if !ok || err1 != nil || err2 != nil || n < 1 || k < 0 || k >= n {
		return sh, fmt.Errorf("--shard %q: want K/N with 0 <= K < N, e.g. 0/4", s)
	}
	return Shard{K: k, N: n}, nil
}

// AutoShard resolves --shard auto and auto/N to K/N from the variables a
// job engine sets in each of the N tasks it starts; any other spec is
// returned as it is. Kubernetes Indexed Job: K is JOB_COMPLETION_INDEX,
// N is from auto/N or NGKIT_SHARDS (the Job sets it to its completions).
// Slurm job array: N is from auto/N, else NGKIT_SHARDS, else
// SLURM_ARRAY_TASK_COUNT; K is the task id mod N, so that any N
// consecutive ids (1-8, 0-7) cover every shard once and ids submitted
// again (--array=3,5 after those tasks failed, with NGKIT_SHARDS=8) redo
// the same shards. Slurm does not tell a task where it stands in a list
// of ids (--array=1,3,5-7: _MIN 1, _MAX 7, _STEP 1, _COUNT 5), so such an
// array needs N given, and ids that span more than N shards are refused.
// An array with a step (--array=0-12:4) is taken whole: K is
// (SLURM_ARRAY_TASK_ID - _MIN) / _STEP of _COUNT.
func AutoShard(spec string, getenv func(string) string) (string, error) {
	rest, ok := strings.CutPrefix(spec, "auto")
	if !ok || rest != "" && rest[0] != '/' {
		return spec, nil
	}
	e := shardEnv{spec, getenv}
	n := 0
	if rest != "" {
		v, err := strconv.Atoi(rest[1:])
		if err != nil || v < 1 {
			return e.bad("want auto or auto/N with N >= 1")
		}
		n = v
	}
	jobIndex, inJob, err := e.num("JOB_COMPLETION_INDEX")
	if err != nil {
		return "", err
	}
	task, inArray, err := e.num("SLURM_ARRAY_TASK_ID")
	if err != nil {
		return "", err
	}
	var k int
	switch {
	case inJob && inArray:
		return e.bad("both JOB_COMPLETION_INDEX (Kubernetes) and SLURM_ARRAY_TASK_ID (Slurm) are set: give --shard K/N")
	case inJob:
		k = jobIndex
		if n == 0 {
			v, set, err := e.num("NGKIT_SHARDS")
			if err != nil {
				return "", err
			}
			if !set || v < 1 {
				return e.bad("JOB_COMPLETION_INDEX=%d but no shard count: give --shard auto/N or set NGKIT_SHARDS to the Job's completions", k)
			}
			n = v
		}
	case inArray:
		if k, n, err = e.slurm(task, n); err != nil {
			return "", err
		}
	default:
		return e.bad("no JOB_COMPLETION_INDEX (Kubernetes Indexed Job) nor SLURM_ARRAY_TASK_ID (Slurm job array) in the environment: give --shard K/N")
	}
	if k >= n {
		return e.bad("task %d of %d: the index is not below the count", k, n)
	}
	return fmt.Sprintf("%d/%d", k, n), nil
}

// shardEnv is what AutoShard reads: the spec it resolves (for its errors)
// and the environment.
type shardEnv struct {
	spec   string
	getenv func(string) string
}

func (e shardEnv) bad(format string, a ...any) (string, error) {
	return "", e.errf(format, a...)
}

func (e shardEnv) errf(format string, a ...any) error {
	return fmt.Errorf("--shard %s: "+format, append([]any{e.spec}, a...)...)
}

// num is the count in variable name; set: the variable is set.
func (e shardEnv) num(name string) (int, bool, error) {
	v := strings.TrimSpace(e.getenv(name))
	if v == "" {
		return 0, false, nil
	}
	i, err := strconv.Atoi(v)
	if err != nil || i < 0 {
		return 0, true, fmt.Errorf("--shard %s: %s=%q is not a count", e.spec, name, v)
	}
	return i, true, nil
}

// slurm is the shard K/N of the Slurm array task with id task; n is the
// count given by auto/N (0: none).
func (e shardEnv) slurm(task, n int) (k, _ int, err error) {
	lo, _, err1 := e.num("SLURM_ARRAY_TASK_MIN")
	hi, hiSet, err2 := e.num("SLURM_ARRAY_TASK_MAX")
	step, _, err3 := e.num("SLURM_ARRAY_TASK_STEP")
	count, countSet, err4 := e.num("SLURM_ARRAY_TASK_COUNT")
	shards, shardsSet, err5 := e.num("NGKIT_SHARDS")
	if err := errors.Join(err1, err2, err3, err4, err5); err != nil {
		return 0, 0, err
	}
	step = max(step, 1)
	if hiSet && task > hi || task < lo {
		return 0, 0, e.errf("SLURM_ARRAY_TASK_ID=%d is not between SLURM_ARRAY_TASK_MIN=%d and SLURM_ARRAY_TASK_MAX=%d", task, lo, hi)
	}
	// Evenly spaced: every id from MIN to MAX by STEP is a task (as
	// with --array=1-8, 0-12:4 or 1-8%2); a list of ids is not.
	span := 0
	if hiSet {
		span = (hi-lo)/step + 1
	}
	even := !hiSet || !countSet || count == span
	switch {
	case n != 0 && shardsSet && shards != n:
		return 0, 0, e.errf("NGKIT_SHARDS=%d says otherwise", shards)
	case n == 0 && shardsSet:
		if shards < 1 {
			return 0, 0, e.errf("NGKIT_SHARDS=0: want at least 1")
		}
		n = shards
	}
	if step > 1 && even {
		if (task-lo)%step != 0 {
			return 0, 0, e.errf("SLURM_ARRAY_TASK_ID=%d is not in the array from SLURM_ARRAY_TASK_MIN=%d by %d", task, lo, step)
		}
		an := count
		if !countSet {
			an = span
		}
		if an >= 1 && n != 0 && an != n {
			return 0, 0, e.errf("the Slurm array has %d tasks, not %d (an array with a step is sharded whole)", an, n)
		}
		if an >= 1 {
			n = an
		}
		return (task - lo) / step, n, nil
	}
	if n == 0 {
		switch {
		case !countSet && !hiSet:
			return 0, 0, e.errf("SLURM_ARRAY_TASK_ID=%d but neither SLURM_ARRAY_TASK_COUNT nor SLURM_ARRAY_TASK_MAX: give --shard auto/N", task)
		case !even:
			return 0, 0, e.errf("the Slurm array's %d ids from %d to %d are a list, and a task cannot tell its place in it: give the shard count, --shard auto/N or NGKIT_SHARDS=N (the task with id I does shard I mod N)", count, lo, hi)
		case countSet:
			n = count
		default:
			n = span
		}
	}
	switch {
	case countSet && count > n:
		return 0, 0, e.errf("the Slurm array has %d tasks, not %d", count, n)
	case hiSet && hi-lo+1 > n:
		return 0, 0, e.errf("the Slurm array's ids %d to %d are more than %d shards: two tasks would do the same shard", lo, hi, n)
	}
	return task % n, n, nil
}

// Keep reports whether the record at place pos (from 0) is this shard's.
func (s Shard) Keep(pos int64) bool {
	mine, all := s.Slots(pos, 1)
	return all || len(mine) > 0
}

// Slots says which work items of the record at place pos (from 0), of
// slots items each (0 or 1: the record is one item), are this shard's:
// item j is at place pos*slots+j of all the items. all is true (and mine
// nil) when every one of them is; mine is empty when none is.
func (s Shard) Slots(pos int64, slots int) (mine []int, all bool) {
	slots = max(slots, 1)
	if s.N <= 1 {
		return nil, true
	}
	first := pos * int64(slots)
	for j := range slots {
		if (first+int64(j))%int64(s.N) == int64(s.K) {
			mine = append(mine, j)
		}
	}
	if len(mine) == slots {
		return nil, true
	}
	return mine, false
}

type slotsKey struct{}

func withSlots(ctx context.Context, slots []int) context.Context {
	return context.WithValue(ctx, slotsKey{}, slots)
}

// SlotsOf gives a stage of work items (Config.Slots) the items of this
// record it is to make, in order; ok is false when it is to make them all.
func SlotsOf(ctx context.Context) (slots []int, ok bool) {
	slots, ok = ctx.Value(slotsKey{}).([]int)
	return slots, ok
}

// errStoppedEarly is the cause of the cancellation when MaxErrorRate
// stops a run: records not processed fail with it. It is a
// context.Canceled, as for Ctrl-C, to stages that look.
var errStoppedEarly error = stoppedEarly{}

type stoppedEarly struct{}

func (stoppedEarly) Error() string {
	return "the run stopped early: too many records failed (--max-error-rate)"
}
func (stoppedEarly) Unwrap() error { return context.Canceled }

// errorRate watches the outcome of the last records, for MaxErrorRate.
type errorRate struct {
	rate    float64
	reasons []string // ring of the last records' errors ("" for success)
	n       int      // records seen
	failed  int      // failures in the ring
}

func newErrorRate(rate float64, window int) *errorRate {
	if rate <= 0 || rate >= 1 {
		return nil
	}
	if window <= 0 {
		window = 20
	}
	return &errorRate{rate: rate, reasons: make([]string, window)}
}

// add counts one record's outcome; once the window is full and more than
// rate of it failed, it says so, naming the reason seen most often.
func (e *errorRate) add(err error) string {
	if e == nil {
		return ""
	}
	i := e.n % len(e.reasons)
	if e.reasons[i] != "" {
		e.failed--
	}
	e.reasons[i] = ""
	if err != nil {
		msg, _, _ := strings.Cut(err.Error(), "\n")
		e.reasons[i] = msg
		e.failed++
	}
	e.n++
	w := len(e.reasons)
	if e.n < w || float64(e.failed) <= e.rate*float64(w) {
		return ""
	}
	count := map[string]int{}
	top := e.reasons[i]
	for _, r := range e.reasons {
		if r != "" {
			count[r]++
			if count[r] > count[top] {
				top = r
			}
		}
	}
	times := count[top] // counted before the reason is cut for the line
	if len(top) > 300 {
		n := 300
		for n > 0 && !utf8.RuneStart(top[n]) {
			n--
		}
		top = top[:n] + "..."
	}
	return fmt.Sprintf("%d of the last %d records failed (--max-error-rate %g); %d times: %s", e.failed, w, e.rate, times, top)
}

// drop counts a record left out on purpose, by what left it out.
func (st *Stats) drop(d *DropError) {
	st.Dropped++
	if st.DroppedBy == nil {
		st.DroppedBy = map[string]int64{}
	}
	st.DroppedBy[d.By()]++
}
