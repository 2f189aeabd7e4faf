package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/filters/stats"
	"github.com/ngkit/ngkit/internal/testkit"
	"github.com/ngkit/ngkit/pkg/record"
)

// ngstats on PACT results and simulated episodes, from JSONL and from
// Parquet (the same report), in JSON and in HTML with --by.
func TestNgstatsPactAndSim(t *testing.T) {
	p := func(f float64) *float64 { return &f }
	res := func(model string, pf *float64) record.PactResult {
		r := record.PactResult{Model: model, Question: record.PactChoice, Method: "logprobs", Samples: 1, PFollow: pf}
		if pf != nil {
			r.Valid = 1
		}
		return r
	}
	item := &record.PactItem{Actor: "guest", Expectation: "remove shoes", Preference: "keep them on", FollowOption: "remove", AllowOption: "keep",
		Human: &record.HumanShare{FollowCulture: 0.8, N: 10}}
	recs := []*record.Record{
		{ID: "i1-f", VariantOf: "i1", Culture: "korean", Persona: map[string]string{"gender": "female"}, PactItem: item,
			Pact: []record.PactResult{res("a", p(0.9)), res("b", p(0.7))}},
		{ID: "i1-m", VariantOf: "i1", Culture: "korean", Persona: map[string]string{"gender": "male"}, PactItem: item,
			Pact: []record.PactResult{res("a", p(0.8)), res("b", nil)}},
		{ID: "e1", Culture: "thai", Episode: &record.Episode{Subgroup: "Bangkok", Domain: "food", Goal: "dinner",
			Constraints: []record.Constraint{{ID: "c1", Text: "no beef"}}},
			Sim: &record.Sim{Assistant: "x", Mode: "benchmark", End: "goal_met",
				Judge: &record.SimJudge{Assistance: 4, Cultural: 5, Language: 5, Constraints: []record.ConstraintOutcome{{ID: "c1", Outcome: record.OutcomeInferred}}}}},
	}
	in := testkit.JSONL(t, recs)
	code, js, stderr := run(t, Ngstats, in, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r stats.Report
	if err := json.Unmarshal([]byte(js), &r); err != nil {
		t.Fatal(err)
	}
	if r.Pact == nil || r.Pact.Items != 2 || len(r.Pact.Questions) != 1 || r.Sim == nil || r.Sim.Episodes != 1 ||
		len(r.Sim.Leaderboard) != 1 || r.Sim.Leaderboard[0].Inferred.Mean != 1 {
		t.Fatalf("report: pact %+v sim %+v", r.Pact, r.Sim)
	}
	q := r.Pact.Questions[0]
	if len(q.Effects) != 1 || q.Effects[0].Model != "a" || q.Effects[0].Attr != "gender" || q.Effects[0].MeanAbsPP.Mean < 9.99 || q.Effects[0].MeanAbsPP.Mean > 10.01 {
		t.Errorf("effects %+v", q.Effects)
	}
	if len(q.Human) != 2 || len(q.Agreement) != 1 || q.Agreement[0].Items != 1 {
		t.Errorf("human %+v agreement %+v", q.Human, q.Agreement)
	}
	if !strings.Contains(js, `"pearson": null`) {
		t.Error("an undefined correlation is not null in the JSON")
	}

	pq := filepath.Join(t.TempDir(), "eval.parquet")
	if code, _, stderr := run(t, Ngcat, in, "-o", pq); code != 0 {
		t.Fatalf("ngcat: %s", stderr)
	}
	if code, fromParquet, stderr := run(t, Ngstats, "", pq, "--json"); code != 0 || fromParquet != js {
		t.Errorf("ngstats on the Parquet file (exit %d %s) differs from the JSONL's report", code, stderr)
	}
	code, html, stderr := run(t, Ngstats, in, "--html", "--by", "gender")
	if code != 0 {
		t.Fatalf("--html: exit %d: %s", code, stderr)
	}
	for _, want := range []string{`id="pact"`, `id="simulation"`, `id="by-persona"`, "gender = female: the whole report of these records"} {
		if !strings.Contains(html, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
}
