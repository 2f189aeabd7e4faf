package v2r

import (
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ngkit/ngkit/filters/imports"
	"github.com/ngkit/ngkit/pkg/dialogue"
	"github.com/ngkit/ngkit/pkg/llm/llmtest"
	"github.com/ngkit/ngkit/pkg/record"
)

// The tests' fake model answers with real dialogues: those of the
// NormGenesis release sample (testdata/normgenesis), imported by ngcat's
// importer, each the reply to a seed made of the same release record's
// culture, category, norm, type, scenario and situation.

var cultures = []string{"american", "chinese", "korean"}

var release = sync.OnceValues(func() ([]*record.Record, error) {
	files, err := filepath.Glob("../../testdata/normgenesis/*.json")
	if err != nil || len(files) == 0 {
		return nil, errors.New("no release sample in testdata/normgenesis")
	}
	src, err := imports.NewNormGenesis(files, imports.NormGenesisOptions{})
	if err != nil {
		return nil, err
	}
	defer src.Close()
	var out []*record.Record
	for {
		it, err := src.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		rec, err := it.Decode(it.Raw)
		if err != nil {
			return nil, err
		}
		out = append(out, rec)
	}
})

// pair is a seed and the release dialogue that answers it.
type pair struct {
	seed *record.Record
	d    Dialogue // turns with scripted stages
	src  string   // release file#index
}

// releasePairs are the release records of a culture and type whose
// dialogue passes the default rules as it is (the others are the
// release's defects: empty, too long, English lines in a Korean file...).
// The release has no Korean V2R file: Korean V2R pairs are made of the
// Korean violation dialogues, staged by script like every V2R reply.
func releasePairs(t testing.TB, culture, typ string) []pair {
	t.Helper()
	recs, err := release()
	if err != nil {
		t.Fatal(err)
	}
	from := typ
	if culture == "korean" && typ == record.TypeV2R {
		from = record.TypeViolation
	}
	var out []pair
	for _, r := range recs {
		if r.Culture != culture || r.DialogueType != from || len(r.Turns) == 0 || r.Checks != nil && len(r.Checks.Defects) > 0 {
			continue
		}
		seed := &record.Record{
			ID: record.NewID("test-seed", r.ID, typ), Culture: r.Culture, Lang: r.Lang, Category: r.Category,
			NormID: r.NormID, Norm: r.Norm, DialogueType: typ, Scenario: r.Scenario, Situation: r.Situation,
		}
		d := Dialogue{Turns: staged(r.Turns, typ), Narration: r.Narration}
		if _, err := defaultRules.Check(cloneDialogue(d), typ, r.Lang); err != nil {
			continue
		}
		file, _ := r.ExtraString("source_file")
		idx, _ := json.Marshal(r.Extra["source_index"])
		out = append(out, pair{seed: seed, d: d, src: file + "#" + string(idx)})
	}
	if len(out) < 3 {
		t.Fatalf("%s %s: only %d usable release dialogues", culture, typ, len(out))
	}
	return out
}

var defaultRules = Rules{MinTurns: 5, MaxTurns: 15, MinLangShare: 1}

// staged gives the turns of a release dialogue the stages of typ, by a
// fixed script: V2R turns in four runs of about equal length (violation,
// recognition, repair, resolution), with the first turn as context when
// there are 8 or more; in a violation dialogue the second turn is the
// violation.
func staged(turns []record.Turn, typ string) []record.Turn {
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

func cloneDialogue(d Dialogue) *Dialogue {
	return &Dialogue{Turns: append([]record.Turn(nil), d.Turns...), Narration: append([]string(nil), d.Narration...)}
}

// jsonOf is the JSON reply the schema of typ asks for.
func jsonOf(d Dialogue, typ string) string {
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
	for _, t := range d.Turns {
		st := t.Stage
		if typ == record.TypeViolation && st == "" {
			st = "none"
		}
		r.Turns = append(r.Turns, turn{t.Speaker, t.Action, t.Text, st})
	}
	r.Narration = d.Narration
	b, err := json.Marshal(r)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// textOf is the text-mode reply: the dialogue rendered by pkg/dialogue,
// each turn's line led by its stage tag.
func textOf(d Dialogue) string {
	rendered := dialogue.Render(dialogue.Dialogue{Turns: d.Turns, Narration: d.Narration})
	var b strings.Builder
	ti := 0
	for _, line := range strings.Split(rendered, "\n") {
		if ti < len(d.Turns) && strings.HasPrefix(line, d.Turns[ti].Speaker+":") {
			if st := d.Turns[ti].Stage; st != "" {
				b.WriteString("[" + st + "] ")
			}
			ti++
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// fakeModel answers each seed's prompt (found by its scenario in the
// first user message, also when the model is asked again) with the
// replies scripted for it, one per request, the last one repeated.
type fakeModel struct {
	mu      sync.Mutex
	replies map[string][]string // scenario -> replies
	served  map[string]int
}

func newFakeModel() *fakeModel {
	return &fakeModel{replies: map[string][]string{}, served: map[string]int{}}
}

func (f *fakeModel) script(seed *record.Record, replies ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.replies[strings.TrimSpace(seed.Scenario)] = replies
}

func (f *fakeModel) reply(req *llmtest.ChatRequest) string {
	first := ""
	for _, m := range req.Messages {
		if m.Role == "user" {
			first = m.Text()
			break
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	best := scenarioLine(first)
	if _, ok := f.replies[best]; !ok {
		// A prompt of the user's: the longest scenario in it (copies of a
		// seed extend its scenario).
		best = ""
		for sc := range f.replies {
			if len(sc) > len(best) && strings.Contains(first, sc) {
				best = sc
			}
		}
	}
	rs, ok := f.replies[best]
	if !ok {
		return `{"error": "no scripted reply"}`
	}
	i := min(f.served[best], len(rs)-1)
	f.served[best]++
	return rs[i]
}

// scenarioLine is the scenario as the built-in prompts give it, on its
// line after "Scenario: " or "시나리오: ".
func scenarioLine(prompt string) string {
	for line := range strings.SplitSeq(prompt, "\n") {
		for _, p := range []string{"Scenario: ", "시나리오: "} {
			if sc, ok := strings.CutPrefix(line, p); ok {
				return sc
			}
		}
	}
	return ""
}

// copies makes n copies of each pair whose seeds differ (id and scenario)
// but are answered with the same dialogue.
func copies(ps []pair, n int) []pair {
	var out []pair
	for k := 0; k < n; k++ {
		for _, p := range ps {
			s := *p.seed
			if k > 0 {
				s.ID = record.NewID(s.ID, "copy", strconv.Itoa(k))
				s.Scenario = strings.TrimSpace(s.Scenario) + " (" + strconv.Itoa(k) + ")"
			}
			out = append(out, pair{seed: &s, d: p.d, src: p.src})
		}
	}
	return out
}
