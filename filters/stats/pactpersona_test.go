package stats

import (
	"strings"
	"testing"

	"github.com/ngkit/ngkit/filters/stats/internal/statstest"
)

// TestPactPersonaNotComputable: without a row the figure says why, one
// reason per case (render's TestPactPersonaReasonText shows it); a persona
// matches its subgroup by the exact strings, and its result counts in no
// other figure.
func TestPactPersonaNotComputable(t *testing.T) {
	cases, item, india := statstest.PersonaCases()
	for _, c := range cases {
		r := collect(t, c.Recs...)
		run := r.Pact.Persona
		if run == nil || len(run.Alignment) != 0 || !strings.HasPrefix(run.NotComputable, c.Why) {
			t.Errorf("%s: %+v, want the reason %q", c.Name, run, c.Why)
			continue
		}
		if r.Pact.Items != 1 || r.Pact.Questions[0].Rates[0].Results != 1 {
			t.Errorf("%s: the persona-prompted results count in the persona-free figures: %d items", c.Name, r.Pact.Items)
		}
	}
	// the matching persona has its row: the subgroup's share (allow: 0)
	// against the decision (follow)
	r := collect(t, item("it-1", "", "", india), item("p1", "India", "young woman"))
	run := r.Pact.Persona
	if len(run.Alignment) != 1 || run.NotComputable != "" || run.Alignment[0].HumanCultureRate != 0 || run.Alignment[0].Majority.Mean != 0 ||
		run.Alignment[0].MAE.Mean != 1 || run.Alignment[0].SignedGapPP.Mean != 100 {
		t.Errorf("%+v", run)
	}
}
