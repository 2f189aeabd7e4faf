package app

import (
	"context"
	"errors"
	"os"

	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/record"
)

// NewLLMProgram makes a program that calls a model: it registers the I/O
// and LLM flags; the program adds its own to Flags before Run.
func NewLLMProgram(name, summary, usage string) *Program {
	p := NewProgram(name, summary, usage)
	p.IO.Register(p.Flags)
	p.LLM.Register(p.Flags)
	p.Flags.Float64Var(&p.IO.MaxErrorRate, "max-error-rate", 0.9, "stop early, as Ctrl-C does (for --resume), once more than `RATE` of the last 20 records failed; 1: never")
	if w := p.Flags.Lookup("workers"); w != nil {
		w.Usage = "records processed `N` at a time (default: twice --concurrency)"
		w.DefValue = "0"
	}
	return p
}

// Run runs an LLM program (NewLLMProgram): it parses the arguments, makes
// the client, builds the stage with it and runs it over the inputs; then
// prints the usage summary. Its error is an *ExitError (see Execute; bad
// usage is exit 2).
func (p *Program) Run(env Env, build func(*llm.Client) (pipeline.Stage, error)) error {
	args, err := p.Parse(env)
	if err != nil {
		return err
	}
	if r := p.IO.MaxErrorRate; r < 0 || r > 1 {
		return p.Usagef("--max-error-rate %g: want a share of records from 0 to 1 (1: never stop)", r)
	}
	cfg, err := p.LLM.Config(env.Var)
	if err != nil {
		return p.Usagef("%v", err)
	}
	cfg.Stage, cfg.Stderr, cfg.Quiet = p.Name, env.Stderr, p.IO.Quiet
	client, err := llm.New(cfg)
	if err != nil {
		return p.Usagef("%v", err)
	}
	if !p.Flags.Changed("workers") {
		p.IO.Workers = client.Workers()
	}
	if err := p.checkInputs(args); err != nil {
		client.Abort()
		return err
	}
	stage, err := build(client)
	if err != nil {
		client.Abort()
		return p.Usagef("%v", err)
	}
	if err := checkPriced(cfg.Budget, map[string]*llm.Client{llm.DefaultAlias: client}); err != nil {
		client.Abort()
		return p.Usagef("%v", err)
	}
	spec := RunSpec{Stage: deferredStage{stage, client, p.LLM.Batch.On}, Inputs: args, Budget: cfg.Budget, Activity: client.Activity}
	if p.Source != nil {
		if spec.Source, err = p.Source(args); err != nil {
			client.Abort()
			return p.Usagef("%v", err)
		}
	}
	// The summary comes before the line that ends the run (a fatal input
	// error, the failed count), never after it.
	finished := false
	spec.Finish = func() error { finished = true; return client.Close() }
	err = p.execute(env, spec, map[string]*llm.Client{llm.DefaultAlias: client})
	if !finished { // a usage error before the run: nothing to commit
		client.Abort()
	}
	return err
}

// deferredStage wraps a stage that calls the LLM: with --emit-requests, a
// record whose calls went to the requests file (llm.ErrDeferred) is left
// out of the output instead of failing; the run with --responses
// finishes it.
type deferredStage struct {
	pipeline.Stage
	c *llm.Client
	// batch: with --batch the final pass has every reply; a call still
	// unanswered fails its record.
	batch bool
}

func (d deferredStage) Process(ctx context.Context, rec *record.Record) ([]*record.Record, error) {
	out, err := d.Stage.Process(ctx, rec)
	if errors.Is(err, llm.ErrDeferred) && d.batch {
		return nil, errors.New("a call the Batch API did not answer")
	}
	if errors.Is(err, llm.ErrDeferred) {
		d.c.Deferred()
		return nil, nil
	}
	return out, err
}

// checkInputs opens each named input file once before the stage is built:
// a missing file is a usage error before any call to a model (ngpact's
// logprobs probe, a judge's warm-up), not after. Programs whose arguments
// are not record files (Source) check their own.
func (p *Program) checkInputs(args []string) error {
	if p.Source != nil {
		return nil
	}
	for _, a := range args {
		if a == "" || a == "-" {
			continue
		}
		f, err := os.Open(a)
		if err != nil {
			var pe *os.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return p.Usagef("%s: %v", a, err)
		}
		f.Close()
	}
	return nil
}
