package llm

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/record"
)

// Program is an LLM program: the shared I/O flags, the shared LLM flags
// and the program's own, wired to the runner and the client.
type Program struct {
	*pipeline.Program
	IO  pipeline.IOFlags
	LLM Flags
	// Roles are the model-role flags (WithRoles, roles_program.go).
	Roles RoleFlags
	roles []Role
	// Source, when set, makes the input from the arguments left after the
	// flags instead of reading them as record files (ngseed reads the
	// built-in norm bank when given no file). Its error is a usage error.
	Source func(args []string) (pipeline.Source, error)
}

// NewProgram registers the I/O and LLM flags; the program adds its own
// to Flags before Run.
func NewProgram(name, summary, usage string) *Program {
	p := &Program{Program: pipeline.NewProgram(name, summary, usage)}
	p.IO.Register(p.Flags)
	p.LLM.Register(p.Flags)
	p.Flags.Float64Var(&p.IO.MaxErrorRate, "max-error-rate", 0.9, "stop early, as Ctrl-C does (for --resume), once more than `RATE` of the last 20 records failed; 1: never")
	if w := p.Flags.Lookup("workers"); w != nil {
		w.Usage = "records processed `N` at a time (default: twice --concurrency)"
		w.DefValue = "0"
	}
	return p
}

// Run parses the arguments, makes the client, builds the stage with it
// and runs it over the inputs; then prints the usage summary. It returns
// the exit code: 0, 1 (some records failed), 2 (bad usage: one line on
// stderr), 130 (interrupted).
func (p *Program) Run(env pipeline.Env, build func(*Client) (pipeline.Stage, error)) int {
	args, code, ok := p.Parse(env)
	if !ok {
		return code
	}
	if r := p.IO.MaxErrorRate; r < 0 || r > 1 {
		return p.Usagef(env, "--max-error-rate %g: want a share of records from 0 to 1 (1: never stop)", r)
	}
	cfg, err := p.LLM.Config(env.Var)
	if err != nil {
		return p.Usagef(env, "%v", err)
	}
	cfg.Stage, cfg.Stderr, cfg.Quiet = p.Name, env.Stderr, p.IO.Quiet
	client, err := New(cfg)
	if err != nil {
		return p.Usagef(env, "%v", err)
	}
	if !p.Flags.Changed("workers") {
		p.IO.Workers = client.Workers()
	}
	stage, err := build(client)
	if err != nil {
		client.Abort()
		return p.Usagef(env, "%v", err)
	}
	spec := pipeline.RunSpec{Stage: client.Stage(stage), Inputs: args}
	if p.Source != nil {
		if spec.Source, err = p.Source(args); err != nil {
			client.Abort()
			return p.Usagef(env, "%v", err)
		}
	}
	// The summary comes before the line that ends the run (a fatal input
	// error, the failed count), never after it.
	finished := false
	spec.Finish = func() error { finished = true; return client.Close() }
	code = p.IO.Execute(env, p.Name, spec)
	if !finished { // a usage error before the run: nothing to commit
		client.Abort()
	}
	return code
}

// Stage wraps a stage that calls the LLM: with --emit-requests, a record
// whose calls went to the requests file (ErrDeferred) is left out of the
// output instead of failing; the run with --responses finishes it.
func (c *Client) Stage(s pipeline.Stage) pipeline.Stage { return deferredStage{s, c} }

type deferredStage struct {
	pipeline.Stage
	c *Client
}

func (d deferredStage) Process(ctx context.Context, rec *record.Record) ([]*record.Record, error) {
	out, err := d.Stage.Process(ctx, rec)
	if errors.Is(err, ErrDeferred) {
		d.c.deferred.Add(1)
		return nil, nil
	}
	return out, err
}

// Usage reports what the calls so far did.
func (c *Client) Usage() Usage {
	price, priced := priceFor(c.prices, c.cfg.Model)
	u := c.usage.report(price, priced)
	u.Stage, u.Model, u.BaseURL = c.cfg.Stage, c.cfg.Model, redactURL(c.cfg.BaseURL)
	u.Seconds = roundSeconds(time.Since(c.start))
	u.Deferred = c.deferred.Load()
	_, u.WindowCuts = c.win.current()
	return u
}

// Close ends the run: it commits the --emit-requests file, writes
// --usage-json and prints the usage summary on stderr (unless quiet).
func (c *Client) Close() error {
	var errs []error
	if c.emit != nil {
		errs = append(errs, c.emit.close())
	}
	u := c.Usage()
	if c.cfg.UsageJSON != "" {
		if err := u.writeJSON(c.cfg.UsageJSON); err != nil {
			errs = append(errs, fmt.Errorf("--usage-json: %w", err))
		}
	}
	if !c.cfg.Quiet && c.cfg.Stderr != nil && (u.Total.Calls+u.Total.Failed+u.Total.Emitted > 0) {
		u.writeSummary(c.cfg.Stderr)
	}
	return errors.Join(errs...)
}

// Abort ends a run that did not start: the --emit-requests file is
// removed, nothing is written.
func (c *Client) Abort() {
	if c.emit != nil {
		c.emit.f.Close()
		removeFile(c.emit.f.Name())
	}
}
