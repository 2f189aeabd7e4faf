// Package canned is one canned model for every stage of the pipeline:
// the built-in demo model's (cmd/internal/demo) and the fake of the
// end-to-end and shell tests (internal/fakeng). It sends each request, by
// the name of its reply schema, to the canned model of that stage
// (seedreply, v2rreply, labelreply, refinereply, here pact.go and
// sim.go), which answer with real release text. Refinement accepts every
// seed as it is; ngv2r's fit judge (--check-fit) is internal/fakefit's
// (fit.go).
package canned

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ngkit/ngkit/filters/v2r"
	"github.com/ngkit/ngkit/internal/canned/labelreply"
	"github.com/ngkit/ngkit/internal/canned/refinereply"
	"github.com/ngkit/ngkit/internal/canned/seedreply"
	"github.com/ngkit/ngkit/internal/canned/v2rreply"
	"github.com/ngkit/ngkit/internal/canned/wire"
	"github.com/ngkit/ngkit/pkg/recio"
	"github.com/ngkit/ngkit/pkg/record"
)

// Model answers ngseed, ngrefine, ngv2r and nglabel.
type Model struct {
	seed *seedreply.Replier
	v2r  *v2rreply.Replier
	// Pact is the bias of the fake model under test of ngpact (pact.go).
	Pact PactBias
	// LabelVariant, when not 0, makes this model a labeller that differs
	// from the others of a panel: the intent of every turn whose index
	// plus LabelVariant is a multiple of 4 becomes another code.
	LabelVariant int
}

// Rules are ngv2r's defaults: the fake's dialogues pass them.
var Rules = v2r.Rules{MinTurns: record.DefaultMinTurns, MaxTurns: record.DefaultMaxTurns, MinLangShare: 1}

// New makes the model of ngseed's pool and the release records whose
// dialogues answer ngv2r (each seed of the release its own dialogue, so
// that it fits: --check-fit); distinct is seedreply.Replier.Distinct.
func New(pool *seedreply.Pool, distinct bool, recs []*record.Record) (*Model, error) {
	rep, err := v2rreply.NewReplier(recs, check, "american", "chinese", "korean")
	if err != nil {
		return nil, err
	}
	rep.Own = true
	return &Model{seed: &seedreply.Replier{Pool: pool, Distinct: distinct}, v2r: rep}, nil
}

// LoadPool loads the demo's fixture (testdata/demo/release.parquet,
// internal/demopool): release records whose scenarios and situations
// answer ngseed, each norm of a category given its own (Distinct), and
// whose dialogues answer ngv2r, each seed its own record's.
func LoadPool(file string) (*Model, error) {
	recs, err := recio.ReadAll(file)
	if err != nil {
		return nil, err
	}
	pool, err := seedreply.FromRecords(file, recs)
	if err != nil {
		return nil, err
	}
	return New(pool, true, recs)
}

// check is v2rreply's check of a dialogue: ngv2r's default rules.
func check(turns []record.Turn, narration []string, typ, lang string) error {
	_, err := Rules.Check(&v2r.Dialogue{Turns: turns, Narration: narration}, typ, lang)
	return err
}

// Reply is the reply to a request (an llmtest.Options.Reply, a wire.Handler's).
func (m *Model) Reply(req *wire.ChatRequest) string {
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
		return refinereply.Accept(refinereply.Kind(req))
	case name == v2r.FitSchema:
		return fit(req)
	case strings.HasPrefix(name, "v2r_dialogue_"):
		return m.v2r.Reply(req)
	case strings.HasPrefix(name, "label_turns") && m.LabelVariant != 0:
		return variant(labelreply.Answer(req), m.LabelVariant)
	case strings.HasPrefix(name, "label_"):
		return labelreply.Answer(req)
	}
	return fmt.Sprintf("no fake reply for schema %q", name)
}

// variant changes the intents of a label_turns reply (see LabelVariant).
func variant(content string, v int) string {
	var r labelreply.Reply
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
