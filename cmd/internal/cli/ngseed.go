package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ngkit/ngkit/cmd/internal/app"
	"github.com/ngkit/ngkit/filters/seed"
	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/recio"
	"github.com/ngkit/ngkit/pkg/record"
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
	fs := p.Flags
	culture := fs.String("culture", "", "use the norms of culture `NAME` only (built in: "+strings.Join(normbank.BuiltinCultures(), ", ")+"; or one with a profile)")
	categories := fs.StringSlice("categories", nil, "use the norms of these `CATEGORIES` only, comma-separated (apology, compliment, ...)")
	limit := fs.Int("limit", 0, "use the first `N` selected norms only (0: all)")
	normsFile := fs.String("norms", "", "read the norms from `FILE` (JSONL, Parquet or Arrow with culture, category, norm) instead of the built-in bank")
	perNorm := fs.Int("per-norm", seed.DefaultPerNorm, "scenarios, hence adherence seeds, per norm, `N`")
	typesFlag := fs.StringSlice("types", []string{record.TypeAdherence}, "dialogue `TYPES` to write, comma-separated: adherence, violation, v2r; or pact (PACT trade-off items); or episode alone (CultureConverse episode specs for ngsim)")
	topUps := fs.Int("max-topups", seed.DefaultMaxTopUps, "calls after the first, `N`, asking for scenarios to replace dropped ones")
	fs.Lookup("types").DefValue = record.TypeAdherence
	p.WithCultures()
	p.WithPrompts("seed/scenarios[.culture].tmpl, ...")
	p.WithPersonas()
	var episodes episodeFlags
	episodes.register(fs)
	mk := registerMakeNorms(fs)

	// source is the norms (or the episode cultures), from the arguments;
	// made after the stage, as its errors come after the stage's.
	source := func(args []string, cultures *app.Cultures) (pipeline.Source, error) {
		sel := seed.Selection{Culture: *culture, Categories: *categories, Limit: *limit}
		if ep, err := isEpisode(*typesFlag); ep || err != nil {
			if err != nil {
				return nil, err
			}
			return episodes.source(args, sel.Culture, cultures.Lookup)
		}
		switch {
		case *mk.on:
			return mk.source(cultures, *culture, *categories, args, *normsFile)
		case len(args) > 0 && *normsFile != "":
			return nil, seed.ErrBothInputs
		case len(args) > 0:
			if sel.Culture != "" {
				if _, err := cultures.Lookup(sel.Culture); err != nil {
					return nil, fmt.Errorf("--culture: %w", err)
				}
			}
			return seed.StreamSource(pipeline.NewFileSource(args, recio.OpenOptions{Stdin: env.Stdin}), sel, env.Stderr, p.Name), nil
		case *normsFile != "":
			norms, err := normbank.LoadNorms(*normsFile)
			if err != nil {
				return nil, fmt.Errorf("--norms: %w", err)
			}
			return seed.NormSource(norms, sel, *normsFile)
		default:
			if err := builtinNormsFor(cultures.Lookup, sel.Culture); err != nil {
				return nil, err
			}
			return seed.NormSource(normbank.BuiltinNorms(), sel, "builtin")
		}
	}
	stage := func(b *app.Build) (pipeline.Stage, error) {
		m := b.Models
		if err := m.Need(llm.RoleWriter); err != nil {
			return nil, err
		}
		c := m.Caller(llm.RoleWriter)
		var judge llm.Caller
		if *mk.on {
			return mk.stage(c, b.Pack, *topUps, b.Cultures)
		}
		switch {
		case *limit < 0:
			return nil, fmt.Errorf("--limit %d: cannot be negative", *limit)
		case *perNorm < 1:
			return nil, fmt.Errorf("--per-norm %d: want at least 1", *perNorm)
		}
		ep, err := isEpisode(*typesFlag)
		if err != nil {
			return nil, err
		}
		var types []string
		if !ep {
			if types, err = seed.ParseTypes(*typesFlag); err != nil {
				return nil, err
			}
		}
		if slices.Contains(types, seed.TypePact) {
			if err := m.Need(llm.RoleJudge); err != nil {
				return nil, err
			}
			judge = m.Caller(llm.RoleJudge)
		}
		if ep {
			return episodes.stage(m, b.Pack, b.Cultures.Lookup, b.Personas, b.Args, *culture, *normsFile, *categories, env.Stderr)
		}
		p.Estimate = seedEstimate(*perNorm, len(types))
		return seed.New(c, seed.Options{Pack: b.Pack, PerNorm: *perNorm, Types: types,
			MaxTopUps: *topUps, Profile: b.Cultures.Lookup, Personas: b.Personas, Judge: judge})
	}
	p.WithRoles(ngseedRoles)
	p.OwnSource = true
	return p.Run(env, func(b *app.Build) (app.RunSpec, error) {
		st, err := stage(b)
		if err != nil {
			return app.RunSpec{}, err
		}
		src, err := source(b.Args, b.Cultures)
		return app.RunSpec{Stage: st, Source: src}, err
	})
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
