package v2r

import (
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ngkit/ngkit/filters/imports"
	"github.com/ngkit/ngkit/filters/v2r/v2rtest"
	"github.com/ngkit/ngkit/pkg/llm/llmtest"
	"github.com/ngkit/ngkit/pkg/record"
)

// The tests' fake model answers with real dialogues: those of the
// NormGenesis release sample (testdata/normgenesis), imported by ngcat's
// importer, each the reply to a seed made of the same release record's
// culture, category, norm, type, scenario and situation (v2rtest).

var cultures = []string{"american", "chinese", "korean"}

var release = sync.OnceValues(func() ([]*record.Record, error) {
	return imports.ReadNormGenesis(v2rtest.ReleaseFiles())
})

// pair is a seed and the release dialogue that answers it.
type pair struct {
	seed *record.Record
	d    Dialogue // turns with scripted stages
	src  string   // release file#index
}

// releasePairs are v2rtest.Pairs under the default rules.
func releasePairs(t testing.TB, culture, typ string) []pair {
	t.Helper()
	recs, err := release()
	if err != nil {
		t.Fatal(err)
	}
	var out []pair
	for _, p := range v2rtest.Pairs(recs, culture, typ, checkDefault) {
		out = append(out, pair{seed: p.Seed, d: Dialogue{Turns: p.Turns, Narration: p.Narration, NarrationAt: p.NarrationAt}, src: p.Src})
	}
	if len(out) < 3 {
		t.Fatalf("%s %s: only %d usable release dialogues", culture, typ, len(out))
	}
	return out
}

var defaultRules = Rules{MinTurns: record.DefaultMinTurns, MaxTurns: record.DefaultMaxTurns, MinLangShare: 1}

// checkDefault is defaultRules as a v2rtest.Check.
func checkDefault(turns []record.Turn, narration []string, typ, lang string) error {
	_, err := defaultRules.Check(&Dialogue{Turns: turns, Narration: narration}, typ, lang)
	return err
}

func cloneDialogue(d Dialogue) *Dialogue {
	return &Dialogue{Turns: append([]record.Turn(nil), d.Turns...), Narration: append([]string(nil), d.Narration...), NarrationAt: append([]int(nil), d.NarrationAt...)}
}

// jsonOf is the JSON reply the schema of typ asks for.
func jsonOf(d Dialogue, typ string) string { return v2rtest.JSON(d.Turns, d.Narration, typ) }

// textOf is the text-mode reply, each turn's line led by its stage tag.
func textOf(d Dialogue) string { return v2rtest.Text(d.Turns, d.Narration, d.NarrationAt) }

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
	first := v2rtest.FirstUser(req)
	f.mu.Lock()
	defer f.mu.Unlock()
	best := v2rtest.ScenarioLine(first)
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
