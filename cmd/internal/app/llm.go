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
	p.llm = true
	p.IO.Register(p.Flags)
	p.LLM.Register(p.Flags)
	p.Flags.Float64Var(&p.IO.MaxErrorRate, "max-error-rate", 0.9, "stop early, as Ctrl-C does (for --resume), once more than `RATE` of the last 20 records failed; 1: never")
	if w := p.Flags.Lookup("workers"); w != nil {
		w.Usage = "records processed `N` at a time (default: twice --concurrency)"
		w.DefValue = "0"
	}
	return p
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
// logprobs probe, a judge's warm-up), not after. Programs that make their
// own source (OwnSource) check their own.
func (p *Program) checkInputs(args []string) error {
	if p.OwnSource {
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
