package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ngkit/ngkit/cmd/internal/app"
	"github.com/ngkit/ngkit/filters/seed"
	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/llm/roles"
	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/recio"
	"github.com/ngkit/ngkit/pkg/record"
	"github.com/spf13/pflag"
)

// Ngseed turns norms into seeds: scenarios, their situations, and the
// violation and V2R seeds derived from them.
func Ngseed(env app.Env) error {
	p := app.NewLLMProgram("ngseed", "norms to seeds: short scenarios, 3-5 sentence situations, and violation and V2R seeds, with an LLM", "[flags] [FILE...]")
	p.Details = Help("ngseed")
	p.Examples = `
ngseed --culture korean --limit 5 -o seeds.jsonl
ngseed --culture chinese --categories apology,thanks --types adherence,violation,v2r | ngrefine | ngv2r
ngseed --norms my-norms.parquet --per-norm 5 -o seeds.parquet
ngcat norms.jsonl | ngseed - --culture american --types v2r
ngseed --culture thai --norms thai-norms.jsonl
ngseed --culture korean --personas personas.yaml --vary hierarchy=junior,senior --seed 7
ngseed --types pact --per-norm 2 --vary age=18-29,30-49,50+ | ngpact --subjects gpt,qwen | ngstats
ngseed --culture-file cultures/korean-busan.yaml --norms busan-norms.jsonl
ngseed --types episode --culture thai --per-domain 3 --personas personas.yaml | ngsim --assistants a,b
ngseed --make-norms --culture-file testdata/cultures/new-zealand.yaml -o nz-norms.jsonl   # review, then: --norms nz-norms.jsonl
NG_BASE_URL=http://localhost:11434/v1 NG_MODEL=qwen2.5:7b ngseed --culture korean --limit 2 --concurrency 4`
	o := &ngseedOptions{}
	p.AddOptions(o)
	p.WithCultures()
	p.WithPrompts("seed/scenarios[.culture].tmpl, ...")
	p.WithPersonas()
	p.AddOptions(&o.episodes, &o.mk)
	p.WithRoles(ngseedRoles)
	p.OwnSource = true
	return p.Run(env, func(b *app.Build) (app.RunSpec, error) {
		st, err := o.stage(b, env)
		if err != nil {
			return app.RunSpec{}, err
		}
		if !o.mk.on && !o.episode {
			p.Estimate = seedEstimate(o.perNorm, len(o.types))
		}
		src, err := o.source(b.Args, b.Cultures, env)
		spec := app.RunSpec{Stage: st, Source: src}
		if s, ok := st.(*seed.Stage); ok {
			spec.Slots = s.Slots() // --shard deals the scenarios
		}
		return spec, err
	})
}

// ngseedOptions are ngseed's own flags (app.Options): the norm selection
// and the seeds per norm; the --types episode flags and --make-norms are
// their own options, registered later in --help.
type ngseedOptions struct {
	culture    string
	categories []string
	limit      int
	normsFile  string
	perNorm    int
	typesFlag  []string
	topUps     int

	episodes episodeFlags
	mk       makeNorms

	// episode says --types is episode alone; types are the dialogue
	// types otherwise. Set by Check.
	episode bool
	types   []string
}

// Register adds ngseed's selection flags to fs.
func (o *ngseedOptions) Register(fs *pflag.FlagSet) {
	fs.StringVar(&o.culture, "culture", "", "use the norms of culture `NAME` only (built in: "+strings.Join(normbank.BuiltinCultures(), ", ")+"; or one with a profile)")
	fs.StringSliceVar(&o.categories, "categories", nil, "use the norms of these `CATEGORIES` only, comma-separated (apology, compliment, ...)")
	fs.IntVar(&o.limit, "limit", 0, "use the first `N` selected norms only (0: all)")
	fs.StringVar(&o.normsFile, "norms", "", "read the norms from `FILE` (JSONL, Parquet or Arrow with culture, category, norm) instead of the built-in bank")
	fs.IntVar(&o.perNorm, "per-norm", seed.DefaultPerNorm, "scenarios, hence adherence seeds, per norm, `N`")
	fs.StringSliceVar(&o.typesFlag, "types", []string{record.TypeAdherence}, "dialogue `TYPES` to write, comma-separated: adherence, violation, v2r; or pact (PACT trade-off items); or episode alone (CultureConverse episode specs for ngsim)")
	fs.IntVar(&o.topUps, "max-topups", seed.DefaultMaxTopUps, "calls after the first, `N`, asking for scenarios to replace dropped ones")
	fs.Lookup("types").DefValue = record.TypeAdherence
}

// Check refuses bad seed flags and parses --types; --make-norms uses
// neither the counts nor the types (its own checks are in
// seed.NewNormMaker).
func (o *ngseedOptions) Check() error {
	ep, err := isEpisode(o.typesFlag)
	if o.mk.on {
		return err
	}
	switch {
	case o.limit < 0:
		return fmt.Errorf("--limit %d: cannot be negative", o.limit)
	case o.perNorm < 1:
		return fmt.Errorf("--per-norm %d: want at least 1", o.perNorm)
	case err != nil:
		return err
	}
	o.episode = ep
	if !ep {
		o.types, err = seed.ParseTypes(o.typesFlag)
	}
	return err
}

// stage is the writer's stage: norms (--make-norms), episode specs or seeds.
func (o *ngseedOptions) stage(b *app.Build, env app.Env) (pipeline.Stage, error) {
	m := b.Models
	if err := m.Need(roles.Writer); err != nil {
		return nil, err
	}
	c := m.Caller(roles.Writer)
	if o.mk.on {
		return o.mk.stage(c, b.Pack, o.topUps, b.Cultures)
	}
	var judge llm.Caller
	if slices.Contains(o.types, seed.TypePact) {
		if err := m.Need(roles.Judge); err != nil {
			return nil, err
		}
		judge = m.Caller(roles.Judge)
	}
	if o.episode {
		return o.episodes.stage(m, b.Pack, b.Cultures.Lookup, b.Personas, b.Args, o.culture, o.normsFile, o.categories, env.Stderr)
	}
	return seed.New(c, seed.Options{Pack: b.Pack, PerNorm: o.perNorm, Types: o.types,
		MaxTopUps: o.topUps, Profile: b.Cultures.Lookup, Personas: b.Personas, Judge: judge})
}

// source is the norms (or the episode cultures), from the arguments;
// made after the stage, as its errors come after the stage's.
func (o *ngseedOptions) source(args []string, cultures *app.Cultures, env app.Env) (pipeline.Source, error) {
	sel := seed.Selection{Culture: o.culture, Categories: o.categories, Limit: o.limit}
	switch {
	case o.mk.on:
		return o.mk.source(cultures, o.culture, o.categories, args, o.normsFile)
	case o.episode:
		return o.episodes.source(args, sel.Culture, cultures.Lookup)
	case len(args) > 0 && o.normsFile != "":
		return nil, seed.ErrBothInputs
	case len(args) > 0:
		if sel.Culture != "" {
			if _, err := cultures.Lookup(sel.Culture); err != nil {
				return nil, fmt.Errorf("--culture: %w", err)
			}
		}
		return seed.StreamSource(pipeline.NewFileSource(args, recio.OpenOptions{Stdin: env.Stdin}), sel, env.Stderr, "ngseed"), nil
	case o.normsFile != "":
		norms, err := normbank.LoadNorms(o.normsFile)
		if err != nil {
			return nil, fmt.Errorf("--norms: %w", err)
		}
		return seed.NormSource(norms, sel, o.normsFile)
	default:
		if err := builtinNormsFor(cultures.Lookup, sel.Culture); err != nil {
			return nil, err
		}
		return seed.NormSource(normbank.BuiltinNorms(), sel, "builtin")
	}
}

// builtinNormsFor says why the built-in norm bank cannot serve --culture
// NAME: no profile, or a profile but no built-in norms (the cultures beyond
// the release's three have profiles only).
func builtinNormsFor(lookup func(string) (*normbank.Culture, error), name string) error {
	if name == "" {
		return nil
	}
	c, err := lookup(name)
	if err != nil {
		return fmt.Errorf("--culture: %w", err)
	}
	if have := normbank.NormCultures(); !slices.Contains(have, c.Name) {
		return fmt.Errorf("--culture %s: the built-in norm bank has no %s norms (only %s); give them with --norms FILE or as FILE arguments (JSONL, Parquet or Arrow records with culture, category and norm)",
			c.Name, c.Name, strings.Join(have, ", "))
	}
	return nil
}

// seedEstimate is --estimate's profile of ngseed: per norm one scenarios
// call, then per scenario a situation and a derived seed for each further
// type. Measured by call on the fake (TestEstimateWithin20Percent): a
// situation prompt is 1.4 times the scenarios prompt and a derived seed's
// 1.75 times; replies of 440 (scenarios), 165 (situation) and 215 (derived)
// tokens.
func seedEstimate(perNorm, types int) *app.EstimateProfile {
	p, t := float64(perNorm), float64(max(types, 1))
	n := 1 + p*t
	return &app.EstimateProfile{PerFirst: n, InScale: (1 + 1.4*p + 1.75*p*(t-1)) / n, OutTokens: (440 + 165*p + 215*p*(t-1)) / n}
}
