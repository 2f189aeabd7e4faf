// Package v2rreply is the canned dialogue model of ngv2r: it answers
// with real dialogues of NormGenesis release records, given the stages of
// the dialogue type by a fixed script, so that ngv2r's checks run on real
// English, Chinese and Korean text. The built-in demo model answers from
// the records it bundles (testdata/demo), ngv2r's tests
// (filters/v2r/v2rtest) from the release sample (testdata/normgenesis).
//
// It cannot import filters/v2r (v2r's own tests use it): callers pass
// v2r's rules as a Check.
package v2rreply

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode"

	"github.com/ngkit/ngkit/internal/canned/wire"
	"github.com/ngkit/ngkit/pkg/dialogue"
	"github.com/ngkit/ngkit/pkg/record"
)

// Check tells whether a dialogue of type typ in language lang passes
// ngv2r's rules; it may change the turns it is given. Wrap v2r.Rules.Check.
type Check func(turns []record.Turn, narration []string, typ, lang string) error

// Pair is a seed made of a release record and the release dialogue that
// answers it, staged for the seed's type.
type Pair struct {
	Seed      *record.Record
	Turns     []record.Turn
	Narration []string
	// NarrationAt is where each narration line stands (record.NarrationAt).
	NarrationAt []int
	Src         string // release file#index
}

// Pairs are the release records of a culture and type whose dialogue
// passes check as it is (the others are the release's defects: empty, too
// long, English lines in a Korean file...). The release has no Korean V2R
// file: Korean V2R pairs are made of the Korean violation dialogues,
// staged like every V2R reply.
func Pairs(recs []*record.Record, culture, typ string, check Check) []Pair {
	from := typ
	if culture == "korean" && typ == record.TypeV2R {
		from = record.TypeViolation
	}
	var out []Pair
	for _, r := range recs {
		if r.Culture != culture || r.DialogueType != from || len(r.Turns) == 0 || r.Checks != nil && len(r.Checks.Defects) > 0 {
			continue
		}
		turns := Staged(r.Turns, typ)
		if check(append([]record.Turn(nil), turns...), append([]string(nil), r.Narration...), typ, r.Lang) != nil {
			continue
		}
		seed := &record.Record{
			ID: record.NewID("test-seed", r.ID, typ), Culture: r.Culture, Lang: r.Lang, Category: r.Category,
			NormID: r.NormID, Norm: r.Norm, DialogueType: typ, Scenario: r.Scenario, Situation: r.Situation,
		}
		file, _ := r.ExtraString("source_file")
		idx, _ := json.Marshal(r.Extra["source_index"])
		out = append(out, Pair{Seed: seed, Turns: turns, Narration: r.Narration, NarrationAt: r.NarrationAt, Src: file + "#" + string(idx)})
	}
	return out
}

// Staged gives the turns of a release dialogue the stages of typ, by a
// fixed script: V2R turns in four runs of about equal length (violation,
// recognition, repair, resolution), with the first turn as context when
// there are 8 or more; in a violation dialogue the second turn is the
// violation.
func Staged(turns []record.Turn, typ string) []record.Turn {
	out := make([]record.Turn, len(turns))
	n := len(turns)
	for i, t := range turns {
		t.Lang, t.Stage, t.Labels = "", "", nil
		switch typ {
		case record.TypeV2R:
			t.Stage = record.Stages[1+i*4/n]
			if n >= 8 && i == 0 {
				t.Stage = "context"
			}
		case record.TypeViolation:
			if i == 1 {
				t.Stage = "violation"
			}
		}
		out[i] = t
	}
	return out
}

// JSON is the reply the schema of typ asks for.
func JSON(turns []record.Turn, narration []string, typ string) string {
	type turn struct {
		Speaker string `json:"speaker"`
		Action  string `json:"action,omitempty"`
		Text    string `json:"text"`
		Stage   string `json:"stage,omitempty"`
	}
	var r struct {
		Turns     []turn   `json:"turns"`
		Narration []string `json:"narration,omitempty"`
	}
	for _, t := range turns {
		st := t.Stage
		if typ == record.TypeViolation && st == "" {
			st = "none"
		}
		r.Turns = append(r.Turns, turn{t.Speaker, t.Action, t.Text, st})
	}
	r.Narration = narration
	b, err := json.Marshal(r)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// Text is the text-mode reply: the dialogue rendered by pkg/dialogue,
// each turn's line led by its stage tag, each narration line in its
// place (narrationAt, as record.NarrationAt; nil: after the last turn).
func Text(turns []record.Turn, narration []string, narrationAt []int) string {
	rendered := dialogue.Render(dialogue.Dialogue{Turns: turns, Narration: narration, NarrationAt: narrationAt})
	var b strings.Builder
	ti := 0
	for _, line := range strings.Split(rendered, "\n") {
		if ti < len(turns) && strings.HasPrefix(line, turns[ti].Speaker+":") {
			if st := turns[ti].Stage; st != "" {
				b.WriteString("[" + st + "] ")
			}
			ti++
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// FirstUser is the request's first user message: the prompt, also when
// the model is asked again (re-asks add more messages).
func FirstUser(req *wire.ChatRequest) string {
	for _, m := range req.Messages {
		if m.Role == "user" {
			return m.Text()
		}
	}
	return ""
}

// ScenarioLine is the scenario as the built-in prompts give it, on its
// line after "Scenario: " or "시나리오: ".
func ScenarioLine(prompt string) string {
	for line := range strings.SplitSeq(prompt, "\n") {
		for _, p := range []string{"Scenario: ", "시나리오: "} {
			if sc, ok := strings.CutPrefix(line, p); ok {
				return sc
			}
		}
	}
	return ""
}

// Replier answers ngv2r's dialogue calls (JSON mode) of any seed with a
// release dialogue of the seed's culture and type that passes the check.
// A seed (told by its scenario) gets the dialogue at a hash of its
// scenario or, if another seed has it, the next free one, and keeps it
// when asked again: no two seeds share a dialogue (ngstats would count
// duplicates) until the culture's dialogues run out.
type Replier struct {
	// Own answers a seed that is a release record (told by its scenario)
	// with its own release dialogue, as a writer that follows its seed
	// would; the others get one by hash as above.
	Own bool

	pairs map[[2]string][]Pair // culture, type
	own   map[string]int       // culture, type, scenario -> index in pairs

	mu    sync.Mutex
	given map[string]int    // culture, type, scenario -> index in pairs
	taken map[string]string // Src -> the scenario it went to
}

// NewReplier makes a replier of the release records recs (see Release)
// for the cultures, keeping the dialogues check passes.
func NewReplier(recs []*record.Record, check Check, cultures ...string) (*Replier, error) {
	r := &Replier{pairs: map[[2]string][]Pair{}, own: map[string]int{}, given: map[string]int{}, taken: map[string]string{}}
	for _, c := range cultures {
		for _, typ := range record.DialogueTypes {
			ps := Pairs(recs, c, typ, check)
			if len(ps) == 0 {
				return nil, fmt.Errorf("v2rreply: no %s %s dialogue passes the check", c, typ)
			}
			r.pairs[[2]string{c, typ}] = ps
			for i, p := range ps {
				r.own[c+"\x00"+typ+"\x00"+strings.TrimSpace(p.Seed.Scenario)] = i
			}
		}
	}
	return r, nil
}

// Reply answers v2r_dialogue_<type> requests.
func (r *Replier) Reply(req *wire.ChatRequest) string {
	typ, ok := strings.CutPrefix(req.SchemaName(), "v2r_dialogue_")
	if !ok {
		return "no fake reply: not a v2r_dialogue request"
	}
	user := FirstUser(req)
	culture := CultureOf(req)
	ps := r.pairs[[2]string{culture, typ}]
	if len(ps) == 0 { // a culture of the user's: one of the same language
		if c, ok := languageCulture[languageOf(req)]; ok {
			culture, ps = c, r.pairs[[2]string{c, typ}]
		}
	}
	if len(ps) == 0 {
		return fmt.Sprintf("no fake %s dialogue for culture %q", typ, culture)
	}
	scenario := ScenarioLine(user)
	if scenario == "" {
		scenario = user
	}
	key := culture + "\x00" + typ + "\x00" + scenario
	r.mu.Lock()
	i, ok := r.given[key]
	if j, own := r.own[key]; r.Own && own && !ok {
		// a release seed gets its own dialogue even when a seed of no
		// dialogue of its own was given it first by hash (requests come
		// in any order)
		i, ok = j, true
		r.given[key] = i
		r.taken[ps[i].Src] = scenario
	}
	if !ok {
		i = record.Bucket(scenario, len(ps))
		for k := range ps { // the first free one from the hash on
			j := (i + k) % len(ps)
			if _, used := r.taken[ps[j].Src]; !used {
				i = j
				break
			}
		}
		r.given[key] = i
		r.taken[ps[i].Src] = scenario
	}
	r.mu.Unlock()
	return JSON(ps[i].Turns, ps[i].Narration, typ)
}

var (
	cultureLine  = regexp.MustCompile(`set in (\S+) culture`)
	languageLine = regexp.MustCompile(`written entirely in (\p{L}+)`)
	// languageCulture is the release culture whose dialogues stand in for
	// a culture the release lacks, by the language its prompt names.
	languageCulture = map[string]string{"English": "american", "Chinese": "chinese", "Korean": "korean"}
)

// languageOf is the dialogue language a request's system prompt names.
func languageOf(req *wire.ChatRequest) string {
	for _, m := range req.Messages {
		if m.Role == "system" {
			if l := languageLine.FindStringSubmatch(m.Text()); l != nil {
				return l[1]
			}
		}
	}
	return ""
}

// CultureOf tells a request's culture: named in the system prompt ("set
// in Chinese culture"; the Korean prompt says 한국 문화), else by the
// script of the prompt (Hangul: korean, Han: chinese, else american).
func CultureOf(req *wire.ChatRequest) string {
	var all strings.Builder
	for _, m := range req.Messages {
		t := m.Text()
		if m.Role == "system" {
			if c := cultureLine.FindStringSubmatch(t); c != nil {
				return strings.ToLower(c[1])
			}
			if strings.Contains(t, "한국 문화") {
				return "korean"
			}
		}
		all.WriteString(t)
	}
	var hangul, han int
	for _, c := range all.String() {
		switch {
		case unicode.Is(unicode.Hangul, c):
			hangul++
		case unicode.Is(unicode.Han, c):
			han++
		}
	}
	switch {
	case hangul > 0:
		return "korean"
	case han > 0:
		return "chinese"
	}
	return "american"
}
