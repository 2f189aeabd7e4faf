package render

import (
	"regexp"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/filters/stats"
	"github.com/ngkit/ngkit/filters/stats/evalmath"
	"github.com/ngkit/ngkit/filters/stats/internal/statstest"
	"github.com/ngkit/ngkit/pkg/audit"
	"github.com/ngkit/ngkit/pkg/record"
)

// evalTestReport has PACT results for two framings, simulated episodes
// and --by groups, with markup in a persona value and a model name.
func evalTestReport(t *testing.T) *stats.Report {
	t.Helper()
	f, m := map[string]string{"gender": "female", "age": "<b>65+</b>"}, map[string]string{"gender": "male", "age": "<b>65+</b>"}
	recs := []*record.Record{
		statstest.PactRec("x-f", "x", "korean", f, statstest.FP(0.9), map[string]*float64{"a": statstest.FP(0.8), "b": statstest.FP(0.6)}),
		statstest.PactRec("x-m", "x", "korean", m, statstest.FP(0.7), map[string]*float64{"a": statstest.FP(0.5), "b": statstest.FP(0.4)}),
		statstest.PactRec("y", "", "american", f, statstest.FP(0.2), map[string]*float64{"a": statstest.FP(0.2), "b": statstest.FP(0.3)}),
		statstest.PactRec("y-m", "y", "american", m, nil, map[string]*float64{"a": statstest.FP(0.4), "b": nil}),
		statstest.SimRec("e1", "gpt<script>", "benchmark", "thai", "food", "goal_met", 6, &[3]int{4, 5, 5}, record.OutcomeInferred, record.OutcomeRespected),
		statstest.SimRec("e2", "gpt<script>", "benchmark", "thai", "health", "max_turns", 16, &[3]int{2, 3, 5}, record.OutcomeViolated),
		statstest.SimRec("e3", "local", "gold", "korean", "food", "goal_met", 4, nil),
	}
	norm := recs[0]
	norm.Pact = append(norm.Pact, record.PactResult{Model: "a", Question: record.PactNorm, Method: "logprobs", PFollow: statstest.FP(0.7), Samples: 1, Valid: 1})
	a := &audit.Audit{MinTurns: 5, MaxTurns: 15, MinLangShare: 0.8}
	c := stats.NewCollector()
	c.ByPersona("gender")
	for _, r := range recs {
		a.Record(r)
		c.Add(r)
	}
	return c.Report()
}

func TestHTMLEvalSections(t *testing.T) {
	h := renderHTML(t, evalTestReport(t))
	for _, want := range []string{
		`<a href="#pact">PACT</a>`, `<a href="#simulation">Simulation</a>`, `<a href="#by-persona">By persona</a>`,
		`id="pact"`, `id="simulation"`, `id="by-persona"`,
		"<h3>Question: choice</h3>", "<h3>Question: norm</h3>",
		`aria-label="Culture-following rate per model, question choice: 2 estimates with 95% intervals, axis 0.0% to 100.0%"`,
		`aria-label="Culture-following rate by culture, question choice: 4 estimates`,
		`aria-label="Counterfactual effect of each attribute, question choice: 2 estimates`,
		`aria-label="Culture-following rate per model, question norm: 1 estimates`,
		// local (gold) has no judge verdict: three scores, one inference rate.
		`aria-label="Judge scores per assistant: 3 estimates with 95% intervals, axis 1.0 to 5.0"`,
		`aria-label="Constraint inference rate per assistant: 1 estimates`,
		`aria-label="Records by persona gender: bar chart of 3 bars`,
		"<h4>PACT, question choice: models against human distributions</h4>",
		"<h4>Simulation leaderboard (benchmark mode)</h4>",
		`<td class="n">47.5% [`,
		"<summary>gender = female: the whole report of these records</summary>",
		"<h4>PACT, question choice: culture-following rate per model</h4>", // inside the groups too
		"&lt;b&gt;65&#43;&lt;/b&gt;", "gpt&lt;script&gt;",
	} {
		if !strings.Contains(h, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	if strings.Contains(h, "<script") || strings.Contains(h, "<b>65") {
		t.Error("markup from the data reached the HTML unescaped")
	}
	// 3 charts for choice, 2 for norm (one model on one item: no effect),
	// 2 simulation; every chart an accessible image.
	charts := regexp.MustCompile(`<svg class="chart [a-z]+" role="img" aria-label="[^"]+"`).FindAllString(h, -1)
	ivs := strings.Count(h, `<svg class="chart iv"`)
	if ivs != 3+2+2 || len(charts) != strings.Count(h, "<svg") {
		t.Errorf("%d interval charts (want 7 = 3+2 choice/norm + 2 sim), %d accessible of %d svg", ivs, len(charts), strings.Count(h, "<svg"))
	}
	// A whisker per estimate: choice 2 + 4 + 2, norm 1 + 1, simulation
	// 3 + 1 = 14 rows, 3 lines each.
	if n := strings.Count(h, `class="whisker"`); n != 14*3 {
		t.Errorf("%d whisker lines, want 42", n)
	}
}

func TestHTMLEvalAbsent(t *testing.T) {
	h := renderHTML(t, htmlTestReport())
	for _, s := range []string{`id="pact"`, `id="simulation"`, `id="by-persona"`, `href="#pact"`} {
		if strings.Contains(h, s) {
			t.Errorf("report without PACT, simulation or --by shows %q", s)
		}
	}
}

func TestIvChartAxis(t *testing.T) {
	if newIvChart("x", "v", 0, 1, pctAxis, []ivItem{{"none", evalmath.Interval{}}}) != nil {
		t.Error("chart of no estimate drawn")
	}
	c := newIvChart("x", "v", 0, 1, pctAxis, []ivItem{{"a", evalmath.Interval{N: 3, Mean: 0.5, Low: 0.25, High: 1}}})
	r := c.Rows[0]
	barMax := float64(chartW - hbarLabelW - hbarValueW)
	if float64(r.W) != 0.5*barMax || float64(r.LowX) != hbarLabelW+0.25*barMax || float64(r.HighX) != hbarLabelW+barMax {
		t.Errorf("row %+v", r)
	}
	for x, want := range map[float64]float64{0: 1, 0.3: 0.5, 7.8: 10, 12: 20, 45: 50} {
		if got := niceCeil(x); got != want {
			t.Errorf("niceCeil(%v) = %v, want %v", x, got, want)
		}
	}
}
