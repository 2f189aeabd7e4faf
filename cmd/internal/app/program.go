// Package app is what makes an ngkit program: the process environment,
// the help and flag parsing, the flags every program shares (I/O, and the
// LLM flags of the programs that call a model), the run of a stage over
// the inputs, and the one mapping from errors to exit statuses (Exit).
// Each program's own wiring is in cmd/internal/cli.
package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/ngkit/ngkit/cmd/internal/manual"
	"github.com/ngkit/ngkit/pkg/llm/roles"
	"github.com/ngkit/ngkit/pkg/llm/usage"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/recio"
	"github.com/spf13/pflag"
)

// Env is what a program gets from the process: arguments (without the
// program name) and the standard streams. Tests pass their own.
type Env struct {
	Args   []string
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Getenv reads the environment (LLM endpoint and key); nil: os.Getenv.
	Getenv func(key string) string
	// Describe, when set, is handed the program once its flags are
	// registered, in place of a run (as after --help): how `ngkit help
	// --markdown` and `ngkit man` read every program's help.
	Describe func(*Program)
	// Demo, when set, is the built-in demo model that --model demo with
	// no base URL selects: its URL as shown and a client that answers it
	// in-process. Each program's main sets it (cmd/internal/demo), so
	// that the framework imports no canned model.
	Demo func() (baseURL string, client *http.Client)
}

// OSEnv is the real process environment.
func OSEnv() Env {
	return Env{Args: os.Args[1:], Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}
}

// Var returns the value of an environment variable, through e.Getenv.
func (e Env) Var(key string) string {
	if e.Getenv == nil {
		return os.Getenv(key)
	}
	return e.Getenv(key)
}

// Program is a command: its help, its flags, and the shared I/O flags
// (registered by the program where its help lists them: IO.Register). An
// LLM program (NewLLMProgram) is the same with the LLM flags registered
// too, run by Run.
type Program struct {
	Name    string // ngcat
	Summary string // one line
	Usage   string // "[flags] [FILE...]"
	Details string // Markdown after the summary (cmd/internal/cli/help/)
	// Sections are titled Markdown sections printed after Details (ngcat's
	// formats, the model roles).
	Sections []HelpSection
	Examples string // shell lines, one per example
	Flags    *pflag.FlagSet
	IO       IOFlags
	// LLM are the LLM flags, registered by NewLLMProgram.
	LLM LLMFlags
	// Roles are the model-role flags, registered by WithRoles (roles.go).
	Roles RoleFlags
	roles []roles.Role
	// OwnSource: the build makes the input from the arguments left after
	// the flags (ngseed reads the built-in norm bank when given no file),
	// so Run does not open them as record files first.
	OwnSource bool
	// Estimate, when set (by the stage's builder), is --estimate's
	// profile for the flags given (ngseed: one scenarios call per norm,
	// then --per-norm seeds of each type), instead of the one measured at
	// one setting.
	Estimate *EstimateProfile

	llm      bool // NewLLMProgram: Run opens the models
	options  []Options
	cultures *Cultures
	prompts  *Prompts
	personas *Personas
}

// HelpSection is a titled part of a program's help; Body is Markdown.
type HelpSection struct {
	Title, Body string
}

// EstimateProfile is what a program's calls look like beyond their first
// round: requests per first-round call, prompt tokens of a request per
// prompt token of a first-round one, and completion tokens a request.
type EstimateProfile struct {
	PerFirst, InScale, OutTokens float64
}

// NewProgram makes a program with an empty flag set that has -h/--help.
func NewProgram(name, summary, usage string) *Program {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SortFlags = false
	fs.SetOutput(io.Discard)
	return &Program{Name: name, Summary: summary, Usage: usage, Flags: fs}
}

// Parse parses env.Args. A non-nil error says the program should stop
// now: after --help (exit 0, nothing more to print) or on a flag error
// (a usage error, exit 2).
func (p *Program) Parse(env Env) (args []string, err error) {
	help := p.Flags.BoolP("help", "h", false, "show this help")
	version := p.Flags.Bool("version", false, "print ngkit's version, commit and Go version, and exit")
	if env.Describe != nil {
		env.Describe(p)
		return nil, errHelped
	}
	if err := p.Flags.Parse(env.Args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			p.PrintHelp(env.Stdout)
			return nil, errHelped
		}
		return nil, &ExitError{Code: ExitUsage, Msg: fmt.Sprintf("%s: %s (see %s --help)", p.Name, p.didYouMean(err), p.Name), Err: err}
	}
	if *help {
		p.PrintHelp(env.Stdout)
		return nil, errHelped
	}
	if p.Flags.Lookup("shard") != nil {
		getenv := env.Getenv
		if getenv == nil {
			getenv = os.Getenv
		}
		if p.IO.Shard, err = pipeline.AutoShard(p.IO.Shard, getenv); err != nil {
			return nil, UsageError(p.Name, err)
		}
	}
	if *version {
		fmt.Fprintf(env.Stdout, "%s %s\n", p.Name, Version())
		return nil, errHelped
	}
	return p.Flags.Args(), nil
}

// PrintHelp writes the help as plain text: usage, details, sections,
// flags, examples and exit status.
func (p *Program) PrintHelp(w io.Writer) {
	d := p.Doc()
	d.WriteText(w)
}

// ExitHelp is what every program's exit statuses mean.
const ExitHelp = "0 all records done, 1 some records failed (see --errors), 2 bad usage or unreadable input, 130 interrupted."

// Doc is the program's help model, which --help, docs/<program>.md and
// the man page render.
func (p *Program) Doc() *manual.Doc {
	d := &manual.Doc{Name: p.Name, Summary: p.Summary, Usage: []string{p.Usage}, Details: p.Details,
		Flags: manual.FlagsOf(p.Flags), FlagUsages: p.Flags.FlagUsages(),
		Examples: manual.SplitLines(p.Examples), Exit: ExitHelp}
	for _, s := range p.Sections {
		d.Sections = append(d.Sections, manual.Section{Title: s.Title, Body: s.Body})
	}
	return d
}

// Usagef makes a usage error (exit 2) of one line led by the program's
// name.
func (p *Program) Usagef(format string, a ...any) error {
	return UsageError(p.Name, fmt.Errorf(format, a...))
}

// IOFlags are the input/output options every program spells the same way.
type IOFlags struct {
	Output     string
	Format     string
	Errors     string
	Shard      string
	Workers    int
	Progress   bool
	Quiet      bool
	RowGroupMB int
	ZstdLevel  int
	Resume     bool
	// MaxErrorRate stops a run early (see pipeline.Config.MaxErrorRate); 0: never.
	// Programs that call a model register --max-error-rate for it.
	MaxErrorRate float64
}

// Register adds the I/O flags to fs.
func (f *IOFlags) Register(fs *pflag.FlagSet) {
	fs.StringVarP(&f.Output, "output", "o", "", "write to `FILE` (atomically: a temporary file renamed at the end); format from the extension (.jsonl .parquet .arrow .arrows)")
	fs.StringVarP(&f.Format, "format", "f", "", "output `FORMAT`: jsonl, parquet, arrow (IPC stream), arrow-file (default: from -o, else jsonl)")
	fs.StringVar(&f.Errors, "errors", "", "write records that failed, with the reason, to `FILE` (JSONL of {id, stage, error, where, record})")
	fs.StringVar(&f.Shard, "shard", "", "keep shard `K/N` (K from 0) of the input, to split a run over N machines: the records at places K, K+N, K+2N, ... (ngseed: of the norm x scenario slots), so N shards differ by one record at most; auto or auto/N: K and N from a Kubernetes Indexed Job (JOB_COMPLETION_INDEX, N from auto/N or NGKIT_SHARDS) or a Slurm job array (K: SLURM_ARRAY_TASK_ID mod N; N from auto/N, NGKIT_SHARDS or SLURM_ARRAY_TASK_COUNT)")
	fs.IntVarP(&f.Workers, "workers", "j", runtime.NumCPU(), "records processed `N` at a time (default: the number of CPUs)")
	fs.Lookup("workers").DefValue = "0" // the help says it: the same on every machine (docs/)
	fs.BoolVar(&f.Progress, "progress", false, "draw a progress bar even when stdout is a pipe (only ever on a terminal)")
	fs.BoolVarP(&f.Quiet, "quiet", "q", false, "no progress bar and no summary")
	fs.IntVar(&f.RowGroupMB, "row-group-mb", 64, "Parquet row group size, `MB` uncompressed (1 to 100)")
	fs.IntVar(&f.ZstdLevel, "zstd-level", recio.DefaultZstdLevel, "zstd `LEVEL` of Parquet output, 1 to 22 (higher: smaller and slower; 11 makes the release's file 12% smaller for about 2.5x the CPU)")
	fs.BoolVar(&f.Resume, "resume", false, "keep the records of the existing -o file and process only the input records whose id is not in it (as id or parent_id)")
}

// WriteOptions are the writer settings from the flags (checked by
// checkRunFlags before a run).
func (f *IOFlags) WriteOptions() recio.WriteOptions {
	return recio.WriteOptions{RowGroupBytes: int64(f.RowGroupMB) << 20, ZstdLevel: f.ZstdLevel}
}

// checkRunFlags refuses flags that cannot make a run, before any work (or
// any batch paid for): writer settings out of range, rather than writing
// with others than the user asked for, -o and --errors on one file, and
// --resume without -o.
func (f *IOFlags) checkRunFlags() error {
	if f.Output != "" && f.Errors != "" && f.Output == f.Errors {
		return errors.New("-o and --errors name the same file")
	}
	if f.Resume && (f.Output == "" || f.Output == "-") {
		return errors.New("--resume needs -o FILE: the ids to skip are read from it")
	}
	if f.RowGroupMB < 1 || int64(f.RowGroupMB)<<20 > recio.MaxRowGroupBytes {
		return fmt.Errorf("--row-group-mb %d: want 1 to %d", f.RowGroupMB, recio.MaxRowGroupBytes>>20)
	}
	if f.ZstdLevel < 1 || f.ZstdLevel > recio.MaxZstdLevel {
		return fmt.Errorf("--zstd-level %d: want 1 to %d", f.ZstdLevel, recio.MaxZstdLevel)
	}
	return nil
}

// OutputFormat resolves --format and -o.
func (f *IOFlags) OutputFormat() (recio.Format, error) {
	return recio.ResolveFormat(f.Format, f.Output)
}

// Create opens the -o output (or stdout) in the resolved format.
func (f *IOFlags) Create(env Env) (*recio.Output, error) {
	format, err := f.OutputFormat()
	if err != nil {
		return nil, err
	}
	return recio.Create(f.Output, format, env.Stdout)
}

// RunSpec is what a program's build hands to Run (and Execute).
type RunSpec struct {
	Stage  pipeline.Stage
	Source pipeline.Source // default: the input files named by Inputs
	Inputs []string
	// Slots is how many work items each input record holds, which --shard
	// deals one by one (pipeline.Config.Slots); 0: a record is one.
	Slots int
	// Sink, when set, replaces the default sink (records to -o or stdout).
	Sink func() (pipeline.Sink, error)
	// Finish, when set, runs once the run is over and before the last
	// line, so that what it prints (a usage summary) never follows the
	// line that says how the run ended; its error fails the run (exit 1).
	Finish func() error
	// Budget, when set, stops the run as Ctrl-C does once reached.
	Budget *usage.Budget
	// Activity, when set, is the model calls finished and in flight, for
	// the progress line.
	Activity func() (done, inFlight int64)
	// After, when set, runs once the run has ended well; its error is the
	// program's (ngstats' --fail-on).
	After func() error
}

// source is the spec's Source, else the input files it names.
func (spec RunSpec) source(env Env) pipeline.Source {
	if spec.Source != nil {
		return spec.Source
	}
	return pipeline.NewFileSource(spec.Inputs, recio.OpenOptions{Stdin: env.Stdin})
}

// Execute runs a program's stage with the I/O flags: sources, sink, errors
// file, shard, progress, signals and the summary. Its error says how the
// run ended when not every record made it (an *ExitError: unreadable
// input 2, failed records 1, interrupted 130).
func (f *IOFlags) Execute(env Env, prog string, spec RunSpec) error {
	// First, so that what the sink and stage set up (e.g. pkg/lang raising
	// the limit for its models) builds on it.
	tuneGC()
	cfg, err := f.prepare(env, prog, spec)
	if err != nil {
		return err
	}
	msgs := pipeline.MessageWriter(env.Stderr)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// A write to a pipe whose reader is gone fails with EPIPE instead of
	// killing the process, so that the run can tell why (awaitInterrupt).
	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	defer signal.Stop(pipe)
	sig := ctx
	if spec.Budget != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		spec.Budget.OnReach = cancel
	}
	cfg.Stderr = msgs
	st, err := pipeline.Run(ctx, cfg)
	elog := cfg.Errors
	if cerr := elog.Close(); cerr != nil && err == nil {
		err = cerr
	}
	finished := true
	if spec.Finish != nil {
		if ferr := spec.Finish(); ferr != nil {
			fmt.Fprintf(msgs, "%s: %v\n", prog, ferr)
			finished = false
		}
	}
	if err != nil && errors.Is(err, syscall.EPIPE) {
		if !awaitInterrupt(sig) {
			return &ExitError{Code: ExitBrokenPipe, Err: err}
		}
		st.Interrupted, err = true, nil
	}
	if err != nil {
		return InputError(prog, err)
	}
	return f.ended(env, prog, spec, st, elog, msgs, finished)
}

// prepare opens what a run needs (the sink, --resume's done ids, the
// errors file, the source and the progress bar) after checking the run
// flags; its error is a usage error.
func (f *IOFlags) prepare(env Env, prog string, spec RunSpec) (pipeline.Config, error) {
	// fail is for errors before the run: Run closes the source, so here
	// it is closed by hand.
	fail := func(err error) error {
		if spec.Source != nil {
			spec.Source.Close()
		}
		return UsageError(prog, err)
	}
	shard, err := pipeline.ParseShard(f.Shard)
	if err != nil {
		return pipeline.Config{}, fail(err)
	}
	if err := f.checkRunFlags(); err != nil {
		return pipeline.Config{}, fail(err)
	}
	var sink pipeline.Sink
	if spec.Sink != nil {
		sink, err = spec.Sink()
	} else {
		var out *recio.Output
		if out, err = f.Create(env); err == nil {
			sink, err = pipeline.NewRecordSink(out, f.WriteOptions())
		}
	}
	if err != nil {
		return pipeline.Config{}, fail(err)
	}
	var done map[string]struct{}
	if f.Resume {
		if done, err = pipeline.ResumeFrom(f.Output, sink); err != nil {
			sink.Abort()
			return pipeline.Config{}, fail(err)
		}
	}
	var elog *pipeline.ErrorLog
	if f.Errors != "" {
		if elog, err = pipeline.OpenErrorLog(f.Errors); err != nil {
			sink.Abort()
			return pipeline.Config{}, fail(err)
		}
	}
	src := spec.source(env)
	bar := pipeline.NewProgress(env.Stderr, env.Stdout, prog, f.Progress, f.Quiet)
	bar.SetActivity(spec.Activity)
	if fsrc, ok := src.(*pipeline.FileSource); ok && bar.Draws() {
		if total, inBytes := pipeline.InputTotal(spec.Inputs); inBytes {
			bar.SetInput(total, fsrc.Consumed)
		} else {
			bar.SetInput(total, nil)
		}
	}
	return pipeline.Config{Stage: spec.Stage, Source: src, Sink: sink, Errors: elog,
		Workers: f.Workers, Shard: shard, Slots: spec.Slots, Progress: bar, Done: done,
		MaxErrorRate: f.MaxErrorRate}, nil
}

// ended is the error that says how a run that went to its end ended, nil
// when every record made it; it prints the records dropped.
func (f *IOFlags) ended(env Env, prog string, spec RunSpec, st pipeline.Stats, elog *pipeline.ErrorLog, msgs io.Writer, finished bool) error {
	if st.Dropped > 0 && !f.Quiet {
		where := "keep them with --errors FILE"
		if elog != nil {
			where = "in " + elog.Name()
		}
		fmt.Fprintf(msgs, "%s: %d of %d records dropped%s (%s)\n", prog, st.Dropped, st.In, droppedBy(st.DroppedBy), where)
	}
	where := "see the messages above; keep them with --errors FILE"
	if elog != nil {
		where = "see " + elog.Name()
	}
	switch {
	case st.Interrupted && spec.Budget.Reached():
		return FailedError(prog, fmt.Sprintf("stopped: the spend estimate $%.4f reached --budget $%g; %s written, %d failed or not processed (%s); run again with --resume (and a larger --budget) to go on",
			spec.Budget.Spent(), spec.Budget.Limit, Plural(int(st.Out), "record"), st.Failed, where))
	case st.Stopped != "":
		return FailedError(prog, fmt.Sprintf("stopped early: %s; %s written, %d failed or not processed (%s); fix the cause and run again with --resume",
			st.Stopped, Plural(int(st.Out), "record"), st.Failed, where))
	case st.Interrupted:
		return InterruptedError(prog, f.interrupted(env, prog, spec, st, where))
	case st.Failed > 0:
		return FailedError(prog, fmt.Sprintf("%d of %d records failed (%s)", st.Failed, st.In, where))
	case !finished:
		return FailedError(prog, "") // the reason is printed above
	}
	return nil
}

// interrupted is the one line an interrupted run ends with: what it
// wrote, what the interrupt cancelled (no line each), and, for a run with
// an -o file, how to go on. A program fed by a pipe cannot resume alone:
// the stages before it start over, so the hint says to run the whole
// pipeline again with --resume on this stage.
func (f *IOFlags) interrupted(env Env, prog string, spec RunSpec, st pipeline.Stats, where string) string {
	msg := fmt.Sprintf("interrupted: %s written", Plural(int(st.Out), "record"))
	if st.Cancelled > 0 {
		msg += fmt.Sprintf(", %d cancelled", st.Cancelled)
	}
	if failed := st.Failed - st.Cancelled; failed > 0 {
		msg += fmt.Sprintf(", %d failed (%s)", failed, where)
	}
	if f.Output == "" || f.Output == "-" {
		return msg
	}
	args := env.Args
	if !slices.Contains(args, "--resume") {
		args = append(slices.Clip(args), "--resume")
	}
	if spec.Source == nil && fromPipe(env.Stdin, spec.Inputs) {
		return msg + "; to go on from here, run the whole pipeline again, this stage with --resume (the stages before it start over):\n  ... | " + resumeCommand(prog, args)
	}
	return msg + "; to go on from here, run:\n  " + resumeCommand(prog, args)
}

// fromPipe tells whether a run reads its records from a pipe: no input
// file but stdin, and stdin a pipe.
func fromPipe(stdin io.Reader, inputs []string) bool {
	for _, in := range inputs {
		if in != "-" {
			return false
		}
	}
	f, ok := stdin.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeNamedPipe != 0
}

// awaitInterrupt is called when a write failed because the pipe's reader
// is gone. Ctrl-C reaches every program of a pipeline at once, and the one
// downstream may be gone before this one has seen its own signal: given a
// moment, the interrupt arrives (true: the run ends as interrupted, exit
// 130, one summary line). Without one the reader left early (ngcat ... |
// head): false, and the program ends silently with 141, as Unix programs
// killed by SIGPIPE do.
func awaitInterrupt(sig context.Context) bool {
	select {
	case <-sig.Done():
		return context.Cause(sig) != context.Canceled // a signal (its cause Is Canceled too), not stop()
	case <-time.After(200 * time.Millisecond):
		return false
	}
}

// tuneGC trades heap for fewer collections — records are short-lived and
// the live heap is bounded by the window and the writers (about 35 MB) —
// about 12% faster on the release import; a soft limit of 80 MiB keeps
// peak RSS flat below 100 MiB on corpora of any size. Data kept to the end
// (ngstats' indexes, lingua's models) raises the limit by what it holds
// (pkg/memlimit), so that the limit bounds the garbage. GOGC and GOMEMLIMIT
// in the environment win.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(200)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(80 << 20)
	}
}

// droppedBy says what left the records out: " by --where" for one filter,
// ": 60 by --where, 27 by --dedup" for several, most first.
func droppedBy(by map[string]int64) string {
	keys := slices.Sorted(maps.Keys(by))
	slices.SortStableFunc(keys, func(a, b string) int { return cmp.Compare(by[b], by[a]) })
	if len(keys) == 1 {
		return " by " + keys[0]
	}
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d by %s", by[k], k)
	}
	if len(parts) == 0 {
		return ""
	}
	return ": " + strings.Join(parts, ", ")
}
