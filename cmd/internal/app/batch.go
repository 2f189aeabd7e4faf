package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/llm/batch"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/recio"
	"github.com/ngkit/ngkit/pkg/record"
	"github.com/spf13/pflag"
)

// BatchFlags are --batch and its options: every LLM program
// runs its calls through the provider's Batch API in rounds.
type BatchFlags struct {
	On          bool
	Poll        time.Duration
	State       string
	Cancel      bool
	MaxRequests int
	MaxBytes    int64
}

func (f *BatchFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&f.On, "batch", false, "send the calls to the provider's Batch API (half price at OpenAI, within 24 h) in rounds, each round's follow-up calls (re-asks, retries, next steps) in the next, until every record is done or failed")
	fs.DurationVar(&f.Poll, "batch-poll", time.Minute, "with --batch, look at the batches in flight every `D`")
	fs.StringVar(&f.State, "batch-state", "", "with --batch, keep every file and batch id in `DIR`, so that the same command run again resumes without submitting anything twice (default: the -o file's name + .batch; needed when writing to stdout)")
	fs.BoolVar(&f.Cancel, "batch-cancel", false, "cancel the batches in flight of --batch-state and exit")
	fs.IntVar(&f.MaxRequests, "batch-max-requests", batch.DefaultMaxRequests, "with --batch, most requests in one input file, `N` (a round of more is split into several batches)")
	fs.Int64Var(&f.MaxBytes, "batch-max-bytes", batch.DefaultMaxBytes, "with --batch, largest input file, `BYTES`")
}

// check is the usage errors of the batch flags.
func (f *BatchFlags) check(fs *pflag.FlagSet) error {
	if !f.On {
		for _, n := range []string{"batch-poll", "batch-state", "batch-cancel", "batch-max-requests", "batch-max-bytes"} {
			if fs.Changed(n) {
				return fmt.Errorf("--%s is an option of --batch", n)
			}
		}
		return nil
	}
	switch {
	case f.Poll <= 0:
		return errors.New("--batch-poll must be positive")
	case f.MaxRequests < 1 || f.MaxBytes < 1:
		return errors.New("--batch-max-requests and --batch-max-bytes must be positive")
	}
	return nil
}

// stateDir is --batch-state, or beside -o.
func (p *Program) stateDir() (string, error) {
	if d := p.LLM.Batch.State; d != "" {
		return d, nil
	}
	if o := p.IO.Output; o != "" && o != "-" {
		return o + ".batch", nil
	}
	return "", errors.New("--batch writing to stdout needs --batch-state DIR: the batches in flight are kept there, for a rerun to resume them")
}

// execute runs the stage: at once, or with --batch in rounds first.
func (p *Program) execute(env Env, spec RunSpec, clients map[string]*llm.Client) error {
	if p.LLM.Estimate {
		return p.estimate(env, spec, clients)
	}
	if !p.LLM.Batch.On {
		return p.IO.Execute(env, p.Name, spec)
	}
	fail := func(err error) error {
		if spec.Source != nil {
			spec.Source.Close()
		}
		return UsageError(p.Name, err)
	}
	if err := p.IO.checkRunFlags(); err != nil {
		return fail(err)
	}
	dir, err := p.stateDir()
	if err != nil {
		return fail(err)
	}
	shard, err := pipeline.ParseShard(p.IO.Shard)
	if err != nil {
		return fail(err)
	}
	f := p.LLM.Batch
	b, err := batch.Open(batch.Options{Dir: dir, Poll: f.Poll, MaxRequests: f.MaxRequests, MaxBytes: f.MaxBytes,
		Prog: p.Name, Stderr: pipeline.MessageWriter(env.Stderr), Bar: recio.IsTerminal(env.Stderr), Quiet: p.IO.Quiet}, clients)
	if err != nil {
		return fail(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if f.Cancel {
		if spec.Source != nil {
			spec.Source.Close()
		}
		ids, err := b.Cancel(ctx)
		if err != nil {
			return FailedError(p.Name, err.Error())
		}
		fmt.Fprintf(env.Stderr, "%s: cancelled %s (%s); their state stays in %s (remove it to start afresh)\n", p.Name, Plural(len(ids), "batch"), strings.Join(ids, ", "), dir)
		return nil
	}
	items, err := spool(spec.source(env))
	if err != nil {
		return InputError(p.Name, err)
	}
	var done map[string]struct{}
	if p.IO.Resume {
		if done, err = pipeline.ResumeFrom(p.IO.Output, discard{}); err != nil {
			return UsageError(p.Name, err)
		}
	}
	waiting := allIndices(len(items))
	inner := spec.Stage
	if d, ok := inner.(deferredStage); ok {
		inner = d.Stage // probe passes see ErrDeferred
	}
	for {
		b.BeginPass(true)
		next, err := probe(ctx, inner, items, waiting, p.IO.Workers, shard, spec.Slots, done)
		if err != nil {
			return InputError(p.Name, err)
		}
		n, err := b.Submit(ctx)
		if err == nil && n == 0 && b.InFlight() == 0 {
			break
		}
		if err == nil {
			err = b.Wait(ctx)
		}
		switch {
		case err == nil:
		case ctx.Err() != nil:
			return InterruptedError(p.Name, fmt.Sprintf("interrupted: %s still run at the provider (state in %s); run the same command again to resume:\n  %s",
				Plural(b.InFlight(), "batch"), dir, resumeCommand(p.Name, env.Args)))
		case errors.Is(err, batch.ErrFailed):
			return FailedError(p.Name, err.Error()+"; fix the cause and run the same command again")
		default:
			return FailedError(p.Name, err.Error()+"; run the same command again to resume")
		}
		if limit := p.LLM.Budget; limit > 0 && b.Spent() >= limit {
			return FailedError(p.Name, fmt.Sprintf("stopped: the Batch replies so far cost about $%.4f, --budget $%g; every batch and reply is kept in %s: run the same command with a larger --budget to go on (nothing is submitted twice)", b.Spent(), limit, dir))
		}
		waiting = next
	}
	// The final pass: every call is answered from the batches' replies;
	// the records are written as an online run writes them.
	b.BeginPass(false)
	spec.Source = &itemSource{items: items, idx: allIndices(len(items))}
	return p.IO.Execute(env, p.Name, spec)
}

// spool reads the whole input once: every pass reads it again (stdin
// included), each record decoded afresh since stages change them.
func spool(src pipeline.Source) ([]pipeline.Item, error) {
	defer src.Close()
	var items []pipeline.Item
	for {
		it, err := src.Next()
		if errors.Is(err, io.EOF) {
			return items, nil
		}
		if err != nil {
			return nil, err
		}
		if it.Rec != nil {
			raw, err := it.Rec.AppendJSON(nil)
			if err != nil {
				return nil, err
			}
			name, line := it.Name, it.Line
			it = pipeline.Item{Raw: raw, Name: name, Line: line,
				Decode: func(b []byte) (*record.Record, error) { return recio.DecodeJSONL(name, line, b) }}
		}
		items = append(items, it)
	}
}

func allIndices(n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return idx
}

// itemSource serves spooled items; with marks, it remembers which item
// each decoded record came from.
type itemSource struct {
	items []pipeline.Item
	idx   []int
	i     int
	marks *sync.Map // *record.Record -> item index
}

func (s *itemSource) Next() (pipeline.Item, error) {
	if s.i >= len(s.idx) {
		return pipeline.Item{}, io.EOF
	}
	k := s.idx[s.i]
	s.i++
	it := s.items[k]
	if s.marks != nil {
		dec := it.Decode
		it.Decode = func(b []byte) (*record.Record, error) {
			r, err := dec(b)
			if r != nil {
				s.marks.Store(r, k)
			}
			return r, err
		}
	}
	return it, nil
}

func (s *itemSource) Close() error { return nil }

// probe runs one pass over the items still waiting (idx) and returns
// those whose calls are not all answered yet; outputs and failures are
// dropped (the final pass makes them again from the same replies). With a
// shard, every item is read, so that each keeps its place in the input,
// which the shard deals by; those not waiting go no further.
func probe(ctx context.Context, stage pipeline.Stage, items []pipeline.Item, idx []int, workers int, shard pipeline.Shard, slots int, done map[string]struct{}) ([]int, error) {
	marks := &sync.Map{}
	var mu sync.Mutex
	var next []int
	ps := probeStage{Stage: stage, marks: marks, deferred: func(k int) {
		mu.Lock()
		next = append(next, k)
		mu.Unlock()
	}}
	src := &itemSource{items: items, idx: idx, marks: marks}
	if shard.N > 1 {
		ps.waiting = make(map[int]bool, len(idx))
		for _, k := range idx {
			ps.waiting[k] = true
		}
		src.idx = allIndices(len(items))
	}
	_, err := pipeline.Run(ctx, pipeline.Config{Stage: ps, Source: src,
		Sink: discard{}, Workers: workers, Shard: shard, Slots: slots, Done: done, Stderr: io.Discard})
	if err != nil {
		return nil, err
	}
	// In input order, for the next pass.
	seen := make(map[int]bool, len(next))
	for _, k := range next {
		seen[k] = true
	}
	var out []int
	for _, k := range idx {
		if seen[k] {
			out = append(out, k)
		}
	}
	return out, nil
}

type probeStage struct {
	pipeline.Stage
	marks    *sync.Map
	deferred func(int)
	waiting  map[int]bool // nil: every item read is waiting
}

func (s probeStage) Process(ctx context.Context, rec *record.Record) ([]*record.Record, error) {
	k, ok := s.marks.Load(rec)
	if ok {
		if s.waiting != nil && !s.waiting[k.(int)] {
			return nil, nil
		}
		ctx = llm.WithBatchOrder(ctx, k.(int))
	}
	_, err := s.Stage.Process(ctx, rec)
	if ok && errors.Is(err, llm.ErrDeferred) {
		s.deferred(k.(int))
	}
	return nil, nil
}

type discard struct{}

func (discard) Write(*record.Record) error { return nil }
func (discard) Close() error               { return nil }
func (discard) Abort()                     {}

// resumeCommand is the command line to run again, quoted for a shell.
func resumeCommand(prog string, args []string) string {
	q := []string{prog}
	for _, a := range args {
		if a != "" && strings.IndexFunc(a, func(r rune) bool {
			return !(r == '-' || r == '_' || r == '.' || r == '/' || r == '=' || r == ',' || r == ':' || r == '@' || r == '+' ||
				r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
		}) < 0 {
			q = append(q, a)
			continue
		}
		q = append(q, "'"+strings.ReplaceAll(a, "'", `'\''`)+"'")
	}
	return strings.Join(q, " ")
}

// Plural is n with the noun in its number: "1 record", "2 records", "3 batches".
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "ch") {
		return fmt.Sprintf("%d %ses", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
