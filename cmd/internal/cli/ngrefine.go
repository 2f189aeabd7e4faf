package cli

import (
	"fmt"

	"github.com/ngkit/ngkit/cmd/internal/app"
	"github.com/ngkit/ngkit/filters/refine"
	"github.com/ngkit/ngkit/pkg/llm/roles"
	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/recio"
	"github.com/spf13/pflag"
)

// Ngrefine refines seed records toward expert exemplars: judge, rewrite
// with the critique, judge again, up to --max-rounds.
func Ngrefine(env app.Env) error {
	p := app.NewLLMProgram("ngrefine", "exemplar-guided iterative refinement of seed scenarios and situations with an LLM judge", "[flags] [FILE...]")
	p.Details = Help("ngrefine")
	p.Examples = `
ngseed --culture korean --types adherence,v2r | ngrefine | ngv2r | ngstats
ngrefine seeds.jsonl -o refined.jsonl --errors failed.jsonl
ngrefine seeds.jsonl --min-score 5 --max-rounds 5 --drop-rejected --errors rejected.jsonl
ngrefine seeds.jsonl --max-rounds 0 | jq -c '{id, refinement}'    # judge only
ngrefine seeds.parquet --exemplars my-exemplars.jsonl --k 5 -o refined.parquet
ngrefine nz-seeds.jsonl --culture-file testdata/cultures/new-zealand.yaml --exemplars self -o refined.jsonl
ngrefine seeds.jsonl --emit-requests batch.jsonl   # then: ngrefine seeds.jsonl --responses out.jsonl
NG_BASE_URL=http://localhost:11434/v1 NG_MODEL=qwen2.5:7b ngrefine seeds.jsonl --concurrency 4
ngrefine seeds.jsonl --personas personas.yaml --vary hierarchy=junior,senior --seed 7 | ngv2r`
	o := &ngrefineOptions{}
	p.AddOptions(o)
	p.WithCultures()
	p.WithPrompts("refine/judge[.culture].tmpl, refine/rewrite[.culture].tmpl")
	p.WithPersonas()
	msgs := pipeline.MessageWriter(env.Stderr)
	// source is the input files, led for --exemplars self by a first pass
	// of self, the stage.
	source := func(args []string, self *refine.Stage) pipeline.Source {
		src := pipeline.NewFileSource(args, recio.OpenOptions{Stdin: env.Stdin})
		if o.exemplars != "self" {
			return src
		}
		note := func(string) {}
		if !p.IO.Quiet {
			note = func(s string) { fmt.Fprintln(msgs, "ngrefine: "+s) }
		}
		return &selfSource{src: src, stage: self, workers: p.IO.Workers, note: note}
	}
	p.WithRoles(ngrefineRoles)
	p.OwnSource = true
	return p.Run(env, func(b *app.Build) (app.RunSpec, error) {
		m := b.Models
		if err := m.Need(roles.Rewriter, roles.Judge); err != nil {
			return app.RunSpec{}, err
		}
		c := m.Caller(roles.Rewriter)
		warnSameJudge(m, p.IO.Quiet)
		opt := o.refineOptions()
		opt.Judge = m.Caller(roles.Judge)
		// Said even with -q: it explains why seeds fail or are refined without exemplars.
		opt.Warn = func(format string, args ...any) { fmt.Fprintf(msgs, "ngrefine: "+format+"\n", args...) }
		switch o.exemplars {
		case "builtin":
			opt.Exemplars = normbank.BuiltinExemplars()
		case "self":
			opt.Self = true
		default:
			es, err := normbank.LoadExemplars(o.exemplars)
			if err != nil {
				return app.RunSpec{}, fmt.Errorf("--exemplars: %w", err)
			}
			if len(es) == 0 {
				return app.RunSpec{}, fmt.Errorf("--exemplars %s: no exemplars in the file", o.exemplars)
			}
			opt.Exemplars = es
		}
		opt.Profile = b.Cultures.Lookup
		opt.Pack = b.Pack
		st, err := refine.New(c, opt)
		if err != nil {
			return app.RunSpec{}, err
		}
		stage, err := b.WithPersonas(st)
		if err != nil {
			return app.RunSpec{}, err
		}
		return app.RunSpec{Stage: stage, Source: source(b.Args, st)}, nil
	})
}

// ngrefineOptions are ngrefine's own flags (app.Options).
type ngrefineOptions struct {
	k, minScore, maxRounds int
	exemplars              string
	drop                   bool
}

// Register adds ngrefine's flags to fs.
func (o *ngrefineOptions) Register(fs *pflag.FlagSet) {
	fs.IntVar(&o.k, "k", refine.DefaultK, "exemplars shown to each rewrite, `N`")
	fs.StringVar(&o.exemplars, "exemplars", "builtin", "exemplars to refine toward: builtin, self (the run's own best-judged seeds), or a `FILE` of records (JSONL, Parquet or Arrow) that replaces them")
	fs.IntVar(&o.minScore, "min-score", refine.DefaultMinScore, "accept a seed when every score is at least `S` (1-5)")
	fs.IntVar(&o.maxRounds, "max-rounds", refine.DefaultMaxRounds, "rewrite a seed at most `N` times (0: judge only)")
	fs.BoolVar(&o.drop, "drop-rejected", false, "send seeds that never reach --min-score to the errors file instead of keeping their best version")
}

// Check refuses --k, --min-score and --max-rounds out of range, before
// the models are opened; refine.New checks them with its other options
// (the one place of the rules and their messages).
func (o *ngrefineOptions) Check() error {
	return refine.CheckCounts(o.refineOptions())
}

// refineOptions are the stage's options the flags set.
func (o *ngrefineOptions) refineOptions() refine.Options {
	return refine.Options{K: o.k, MinScore: o.minScore, MaxRounds: o.maxRounds, DropRejected: o.drop, ExemplarSource: o.exemplars}
}
