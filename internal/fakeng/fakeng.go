// Package fakeng is one fake model for every stage of the pipeline, for
// shell tests of ngseed | ngrefine | ngv2r | nglabel on the fake server
// (pkg/llm/llmtest): it sends each request, by the name of its reply
// schema, to the fake of that stage's tests, which answer with real
// release text. Refinement accepts every seed as it is; ngv2r's fit
// judge (--check-fit) is internal/fakefit's (fit.go).
package fakeng

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ngkit/ngkit/filters/imports"
	"github.com/ngkit/ngkit/filters/label/labeltest"
	"github.com/ngkit/ngkit/filters/refine/refinetest"
	"github.com/ngkit/ngkit/filters/seed/seedtest"
	"github.com/ngkit/ngkit/filters/v2r"
	"github.com/ngkit/ngkit/filters/v2r/v2rtest"
	"github.com/ngkit/ngkit/pkg/llm/llmtest"
	"github.com/ngkit/ngkit/pkg/record"
)

// Model answers ngseed, ngrefine, ngv2r and nglabel.
type Model struct {
	seed   *seedtest.Replier
	refine *refinetest.Model
	v2r    *v2rtest.Replier
	// Pact is the bias of the fake model under test of ngpact (pact.go).
	Pact PactBias
	// LabelVariant, when not 0, makes this model a labeller that differs
	// from the others of a panel: the intent of every turn whose index
	// plus LabelVariant is a multiple of 4 becomes another code.
	LabelVariant int
}

// Rules are ngv2r's defaults: the fake's dialogues pass them.
var Rules = v2r.Rules{MinTurns: record.DefaultMinTurns, MaxTurns: record.DefaultMaxTurns, MinLangShare: 1}

// New loads the release fixtures of the stages' fakes from the repository.
func New() (*Model, error) { return Load(seedtest.Path(), v2rtest.ReleaseFiles()) }

// Load loads the fixtures from the files given: ngseed's pool
// (testdata/seed/release.jsonl) and the release sample's files
// (testdata/normgenesis/*.json).
func Load(poolFile string, releaseFiles []string) (*Model, error) {
	pool, err := seedtest.Load(poolFile)
	if err != nil {
		return nil, err
	}
	recs, err := imports.ReadNormGenesis(releaseFiles)
	if err != nil {
		return nil, err
	}
	check := func(turns []record.Turn, narration []string, typ, lang string) error {
		_, err := Rules.Check(&v2r.Dialogue{Turns: turns, Narration: narration}, typ, lang)
		return err
	}
	rep, err := v2rtest.NewReplier(recs, check, "american", "chinese", "korean")
	if err != nil {
		return nil, err
	}
	rep.Own = true // a seed of the release gets its own dialogue: it fits (--check-fit)
	return &Model{seed: &seedtest.Replier{Pool: pool}, refine: refinetest.New(), v2r: rep}, nil
}

// Reply is an llmtest.Options.Reply.
func (m *Model) Reply(req *llmtest.ChatRequest) string {
	if s, ok := m.pactReply(req); ok {
		return s
	}
	name := req.SchemaName()
	switch {
	case name == "seed_episode":
		return episodeSpec(req)
	case name == "sim_user":
		return simUser(req)
	case name == "sim_judge":
		return simJudge(req)
	case name == "":
		return simAssistant(req)
	case strings.HasPrefix(name, "seed_"):
		return m.seed.Reply(req)
	case strings.HasPrefix(name, "refine_"):
		return m.refine.Reply(req)
	case name == v2r.FitSchema:
		return fit(req)
	case strings.HasPrefix(name, "v2r_dialogue_"):
		return m.v2r.Reply(req)
	case strings.HasPrefix(name, "label_turns") && m.LabelVariant != 0:
		return variant(labeltest.Answer(req), m.LabelVariant)
	case strings.HasPrefix(name, "label_"):
		return labeltest.Answer(req)
	}
	return fmt.Sprintf("no fake reply for schema %q", name)
}

// variant changes the intents of a label_turns reply (see LabelVariant).
func variant(content string, v int) string {
	var r labeltest.Reply
	if json.Unmarshal([]byte(content), &r) != nil {
		return content
	}
	for i := range r.Turns {
		if (r.Turns[i].Index+v)%4 != 0 || r.Turns[i].Intent == "" {
			continue
		}
		if r.Turns[i].Intent == "NR" {
			r.Turns[i].Intent = "ACK"
		} else {
			r.Turns[i].Intent = "NR"
		}
	}
	b, _ := json.Marshal(r)
	return string(b)
}
