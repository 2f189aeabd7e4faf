package seed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/ngkit/ngkit/pkg/episode"
	"github.com/ngkit/ngkit/pkg/lang"
	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/persona"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/prompt"
	"github.com/ngkit/ngkit/pkg/record"
)

// TypeEpisode is ngseed's --types value for CultureConverse episode specs.
const TypeEpisode = "episode"

// NormsOffered is how many of the culture's norms an episode prompt offers
// as grounding for its constraints.
const NormsOffered = 6

// EpisodeSlots yields the slots to fill, one record per domain, per-domain
// times (and per subgroup, when given): culture, episode.domain and
// episode.subgroup set, a stable id from those and the index.
func EpisodeSlots(culture string, domains []string, perDomain int, subgroups []string) pipeline.Source {
	var recs []*record.Record
	if len(subgroups) == 0 {
		subgroups = []string{""}
	}
	for _, d := range domains {
		for _, sg := range subgroups {
			for i := range perDomain {
				recs = append(recs, &record.Record{
					ID:      record.NewID("episode", culture, d, sg, strconv.Itoa(i)),
					Culture: culture, Episode: &record.Episode{Domain: d, Subgroup: sg},
				})
			}
		}
	}
	return &slotSource{recs: recs}
}

type slotSource struct {
	recs []*record.Record
	i    int
}

func (s *slotSource) Next() (pipeline.Item, error) {
	if s.i == len(s.recs) {
		return pipeline.Item{}, io.EOF
	}
	s.i++
	return pipeline.Item{Rec: s.recs[s.i-1], Name: "episode slots", Line: int64(s.i)}, nil
}

func (s *slotSource) Close() error { return nil }

// EpisodeOptions configure the episode stage.
type EpisodeOptions struct {
	// Pack is the prompt pack (prompt.Builtin() when nil).
	Pack *prompt.Pack
	// Profile finds a culture's profile; normbank.Profile when nil.
	Profile func(name string) (*normbank.Culture, error)
	// Norms are the norms the constraints may rest on (those of the slot's
	// culture are offered); none: the profile's guidance alone.
	Norms []normbank.Norm
	// Personas gives each spec a persona (--personas) and its variants
	// (--vary).
	Personas *persona.Sampler
}

// EpisodeStage turns episode slots into episode specs, one writer call
// each. It is safe for concurrent use.
type EpisodeStage struct {
	caller llm.Caller
	opt    EpisodeOptions

	cultures cultureCache

	mu      sync.Mutex
	schemas map[string]*llm.Schema // by the offered norms' ids (normSchema)
}

// NewEpisodes makes the episode stage.
func NewEpisodes(caller llm.Caller, opt EpisodeOptions) (*EpisodeStage, error) {
	if caller == nil {
		return nil, errors.New("seed: no LLM client")
	}
	if opt.Pack == nil {
		opt.Pack = prompt.Builtin()
	}
	if opt.Profile == nil {
		opt.Profile = normbank.Profile
	}
	return &EpisodeStage{caller: caller, opt: opt, schemas: map[string]*llm.Schema{}}, nil
}

// maxNormSchemas bounds the stage's cache of reply schemas: a culture's
// offered lists are at most as many as its norms.
const maxNormSchemas = 256

// normSchema is the seed_episode reply schema with the offered norms' ids
// (and "", for a constraint that rests on none) as the enum of norm_id: a
// server that decodes under the schema (llama.cpp's grammar, vLLM's guided
// decoding) can then write no other id. With the file alone a small model
// under a grammar made ids up until the slot failed. parseEpisode still
// checks, for servers that ignore schemas. Made once per offered list.
func (s *EpisodeStage) normSchema(norms []normbank.Norm) (*llm.Schema, error) {
	ids := []any{""}
	var key strings.Builder
	for _, n := range norms {
		ids = append(ids, n.ID)
		key.WriteString(n.ID + "\x00")
	}
	s.mu.Lock()
	sc, ok := s.schemas[key.String()]
	s.mu.Unlock()
	if ok {
		return sc, nil
	}
	sc, err := llm.DeriveSchema("seed_episode", func(doc map[string]any) {
		items := doc["properties"].(map[string]any)["constraints"].(map[string]any)["items"].(map[string]any)
		id := items["properties"].(map[string]any)["norm_id"].(map[string]any)
		delete(id, "maxLength")
		id["enum"] = ids
	})
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if len(s.schemas) < maxNormSchemas {
		s.schemas[key.String()] = sc
	}
	s.mu.Unlock()
	return sc, nil
}

// Name implements pipeline.Stage.
func (s *EpisodeStage) Name() string { return "ngseed" }

func (s *EpisodeStage) culture(name string) (*cultureEntry, error) {
	return s.cultures.get(name, s.opt.Profile, func(c *normbank.Culture) (*lang.Detector, error) { return lang.For(c.Lang) })
}

// episodeData is what seed/episode is rendered with.
type episodeData struct {
	Culture, Language, Lang        string
	Domain, Subgroup               string
	Persona                        []string
	Norms                          []normbank.Norm
	Honorifics, Distance           string
	MinConstraints, MaxConstraints int
}

// Process implements pipeline.Stage: one slot in, a spec per persona
// variant out (one without --vary).
func (s *EpisodeStage) Process(ctx context.Context, slot *record.Record) ([]*record.Record, error) {
	if slot.Episode == nil || slot.Episode.Domain == "" {
		return nil, errors.New("not an episode slot: no episode domain")
	}
	cu, err := s.culture(slot.Culture)
	if err != nil {
		return nil, err
	}
	norms := offered(s.opt.Norms, cu.c.Name, slot.ID)
	var out []*record.Record
	for _, v := range s.opt.Personas.Expand(slot.ID, slot.Persona) {
		rec, err := s.spec(ctx, slot, cu, norms, v.Persona)
		if err != nil {
			return nil, err
		}
		out = append(out, rec)
	}
	return out, nil
}

func (s *EpisodeStage) spec(ctx context.Context, slot *record.Record, cu *cultureEntry, norms []normbank.Norm, p map[string]string) (*record.Record, error) {
	c := cu.c
	want := lang.Normalize(c.Lang)
	base := record.NewID(slot.ID, TypeEpisode)
	rec := &record.Record{ID: s.opt.Personas.ID(base, p), ParentID: slot.ID, Culture: c.Name, Lang: want,
		Persona: maps.Clone(p), Extra: maps.Clone(slot.Extra)}
	if s.opt.Personas.Varies() {
		rec.VariantOf = base
	}
	data := episodeData{Culture: c.Display(), Language: lang.Name(want), Lang: want,
		Domain: strings.ReplaceAll(slot.Episode.Domain, "_", " "), Subgroup: slot.Episode.Subgroup,
		Persona: persona.Lines(p), Norms: norms, Honorifics: oneLine(c.Honorifics), Distance: oneLine(c.Distance),
		MinConstraints: episode.MinConstraints, MaxConstraints: episode.MaxConstraints}
	pr, err := s.opt.Pack.Render("seed", "episode", c.Name, data)
	if err != nil {
		return nil, err
	}
	check := func(r *llm.Response) (any, error) {
		return parseEpisode(r.JSON, slot.Episode, norms, cu.det, want)
	}
	schema, err := s.normSchema(norms)
	if err != nil {
		return nil, err
	}
	resp, err := s.caller.Call(ctx, llm.Request{ID: rec.ID, Call: "episode", Schema: "seed_episode", ReplySchema: schema, PromptPack: s.opt.Pack.Version(),
		Messages: []llm.Message{llm.System(pr.System), llm.User(pr.User)}, Check: check})
	if err != nil {
		return nil, err
	}
	rec.Episode, _ = resp.Checked.(*record.Episode)
	rec.Gen = []record.Gen{resp.Gen}
	return rec, nil
}

// parseEpisode reads a seed_episode reply into a spec of the slot's domain
// (and subgroup, when the slot fixed one) and checks it: 2-4 constraints,
// norm ids among those offered, the opening in the user's language and
// copying no constraint.
func parseEpisode(raw []byte, slot *record.Episode, norms []normbank.Norm, det *lang.Detector, want string) (*record.Episode, error) {
	var v struct {
		Subgroup    string `json:"subgroup"`
		Goal        string `json:"goal"`
		Constraints []struct {
			Text   string `json:"text"`
			NormID string `json:"norm_id"`
			Reveal string `json:"reveal"`
		} `json:"constraints"`
		Opening string `json:"opening"`
	}
	if err := jsonUnmarshal(raw, &v); err != nil {
		return nil, err
	}
	ep := &record.Episode{Subgroup: v.Subgroup, Domain: slot.Domain, Goal: v.Goal, Opening: v.Opening}
	if slot.Subgroup != "" {
		ep.Subgroup = slot.Subgroup
	}
	for _, c := range v.Constraints {
		id := strings.TrimSpace(c.NormID)
		if id != "" && !slices.ContainsFunc(norms, func(n normbank.Norm) bool { return n.ID == id }) {
			return nil, fmt.Errorf("norm_id %q is not one of the norms listed: give one of their ids, or \"\"", id)
		}
		ep.Constraints = append(ep.Constraints, record.Constraint{Text: c.Text, NormID: id, Reveal: c.Reveal})
	}
	episode.Normalize(ep)
	if ep.Subgroup == "" {
		return nil, errors.New("the subgroup is empty")
	}
	if err := episode.Validate(ep); err != nil {
		return nil, err
	}
	if r := det.Detect(ep.Opening); r.Lang != want || r.Confidence < lang.MinConfidence {
		got := r.Lang
		if got == "" || r.Confidence < lang.MinConfidence {
			got = "no clear language"
		}
		return nil, fmt.Errorf("the opening is in %s, it must be in %s (%s)", got, lang.Name(want), want)
	}
	return ep, nil
}

// offered are up to NormsOffered norms of the culture, a stable handful per
// slot (starting at a place chosen by its id), so that the episodes of a
// culture rest on different norms.
func offered(norms []normbank.Norm, culture, key string) []normbank.Norm {
	var of []normbank.Norm
	for _, n := range norms {
		if n.Culture == culture {
			of = append(of, n)
		}
	}
	if len(of) <= NormsOffered {
		return of
	}
	h := fnv.New32a()
	h.Write([]byte(key))
	start := int(h.Sum32() % uint32(len(of)))
	out := make([]normbank.Norm, 0, NormsOffered)
	for i := range NormsOffered {
		out = append(out, of[(start+i)%len(of)])
	}
	return out
}

func jsonUnmarshal(raw []byte, v any) error {
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("not a seed_episode reply: %v", err)
	}
	return nil
}
