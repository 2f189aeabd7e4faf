package cli

import (
	"fmt"
	"strings"

	"github.com/ngkit/ngkit/cmd/internal/app"
	"github.com/ngkit/ngkit/filters/refine"
	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/recio"
)

// Ngrefine refines seed records toward expert exemplars: judge, rewrite
// with the critique, judge again, up to --max-rounds.
func Ngrefine(env app.Env) error {
	p := app.NewLLMProgram("ngrefine", "exemplar-guided iterative refinement of seed scenarios and situations with an LLM judge", "[flags] [FILE...]")
	p.Details = `
Reads seed records (culture, category, dialogue_type, norm, scenario, situation; JSONL,
Parquet or Arrow, files or stdin, as ngseed writes them) and writes them refined, with
the same ids (refinement improves a seed in place). For each seed:

 1. the --k exemplars of the seed's culture and category most similar to it are picked
    (character 2- and 3-gram TF-IDF cosine, for English, Chinese and Korean alike): of
    its dialogue type first, then of the others when those are too few;
 2. a judge call scores the seed 1-5 on task_relevance (does it embody the norm and set
    up the dialogue type) and linguistic_quality (natural language, names, titles and
    honorifics that fit the relationship, given the culture profile), with a critique;
 3. while a score is under --min-score, or the seed breaks the exemplar rule (a scenario
    of 1-2 sentences and a situation of 3-5, one line each, no format markers, in the
    culture's scenario language), and rounds are left (--max-rounds), the seed is
    rewritten toward the exemplars with the critique, and the rewrite judged again,
    now also on semantic_preservation against the seed as it came in. A rewrite that
    breaks the rule is asked for again with the reason (--max-reasks), then afresh.

The record gets refinement: rounds (rewrites made), before (the seed's first scores),
after (the scores of the version kept), exemplar_ids, accepted, critique (of the
version kept). A seed that never reaches the bar keeps its best version (no rule
broken first, then the highest lowest score, ties to the later) with accepted=false,
or with --drop-rejected goes to the errors file with the reason. Every call is in gen
(judge.0, rewrite.1, judge.1, ...). Records without a culture, category, norm,
scenario or situation, of a culture without a profile, or of a category without
exemplars fail into the errors file.

Exemplars: the built-in ones (3 per culture, category and dialogue type, chosen from
the NormGenesis release by a documented rule; no Korean V2R ones), or --exemplars FILE
(any records with culture, category, scenario, situation; e.g. picked from ngcat
--from normgenesis output), which replaces them. A culture with no exemplars at all
is named once on stderr and its seeds fail. --exemplars self, for a new culture,
takes them from the run itself: a first pass reads every seed (held in memory)
and judges it as it came in (the judge.0 call its refinement starts with, made
once), then the --k+1 best-judged seeds of each culture, category and dialogue
type that reach --min-score and break no exemplar rule (by lowest score, then
total, then id) are the exemplars of the others; a seed is never its own. Seeds
of a category where none qualified are rewritten with the critique alone (said
once on stderr). The first pass reports what it found on stderr. Culture profiles: built in
(` + strings.Join(normbank.BuiltinCultures(), ", ") + `), from $NG_CULTURES_DIR, or --culture-file FILE.
Prompts: refine/judge and refine/rewrite (Korean ones in Korean, others in English
naming the language to write); --prompts DIR overrides them file by file (a culture's
own file, refine/judge.korean.tmpl, comes before the generic refine/judge.tmpl).

Personas: --personas FILE gives each seed without a persona one drawn from the
file (attribute -> values, optionally weighted) by --seed and the seed's id; a seed
that has one (from ngseed) keeps it. --vary ATTR=v1,v2 writes each seed once per
value (every combination when repeated), each with its own id and variant_of the
seed's id, refined separately. The persona goes into the judge and rewrite prompts
("Who is talking: ..."), so the refined situation fits it. --vary cannot be resumed
(--resume).`
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
	fs := p.Flags
	k := fs.Int("k", refine.DefaultK, "exemplars shown to each rewrite, `N`")
	exemplars := fs.String("exemplars", "builtin", "exemplars to refine toward: builtin, self (the run's own best-judged seeds), or a `FILE` of records (JSONL, Parquet or Arrow) that replaces them")
	minScore := fs.Int("min-score", refine.DefaultMinScore, "accept a seed when every score is at least `S` (1-5)")
	maxRounds := fs.Int("max-rounds", refine.DefaultMaxRounds, "rewrite a seed at most `N` times (0: judge only)")
	drop := fs.Bool("drop-rejected", false, "send seeds that never reach --min-score to the errors file instead of keeping their best version")
	p.WithCultures()
	p.WithPrompts("refine/judge[.culture].tmpl, refine/rewrite[.culture].tmpl")
	p.WithPersonas()
	msgs := pipeline.MessageWriter(env.Stderr)
	// source is the input files, led for --exemplars self by a first pass
	// of self, the stage.
	source := func(args []string, self *refine.Stage) pipeline.Source {
		src := pipeline.NewFileSource(args, recio.OpenOptions{Stdin: env.Stdin})
		if *exemplars != "self" {
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
		if err := m.Need(llm.RoleRewriter, llm.RoleJudge); err != nil {
			return app.RunSpec{}, err
		}
		c := m.Caller(llm.RoleRewriter)
		warnSameJudge(m, p.IO.Quiet)
		opt := refine.Options{Judge: m.Caller(llm.RoleJudge), K: *k, MinScore: *minScore, MaxRounds: *maxRounds, DropRejected: *drop, ExemplarSource: *exemplars}
		// Said even with -q: it explains why seeds fail or are refined without exemplars.
		opt.Warn = func(format string, args ...any) { fmt.Fprintf(msgs, "ngrefine: "+format+"\n", args...) }
		switch *exemplars {
		case "builtin":
			opt.Exemplars = normbank.BuiltinExemplars()
		case "self":
			opt.Self = true
		default:
			es, err := normbank.LoadExemplars(*exemplars)
			if err != nil {
				return app.RunSpec{}, fmt.Errorf("--exemplars: %w", err)
			}
			if len(es) == 0 {
				return app.RunSpec{}, fmt.Errorf("--exemplars %s: no exemplars in the file", *exemplars)
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
