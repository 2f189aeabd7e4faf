// Package refinetest is a fake refinement model for tests of ngrefine
// against the fake server (pkg/llm/llmtest): it answers the judge and
// rewrite requests of filters/refine from per-seed scripts, recognising
// the version asked about by the scenario in the prompt's <seed> block.
// Its replies are real release text (testdata/refine/release.jsonl), so
// the language checks and the length rules run on real Korean, Chinese
// and English.
package refinetest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/ngkit/ngkit/internal/canned/refinereply"
	"github.com/ngkit/ngkit/pkg/llm/llmtest"
	"github.com/ngkit/ngkit/pkg/record"
)

// Version is one version of a scripted seed: the seed itself (the first
// of a Script) or what a rewrite returns, and how the judge scores it.
type Version struct {
	Scenario, Situation string
	// TR, LQ and SP are the judge's scores (SP only after a rewrite).
	TR, LQ, SP int
	Critique   string
	// InvalidJudge is the number of invalid judge replies for this version
	// before a valid one: a score of 7 first, then a missing field.
	InvalidJudge int
	// WrongLang is the number of rewrites into this version that come back
	// in the wrong language (English; French for English cultures) first.
	WrongLang int
}

// Script is what the model does with one seed: Versions[0] is the seed
// as sent, Versions[i] what the i-th rewrite returns.
type Script struct {
	Versions []Version
}

// Model answers refine requests; it is safe for concurrent use.
type Model struct {
	mu       sync.Mutex
	versions map[string]ref // scenario -> where it is scripted
	seen     map[string]int // kind + scenario -> replies given
	// Default answers requests about seeds no script knows (nil: Accept).
	Default func(req *llmtest.ChatRequest, kind, scenario string) string
}

type ref struct {
	s *Script
	i int
}

// New returns a model with the scripts.
func New(scripts ...*Script) *Model {
	m := &Model{versions: map[string]ref{}, seen: map[string]int{}}
	for _, s := range scripts {
		m.Add(s)
	}
	return m
}

// Add scripts one more seed; every scenario must be new to the model.
func (m *Model) Add(s *Script) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, v := range s.Versions {
		if _, dup := m.versions[v.Scenario]; dup {
			panic("refinetest: scenario scripted twice: " + v.Scenario)
		}
		m.versions[v.Scenario] = ref{s, i}
	}
}

// Request kinds, the reply schemas' titles.
const (
	Judge   = refinereply.Judge
	Rejudge = refinereply.Rejudge
	Rewrite = refinereply.Rewrite
)

// Kind is the reply schema's title of a request ("" if none).
func Kind(req *llmtest.ChatRequest) string { return refinereply.Kind(req) }

// SeedScenario is the scenario in the <seed> block of the request's first
// user message (the prompt, also when the model is asked again).
func SeedScenario(req *llmtest.ChatRequest) string {
	for _, msg := range req.Messages {
		if msg.Role != "user" {
			continue
		}
		t := msg.Text()
		_, block, ok := strings.Cut(t, "<seed>\n")
		if !ok {
			return ""
		}
		line, _, _ := strings.Cut(block, "\n")
		_, scenario, _ := strings.Cut(line, ": ")
		return scenario
	}
	return ""
}

// Reply is the llmtest.Options.Reply of the model.
func (m *Model) Reply(req *llmtest.ChatRequest) string {
	kind, scenario := Kind(req), SeedScenario(req)
	m.mu.Lock()
	r, ok := m.versions[scenario]
	n := m.seen[kind+"\x00"+scenario]
	m.seen[kind+"\x00"+scenario] = n + 1
	m.mu.Unlock()
	if !ok {
		if m.Default != nil {
			return m.Default(req, kind, scenario)
		}
		return Accept(kind)
	}
	v := r.s.Versions[r.i]
	switch kind {
	case Judge, Rejudge:
		if n < v.InvalidJudge {
			if n%2 == 0 {
				return `{"task_relevance": 7, "linguistic_quality": 4, "semantic_preservation": 4, "critique": "Out of range."}`
			}
			return `{"task_relevance": 4, "critique": "A score is missing."}`
		}
		sp := 0
		if kind == Rejudge {
			sp = v.SP
		}
		c := v.Critique
		if c == "" {
			c = fmt.Sprintf("Critique of version %d.", r.i)
		}
		return Judged(v.TR, v.LQ, sp, c)
	case Rewrite:
		if r.i+1 >= len(r.s.Versions) {
			return `{"scenario": "", "situation": ""}` // not scripted: the schema refuses it
		}
		next := r.s.Versions[r.i+1]
		if n < next.WrongLang {
			if isEnglish(next.Scenario) {
				return Rewritten(french.Scenario, french.Situation)
			}
			return Rewritten(english.Scenario, english.Situation)
		}
		return Rewritten(next.Scenario, next.Situation)
	}
	return "{}"
}

// Accept is a judge reply with 5 on every criterion (for Judge and
// Rejudge); "{}" for other kinds.
func Accept(kind string) string { return refinereply.Accept(kind) }

// Judged is a judge reply; sp 0 leaves semantic preservation out.
func Judged(tr, lq, sp int, critique string) string {
	return refinereply.Judged(tr, lq, sp, critique)
}

// Rewritten is a rewrite reply.
func Rewritten(scenario, situation string) string {
	b, _ := json.Marshal(map[string]string{"scenario": scenario, "situation": situation})
	return string(b)
}

// Wrong-language rewrites: well-formed, in the wrong language.
var (
	english = Version{Scenario: "Minsu apologises to his manager for being late to the weekly meeting.",
		Situation: "Minsu is a junior employee who joined the team last spring. He arrives ten minutes late to the weekly meeting on Monday morning. His manager, Ms. Park, pauses the meeting and looks at him."}
	french = Version{Scenario: "Marie remercie sa voisine qui a gardé son chat pendant les vacances.",
		Situation: "Marie rentre de vacances un dimanche soir. Sa voisine, Madame Dubois, a nourri son chat pendant deux semaines. Marie sonne chez elle avec une boîte de chocolats pour la remercier."}
)

func isEnglish(s string) bool {
	for _, r := range s {
		if r >= 0x3000 {
			return false
		}
	}
	return true
}

// LoadFixture reads testdata/refine/release.jsonl (give its path).
func LoadFixture(path string) ([]*record.Record, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []*record.Record
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		r := &record.Record{}
		if err := r.UnmarshalJSON(sc.Bytes()); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		out = append(out, r)
	}
	return out, sc.Err()
}

// FixtureKind is the kind of a fixture record: "clean" (passes the exemplar audit) or
// "flawed" (breaks it: wrong language or a situation too long).
func FixtureKind(r *record.Record) string {
	k, _ := r.ExtraString("fixture")
	return k
}

// Pool hands out fixture records by culture and category, each once, so
// that no scenario is scripted twice.
type Pool struct {
	by map[string][]*record.Record
}

// NewPool makes a pool of the clean records of recs.
func NewPool(recs []*record.Record) *Pool {
	p := &Pool{by: map[string][]*record.Record{}}
	for _, r := range recs {
		if FixtureKind(r) == "clean" {
			k := r.Culture + "/" + r.Category
			p.by[k] = append(p.by[k], r)
		}
	}
	return p
}

// Take returns the next unused record of a culture and category, and
// false when there is none left.
func (p *Pool) Take(culture, category string) (*record.Record, bool) {
	k := culture + "/" + category
	if len(p.by[k]) == 0 {
		return nil, false
	}
	r := p.by[k][0]
	p.by[k] = p.by[k][1:]
	return r, true
}

// Left is the number of records left of a culture and category.
func (p *Pool) Left(culture, category string) int { return len(p.by[culture+"/"+category]) }
