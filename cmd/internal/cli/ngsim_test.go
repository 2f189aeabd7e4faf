package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/internal/fakeng"
	"github.com/ngkit/ngkit/internal/testkit"
	"github.com/ngkit/ngkit/pkg/llm/llmtest"
	"github.com/ngkit/ngkit/pkg/normbank"
)

// The flow of the issue, on the fake model, for each of the ten East and
// Southeast Asian cultures: ngseed --types episode | ngsim --assistants
// a,b --mode benchmark | ngstats. Two assistants on the models file (b
// breaks c2 in every reply), the user and the judge on their own aliases:
// every spec is run against both; episodes, turns and languages are as
// scripted; each call is on its role's endpoint; ngstats reads them.
func TestEpisodePipelineTenCultures(t *testing.T) {
	m, err := fakeng.New()
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New(llmtest.Options{Reply: m.Reply})
	defer srv.Close()
	models := filepath.Join(t.TempDir(), "models.yaml")
	var b strings.Builder
	b.WriteString("endpoints:\n")
	for _, e := range [][2]string{{"a", "good"}, {"b", "violate-c2"}, {"sim", "sim"}, {"judge", "judge"}, {"writer", "writer"}} {
		fmt.Fprintf(&b, "  %s:\n    base_url: %s\n    model: %s\n", e[0], srv.URL, e[1])
	}
	b.WriteString("roles:\n  writer: writer\n  user: sim\n  judge: judge\n")
	if err := os.WriteFile(models, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"HOME": t.TempDir()}
	cultures := []string{"japanese", "vietnamese", "thai", "indonesian", "filipino", "malaysian", "singaporean", "taiwanese", "chinese", "korean"}
	for _, c := range cultures {
		prof, err := normbank.Profile(c)
		if err != nil {
			t.Fatal(err)
		}
		code, specs, stderr := runWith(Ngseed, vars, "", testkit.FastRetryFlags("--models", models, "--types", "episode", "--culture", c, "--domains", "health,work")...)
		if code != 0 {
			t.Fatalf("%s: ngseed exit %d: %s", c, code, stderr)
		}
		code, eps, stderr := runWith(Ngsim, vars, specs, testkit.FastRetryFlags("--models", models, "--assistants", "a,b", "--mode", "benchmark")...)
		if code != 0 {
			t.Fatalf("%s: ngsim exit %d: %s", c, code, stderr)
		}
		recs := readJSONL(t, eps)
		if len(recs) != 4 {
			t.Fatalf("%s: %d episodes, want 4 (2 specs x 2 assistants)", c, len(recs))
		}
		for i, r := range recs {
			want := []string{"a", "b"}[i%2]
			if r.Sim.Assistant != want || r.Sim.End != "goal_met" || len(r.Turns) != 7 || r.Lang != prof.Lang {
				t.Errorf("%s: episode %d: assistant %s, end %s, %d turns, lang %s", c, i, r.Sim.Assistant, r.Sim.End, len(r.Turns), r.Lang)
			}
			wrong := 0
			for _, turn := range r.Turns {
				if turn.Lang != "" && turn.Lang != prof.Lang {
					wrong++
				}
			}
			if wrong > 0 {
				t.Errorf("%s: episode %d: %d turns detected in another language", c, i, wrong)
			}
			out := r.Sim.Judge.Constraints[1].Outcome
			if (want == "b") != (out == "violated") {
				t.Errorf("%s: assistant %s: c2 %s", c, want, out)
			}
			for _, g := range r.Gen {
				if wantAlias := map[string]string{"writer": "writer", "user": "sim", "judge": "judge", "assistant": want}[g.Role]; g.Endpoint != wantAlias {
					t.Errorf("%s: %s call %s on %s", c, g.Role, g.Call, g.Endpoint)
				}
			}
		}
		code, report, stderr := runWith(Ngstats, vars, eps, "--json")
		if code != 0 || !strings.Contains(report, `"records": 4`) && !strings.Contains(report, `"records":4`) {
			t.Errorf("%s: ngstats exit %d: %s %.300s", c, code, stderr, report)
		}
	}
}
