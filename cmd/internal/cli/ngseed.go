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
	p.Details = `
Reads norms and writes seed records. Without FILE arguments the norms are the
built-in norm bank (the NormGenesis release: american, chinese and korean, 12
categories of about 10 norms each; the other built-in cultures have profiles but
no norms yet, so give theirs with --norms), selected with --culture, --categories and
--limit; --norms FILE takes another list (JSONL, Parquet or Arrow records with
culture, category and norm; norm_id kept when given). With FILE arguments (- for
stdin) norm records stream in, so the first seeds leave before the last norm is
read; the same flags select among them, and a norm read twice is used once.

For each norm, one call asks for --per-norm distinct scenarios (1-2 sentences) in
which the norm is followed. A scenario in the wrong language, with format markers
or too long, or a near-duplicate of another scenario of the norm (the same text
once case, spacing and punctuation are ignored, or a character n-gram Jaccard
similarity of 0.6 or more: 3-grams, 2-grams for Chinese and Japanese), is dropped
and asked for again, at most --max-topups more calls. Then one call per scenario
elaborates it into a situation of 3-5 sentences in the culture's register (its
profile's honorifics and relational distance, with names and titles of the
culture). --types violation,v2r derives a violation seed and a Violation-to-
Resolution seed from each adherence seed, one call each, with parent_id the
adherence seed's id and the same norm; adherence seeds are made in any case, as
their parents, and written when --types has adherence.

Every reply is checked: scenario and situation in the culture profile's
scenario_lang (pkg/lang), sentence counts, no format markers; a failing reply is
asked again (--max-retries). A norm whose seeds cannot all be made goes to the
errors file with the reason; its seeds are written only together.

PACT items (--types pact; see ngpact): for each norm, one call writes --per-norm
trade-off items: a scenario in the culture, an actor and a receiver, the cultural
expectation (from the norm), a personal preference of the actor that plausibly
conflicts with it, and the two options (follow_option, allow_option) worded
neutrally, in the culture profile's scenario_lang. Every item is checked: all its
fields there, no format markers, the two options distinct, the preference not the
expectation, its text in the scenario language (a failing reply is asked again);
then the judge role says whether each preference really conflicts with its
expectation, and the items it refuses are written again with its reasons (at most
--max-topups more calls). A norm whose items cannot all be made goes to the errors
file with the reason. Items are records with scenario, pact_item {actor, receiver,
expectation, preference, follow_option, allow_option}, culture, lang (the scenario
language), category, norm_id, norm and persona; their id is a hash of the norm id
and the item's index. With --personas the writer is told each actor's attributes;
--vary writes each item once per value, the same text with that attribute changed,
sharing variant_of: the counterfactual pairs ngpact and ngstats compare.
--vary country=A,B varies the actor's and the receiver's country together (the
scenario's country), --vary actor_country=... or receiver_country=... one of them,
receiver_age=/receiver_gender= the receiver's; these go to the item's fields
(pact_item.actor_country, ...), the others to the persona. --types
pact,adherence writes both items and dialogue seeds.

Personas: --personas FILE gives each adherence seed a persona (who is talking:
age band, relationship, hierarchy, ...), one value per attribute drawn by the
file's weights from --seed and the seed's id, so reruns give the same personas;
the seeds derived from it share it. It goes into the situation prompt and the
record's persona field. --vary ATTR=v1,v2 writes each seed once per value
(several --vary: every combination), alike but for that attribute, with its
own id and variant_of the id it would have without --vary.

Seed records: id (stable: a hash of norm id, scenario index and type), parent_id
(the norm record's id for adherence seeds), culture, lang (the culture's dialogue
language), category, norm_id, norm, dialogue_type, scenario, situation, gen (the
calls that wrote the scenario and situation). Fields of the norm record that no
stage owns pass through to each of its seeds.

Episodes: --types episode (alone, with --culture) writes CultureConverse episode
specs for ngsim, one writer call each: per --domains domain (default the seven:
food_and_dining, health, family_and_ceremonies, work, religion_and_festivals,
travel_and_hospitality, gifts_and_etiquette) and --per-domain times (per
--subgroups value, when given), the user's subgroup identity, a practical goal,
2-4 hidden cultural constraints (each resting on one of up to 6 norms of the
culture offered, its norm_id, or on the profile when the culture has no norms),
how each may be revealed (implicit, explicit, never), and the opening message in
the culture's language (checked with pkg/lang; a failing reply is asked again).
--personas and --vary give the users personas as for seeds.

Cultures: profiles give the languages, names, titles and guidance on honorifics
and distance (built in: ` + strings.Join(normbank.BuiltinCultures(), ", ") + `). Add one with --culture-file FILE
or a NAME.yaml in $NG_CULTURES_DIR (default ~/.config/ngkit/cultures).

Prompts: seed/scenarios, seed/situation, seed/violation and seed/v2r in the built-in
pack (Korean prompts in Korean, others in English naming the output language);
--prompts DIR overrides them file by file. With --emit-requests, each run emits one
step (scenarios, then situations, then derived seeds): run again with --responses
holding all the replies so far to emit the next.` + makeNormsHelp
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
