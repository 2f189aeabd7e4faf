// Package seed is ngseed's stage, the first module of NormGenesis: a norm
// record in, seed records out. For each norm, one call asks for N
// distinct short scenarios in which the norm is followed; unusable ones
// (wrong language, markers, too long) and near-duplicates are dropped and
// asked for again, a bounded number of times; then one call per scenario
// elaborates it into a 3-5 sentence situation in the culture's register.
// Violation and Violation-to-Resolution seeds are derived from each
// adherence seed, one call each, with parent_id the adherence seed's id.
package seed

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/ngkit/ngkit/pkg/lang"
	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/persona"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/prompt"
	"github.com/ngkit/ngkit/pkg/record"
)

// Defaults of the options.
const (
	DefaultPerNorm   = 10
	DefaultMaxTopUps = 3
)

// Options configure the stage.
type Options struct {
	// Pack is the prompt pack (prompt.Builtin() when nil).
	Pack *prompt.Pack
	// PerNorm is the number of scenarios, hence adherence seeds, per norm.
	PerNorm int
	// Types are the dialogue types written (default adherence). Adherence
	// seeds are always made: the others are derived from them.
	Types []string
	// MaxTopUps bounds the calls, after the first, that ask for scenarios
	// to replace the dropped ones (0: none; ngseed's default is
	// DefaultMaxTopUps).
	MaxTopUps int
	// Profile finds a culture's profile; normbank.Profile when nil.
	Profile func(name string) (*normbank.Culture, error)
	// Personas gives each adherence seed a persona (--personas) and its
	// variants (--vary); the seeds derived from it share its persona. Nil:
	// none (a persona on the norm record is still used).
	Personas *persona.Sampler
	// Judge checks PACT items (--types pact): the judge role.
	Judge llm.Caller
}

// Stage turns norm records into seed records. It is safe for concurrent use.
type Stage struct {
	caller llm.Caller
	opt    Options
	types  map[string]bool

	cultures cultureCache
}

// cultureCache looks each culture's profile and language detector up once
// per stage: reading a profile parses YAML and a detector loads models.
type cultureCache struct {
	mu sync.Mutex
	m  map[string]*cultureEntry
}

type cultureEntry struct {
	once sync.Once
	c    *normbank.Culture
	det  *lang.Detector
	err  error
}

// get returns the culture's entry, made once with profile and det (the
// detector of the languages the stage checks).
func (cc *cultureCache) get(name string, profile func(string) (*normbank.Culture, error), det func(*normbank.Culture) (*lang.Detector, error)) (*cultureEntry, error) {
	cc.mu.Lock()
	e := cc.m[name]
	if e == nil {
		if cc.m == nil {
			cc.m = map[string]*cultureEntry{}
		}
		e = &cultureEntry{}
		cc.m[name] = e
	}
	cc.mu.Unlock()
	e.once.Do(func() {
		e.c, e.err = profile(name)
		if e.err == nil {
			e.det, e.err = det(e.c)
		}
	})
	return e, e.err
}

// New checks the options and makes the stage.
func New(caller llm.Caller, opt Options) (*Stage, error) {
	if caller == nil {
		return nil, errors.New("seed: no LLM client")
	}
	if opt.Pack == nil {
		opt.Pack = prompt.Builtin()
	}
	if opt.PerNorm == 0 {
		opt.PerNorm = DefaultPerNorm
	}
	if opt.PerNorm < 1 {
		return nil, fmt.Errorf("--per-norm %d: want at least 1", opt.PerNorm)
	}
	if opt.MaxTopUps < 0 {
		return nil, fmt.Errorf("--max-topups %d: cannot be negative", opt.MaxTopUps)
	}
	if len(opt.Types) == 0 {
		opt.Types = []string{record.TypeAdherence}
	}
	if opt.Profile == nil {
		opt.Profile = normbank.Profile
	}
	s := &Stage{caller: caller, opt: opt, types: map[string]bool{}}
	for _, t := range opt.Types {
		if !slices.Contains(seedTypes, t) {
			return nil, fmt.Errorf("--types: unknown dialogue type %q (types: %s)", t, strings.Join(seedTypes, ", "))
		}
		s.types[t] = true
	}
	return s, nil
}

// seedTypes are what --types takes: the dialogue types, and pact.
var seedTypes = append(slices.Clone(record.DialogueTypes), TypePact)

// ParseTypes parses a --types list: comma-separated dialogue types.
func ParseTypes(list []string) ([]string, error) {
	var out []string
	for _, t := range list {
		t = strings.ToLower(strings.TrimSpace(t))
		if t == "" {
			continue
		}
		if !slices.Contains(seedTypes, t) {
			return nil, fmt.Errorf("--types: unknown dialogue type %q (types: %s)", t, strings.Join(seedTypes, ", "))
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--types: no dialogue type (types: %s)", strings.Join(seedTypes, ", "))
	}
	return out, nil
}

// Name implements pipeline.Stage.
func (s *Stage) Name() string { return "ngseed" }

// Slots is how many work items a norm holds, which --shard deals one by
// one (pipeline.Config.Slots): its PerNorm scenarios, each a scenario's
// seeds. A task given some of a norm's scenarios (pipeline.SlotsOf) asks
// for all of them, as a run without shards does, and makes the seeds of
// its own only. PACT items are written together, by calls shared by all
// of a norm's items, so with --types pact the norm is the item.
func (s *Stage) Slots() int {
	if s.types[TypePact] {
		return 1
	}
	return s.opt.PerNorm
}

// culture returns a culture's profile and detector, looked up once.
func (s *Stage) culture(name string) (*cultureEntry, error) {
	return s.cultures.get(name, s.opt.Profile, detectorFor)
}

// scenario is a kept scenario and the call that wrote it.
type scenario struct {
	text string
	gen  record.Gen
}

// Process implements pipeline.Stage: one norm record in, its seeds out,
// grouped by scenario (the adherence seed, then the seeds derived from
// it). A norm fails as a whole: its seeds are written only when all of
// them were made, so that --resume and the errors file deal in norms.
func (s *Stage) Process(ctx context.Context, rec *record.Record) ([]*record.Record, error) {
	norm, err := normbank.NormFromRecord(rec)
	if err != nil {
		return nil, fmt.Errorf("not a norm: %w", err)
	}
	cu, err := s.culture(norm.Culture)
	if err != nil {
		return nil, err
	}
	var items []*record.Record
	if s.types[TypePact] {
		if items, err = s.pactItems(ctx, rec, norm, cu); err != nil {
			return nil, err
		}
		if len(s.types) == 1 {
			return items, nil
		}
	}
	seeds, err := s.dialogueSeeds(ctx, rec, norm, cu)
	if err != nil {
		return nil, err
	}
	return append(items, seeds...), nil
}

// dialogueSeeds makes a norm's dialogue seeds: its scenarios, their
// adherence seeds and the seeds derived from them.
func (s *Stage) dialogueSeeds(ctx context.Context, rec *record.Record, norm normbank.Norm, cu *cultureEntry) ([]*record.Record, error) {
	scens, err := s.scenarios(ctx, rec, norm, cu)
	if err != nil {
		return nil, err
	}

	// The scenarios' calls run at once; the client bounds what is in flight.
	mine, some := pipeline.SlotsOf(ctx)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	groups := make([][]*record.Record, len(scens))
	errs := make([]error, len(scens))
	var wg sync.WaitGroup
	for i, sc := range scens {
		if some && !slices.Contains(mine, i) {
			continue // another shard's
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			groups[i], errs[i] = s.seeds(ctx, rec, norm, cu, i, sc)
			if errs[i] != nil && !errors.Is(errs[i], llm.ErrDeferred) {
				cancel() // the norm has failed: stop its other calls
			}
		}()
	}
	wg.Wait()
	if err := llm.FirstError(errs); err != nil {
		return nil, err
	}
	var out []*record.Record
	for _, g := range groups {
		out = append(out, g...)
	}
	return out, nil
}

// mostlyUsable refuses a reply of which more than half the items fail
// check, giving the first reason (the model is asked again); the few bad
// ones of a usable reply are dropped and replaced by the next call.
func mostlyUsable(items []string, what string, check func(string) error) error {
	bad := 0
	var first error
	for _, it := range items {
		if err := check(it); err != nil {
			bad++
			if first == nil {
				first = err
			}
		}
	}
	if bad*2 > len(items) {
		return fmt.Errorf("%d of the %d %s are unusable, e.g. %v", bad, len(items), what, first)
	}
	return nil
}

// scenarios asks for PerNorm scenarios, then for replacements of the
// ones dropped, at most MaxTopUps times more.
func (s *Stage) scenarios(ctx context.Context, rec *record.Record, norm normbank.Norm, cu *cultureEntry) ([]scenario, error) {
	want := s.opt.PerNorm
	var kept []scenario
	var seen dedup
	dropped := map[string]int{} // why scenarios were dropped, for the error
	for call := 1; len(kept) < want; call++ {
		if call > 1+s.opt.MaxTopUps {
			return nil, fmt.Errorf("only %d of %d usable, distinct scenarios after %d calls (dropped: %s)",
				len(kept), want, call-1, summary(dropped))
		}
		data := newPromptData(norm, cu.c)
		data.Count = want - len(kept)
		for _, k := range kept {
			data.Have = append(data.Have, k.text)
		}
		// The value is the reply's scenarios.
		check := func(r *llm.Response) (any, error) {
			var v struct {
				Scenarios []string `json:"scenarios"`
			}
			if err := r.Decode(&v); err != nil {
				return nil, err
			}
			// A reply mostly unusable (in the wrong language, say) is asked
			// again; a few bad scenarios are replaced by the next call.
			if err := mostlyUsable(v.Scenarios, "scenarios", func(sc string) error { return checkScenario(cu.det, cu.c, sc) }); err != nil {
				return nil, err
			}
			return v.Scenarios, nil
		}
		name := "scenarios"
		if call > 1 {
			name += "." + strconv.Itoa(call)
		}
		reply, err := countSchema("seed_scenarios", "scenarios", data.Count)
		if err != nil {
			return nil, err
		}
		resp, err := s.call(ctx, rec.ID, name, "scenarios", "seed_scenarios", cu.c.Name, data, reply, check)
		if err != nil {
			return nil, err
		}
		items, _ := resp.Checked.([]string)
		for _, sc := range items {
			if len(kept) == want {
				break
			}
			sc = strings.TrimSpace(sc)
			if err := checkScenario(cu.det, cu.c, sc); err != nil {
				dropped[kindOf(err)]++
				continue
			}
			if !seen.add(sc) {
				dropped["near-duplicate"]++
				continue
			}
			kept = append(kept, scenario{text: sc, gen: resp.Gen})
		}
		if len(items) == 0 {
			dropped["empty reply"]++
		}
	}
	return kept, nil
}

// seeds makes scenario i's adherence seeds, one per persona variant
// (one without --vary), and the seeds derived from each.
func (s *Stage) seeds(ctx context.Context, in *record.Record, norm normbank.Norm, cu *cultureEntry, i int, sc scenario) ([]*record.Record, error) {
	base := record.NewID(norm.ID, strconv.Itoa(i), record.TypeAdherence)
	var out []*record.Record
	for _, v := range s.opt.Personas.Expand(base, in.Persona) {
		g, err := s.variant(ctx, in, norm, cu, i, sc, v.Persona)
		if err != nil {
			return nil, err
		}
		out = append(out, g...)
	}
	return out, nil
}

// variant makes scenario i's adherence seed with persona p and the seeds
// derived from it, and returns those of the types asked for.
func (s *Stage) variant(ctx context.Context, in *record.Record, norm normbank.Norm, cu *cultureEntry, i int, sc scenario, p map[string]string) ([]*record.Record, error) {
	adh := s.newSeed(in, norm, cu.c, i, record.TypeAdherence, in.ID, p)
	adh.Scenario = sc.text
	data := newPromptData(norm, cu.c)
	data.Scenario = sc.text
	data.Persona = persona.Lines(p)
	resp, err := s.call(ctx, adh.ID, "situation", "situation", "seed_situation", cu.c.Name, data, nil, func(r *llm.Response) (any, error) {
		var v struct {
			Situation string `json:"situation"`
		}
		if err := r.Decode(&v); err != nil {
			return nil, err
		}
		v.Situation = strings.TrimSpace(v.Situation)
		if err := checkSituation(cu.det, cu.c, v.Situation); err != nil {
			return nil, err
		}
		return v.Situation, nil
	})
	if err != nil {
		return nil, fmt.Errorf("scenario %d: %w", i, err)
	}
	adh.Situation, _ = resp.Checked.(string)
	adh.Gen = append(adh.Gen, sc.gen, resp.Gen)

	var out []*record.Record
	if s.types[record.TypeAdherence] {
		out = append(out, adh)
	}
	for _, typ := range []string{record.TypeViolation, record.TypeV2R} {
		if !s.types[typ] {
			continue
		}
		d, err := s.derive(ctx, in, norm, cu, i, adh, typ)
		if err != nil {
			return nil, fmt.Errorf("scenario %d: %w", i, err)
		}
		out = append(out, d)
	}
	return out, nil
}

// derive writes the violation or V2R seed of an adherence seed.
func (s *Stage) derive(ctx context.Context, in *record.Record, norm normbank.Norm, cu *cultureEntry, i int, adh *record.Record, typ string) (*record.Record, error) {
	d := s.newSeed(in, norm, cu.c, i, typ, adh.ID, adh.Persona)
	data := newPromptData(norm, cu.c)
	data.Persona = persona.Lines(adh.Persona)
	data.Type, data.Scenario, data.Situation = typ, adh.Scenario, adh.Situation
	parent := normalize(adh.Situation)
	type derived struct{ scenario, situation string }
	resp, err := s.call(ctx, d.ID, typ, typ, "seed_"+typ, cu.c.Name, data, nil, func(r *llm.Response) (any, error) {
		var v struct {
			Scenario  string `json:"scenario"`
			Situation string `json:"situation"`
		}
		if err := r.Decode(&v); err != nil {
			return nil, err
		}
		v.Scenario, v.Situation = strings.TrimSpace(v.Scenario), strings.TrimSpace(v.Situation)
		if err := checkScenario(cu.det, cu.c, v.Scenario); err != nil {
			return nil, err
		}
		if err := checkSituation(cu.det, cu.c, v.Situation); err != nil {
			return nil, err
		}
		if normalize(v.Situation) == parent {
			return nil, errors.New("the situation is the adherence situation unchanged; the norm must be violated")
		}
		return derived{v.Scenario, v.Situation}, nil
	})
	if err != nil {
		return nil, err
	}
	got, _ := resp.Checked.(derived)
	d.Scenario, d.Situation = got.scenario, got.situation
	d.Gen = []record.Gen{resp.Gen}
	return d, nil
}

// call renders a prompt and makes one structured call.
func (s *Stage) call(ctx context.Context, id, name, task, schema, culture string, data promptData, reply *llm.Schema, check func(*llm.Response) (any, error)) (*llm.Response, error) {
	p, err := s.opt.Pack.Render("seed", task, culture, data)
	if err != nil {
		return nil, err
	}
	return s.caller.Call(ctx, llm.Request{
		ID: id, Call: name, Schema: schema, ReplySchema: reply, PromptPack: s.opt.Pack.Version(), Check: check,
		Messages: []llm.Message{llm.System(p.System), llm.User(p.User)},
	})
}

// countSchemas are reply schemas whose array of N items (a call that
// asks for N) says N: minItems = maxItems = N, and an item's index at
// most N. A server that decodes under the schema then writes exactly N
// (seen on Ollama v0.24.0 and llama-server: 8 of 8 replies), where the
// schema file's 1 to 100 let it write any number. Only the schema sent
// says N (llm.DeriveSent): a reply of more is trimmed and one of fewer
// topped up, as before, for servers that decode without a grammar.
// Cached per schema and N (N is at most 100).
var countSchemas sync.Map

func countSchema(name, prop string, n int) (*llm.Schema, error) {
	if n < 1 {
		return nil, nil // the file's own
	}
	key := name + "\x00" + strconv.Itoa(n)
	if sc, ok := countSchemas.Load(key); ok {
		return sc.(*llm.Schema), nil
	}
	sc, err := llm.DeriveSent(name, func(doc map[string]any) {
		props, _ := doc["properties"].(map[string]any)
		arr, _ := props[prop].(map[string]any)
		if arr == nil {
			return
		}
		arr["minItems"], arr["maxItems"] = n, n
		item, _ := arr["items"].(map[string]any)
		itemProps, _ := item["properties"].(map[string]any)
		if idx, ok := itemProps["index"].(map[string]any); ok {
			idx["maximum"] = n
		}
	})
	if err != nil {
		return nil, err
	}
	countSchemas.Store(key, sc)
	return sc, nil
}

// newSeed makes an empty seed of a norm with persona p: its id is stable,
// derived from the norm, the scenario's index and the type, and with
// --vary the varied attributes (variant_of is then the id without them).
// Input fields no stage owns pass through to every seed.
func (s *Stage) newSeed(in *record.Record, norm normbank.Norm, c *normbank.Culture, i int, typ, parent string, p map[string]string) *record.Record {
	id := record.NewID(norm.ID, strconv.Itoa(i), typ)
	r := &record.Record{
		ID:       s.opt.Personas.ID(id, p),
		ParentID: parent, Culture: norm.Culture, Lang: c.Lang,
		Category: norm.Category, NormID: norm.ID, Norm: norm.Text,
		DialogueType: typ, Extra: maps.Clone(in.Extra), Persona: maps.Clone(p),
	}
	if s.opt.Personas.Varies() {
		r.VariantOf = id
	}
	return r
}

func summary(m map[string]int) string { return summaryOf(m, "scenarios") }

// summaryOf says why items were dropped ("2 near-duplicate, 1 wrong
// language").
func summaryOf(m map[string]int, items string) string {
	if len(m) == 0 {
		return "none; the replies held too few " + items
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%d %s", m[k], k))
	}
	return strings.Join(parts, ", ")
}
