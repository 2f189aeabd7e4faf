package cli

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ngkit/ngkit/filters/seed/seedtest"
	"github.com/ngkit/ngkit/pkg/lang"
	"github.com/ngkit/ngkit/pkg/llm/llmtest"
	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/record"
)

// seedPool is the fake model's fixture: release scenarios and situations.
var seedPool = sync.OnceValue(func() *seedtest.Pool {
	p, err := seedtest.Load("")
	if err != nil {
		panic(err)
	}
	return p
})

// seedFake starts a fake server that answers ngseed from the release.
func seedFake(t testing.TB, r *seedtest.Replier, opt llmtest.Options) *llmtest.Server {
	if r.Pool == nil {
		r.Pool = seedPool()
	}
	opt.Reply = r.Reply
	srv := llmtest.New(opt)
	t.Cleanup(srv.Close)
	return srv
}

// seedRun runs ngseed against srv with stdin and args (no cache, fast
// retries).
func seedRun(t testing.TB, srv *llmtest.Server, stdin io.Reader, args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	vars := map[string]string{"NG_BASE_URL": srv.URL, "NG_MODEL": "fake"}
	args = append([]string{"--no-cache", "--backoff", "1ms", "--retry-after-cap", "20ms", "-q"}, args...)
	code = Ngseed(pipeline.Env{Args: args, Stdin: stdin, Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string { return vars[k] }})
	return code, out.String(), errb.String()
}

// seedCheck checks what every seed must be, and that its texts are the
// release's (so the checks ran on real text).
func seedCheck(t *testing.T, recs []*record.Record) {
	t.Helper()
	pool := map[string]bool{}
	for _, x := range seedPool().All() {
		pool[x.Scenario], pool[x.Situation] = true, true
	}
	ids := map[string]bool{}
	for _, r := range recs {
		if err := r.Validate(); err != nil {
			t.Errorf("%s: %v", r.ID, err)
		}
		if ids[r.ID] {
			t.Errorf("%s: duplicate id", r.ID)
		}
		ids[r.ID] = true
		c, err := normbank.BuiltinProfile(r.Culture)
		if err != nil {
			t.Fatal(err)
		}
		if r.ParentID == "" || r.Lang != c.Lang || r.Category == "" || r.NormID == "" || r.Norm == "" || r.DialogueType == "" {
			t.Errorf("%s: fields missing: %+v", r.ID, r)
		}
		if !pool[r.Scenario] || !pool[r.Situation] {
			t.Errorf("%s: texts not from the release: %q / %q", r.ID, r.Scenario, r.Situation)
		}
		for _, s := range []string{r.Scenario, r.Situation} {
			if d := lang.Default().Detect(s); d.Lang != c.ScenarioLang {
				t.Errorf("%s: %q is in %s", r.ID, s, d.Lang)
			}
		}
		if n := normbank.Sentences(r.Situation); n < 3 || n > 5 {
			t.Errorf("%s: situation of %d sentences", r.ID, n)
		}
		wantGen := 2 // the scenarios call and the situation call
		if r.DialogueType != record.TypeAdherence {
			wantGen = 1 // the call that derived it
		}
		if len(r.Gen) != wantGen {
			t.Errorf("%s: gen %+v", r.ID, r.Gen)
		}
		for _, g := range r.Gen {
			if g.Stage != "ngseed" || g.PromptPack == "" || g.Model == "" || g.TokensIn == 0 {
				t.Errorf("%s: gen %+v", r.ID, g)
			}
		}
	}
}

// Every culture, every type: per norm, per-norm adherence seeds, each
// followed by its violation and V2R seeds, parent_id linking them, ids
// stable across runs.
func TestNgseedAllCulturesAllTypes(t *testing.T) {
	srv := seedFake(t, &seedtest.Replier{}, llmtest.Options{})
	for _, culture := range normbank.NormCultures() {
		t.Run(culture, func(t *testing.T) {
			args := []string{"--culture", culture, "--limit", "2", "--per-norm", "3", "--types", "adherence,violation,v2r"}
			code, out, stderr := seedRun(t, srv, nil, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			recs := readJSONL(t, out)
			if len(recs) != 2*3*3 {
				t.Fatalf("%d seeds, want 18", len(recs))
			}
			seedCheck(t, recs)
			norms := normbank.Norms(culture, nil)[:2]
			for i, r := range recs {
				norm := norms[i/9]
				adh := recs[i/3*3]
				want := record.DialogueTypes[i%3]
				switch {
				case r.Culture != culture || r.NormID != norm.ID || r.Norm != norm.Text || r.Category != norm.Category:
					t.Errorf("seed %d: norm %s/%s, want %s", i, r.NormID, r.Category, norm.ID)
				case r.DialogueType != want:
					t.Errorf("seed %d: type %s, want %s", i, r.DialogueType, want)
				case want == record.TypeAdherence && r.ParentID != norm.ID:
					t.Errorf("seed %d: parent %s, want the norm %s", i, r.ParentID, norm.ID)
				case want != record.TypeAdherence && r.ParentID != adh.ID:
					t.Errorf("seed %d: parent %s, want the adherence seed %s", i, r.ParentID, adh.ID)
				case r.ID != record.NewID(norm.ID, fmt.Sprint(i%9/3), want):
					t.Errorf("seed %d: id %s is not NewID(norm, index, type)", i, r.ID)
				}
			}
			// A rerun gives the same ids.
			_, again, _ := seedRun(t, srv, nil, args...)
			if got := readJSONL(t, again); !slices.Equal(seedIDs(got), seedIDs(recs)) {
				t.Error("ids differ on a rerun")
			}
		})
	}
}

func seedIDs(recs []*record.Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.ID
	}
	return out
}

// The default: 10 adherence seeds per norm, 1 + 10 calls.
func TestNgseedDefaults(t *testing.T) {
	srv := seedFake(t, &seedtest.Replier{}, llmtest.Options{})
	code, out, stderr := seedRun(t, srv, nil, "--culture", "korean", "--categories", "thanks", "--limit", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	recs := readJSONL(t, out)
	if len(recs) != 10 {
		t.Fatalf("%d seeds, want 10", len(recs))
	}
	seedCheck(t, recs)
	for _, r := range recs {
		if r.DialogueType != record.TypeAdherence || r.Category != "thanks" {
			t.Errorf("%s: %s %s", r.ID, r.DialogueType, r.Category)
		}
	}
	if srv.Count() != 11 {
		t.Errorf("%d calls, want 11", srv.Count())
	}
}
