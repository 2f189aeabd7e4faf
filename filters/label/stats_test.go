package label

import (
	"slices"
	"testing"

	"github.com/ngkit/ngkit/filters/stats"
	"github.com/ngkit/ngkit/pkg/audit"
)

// ngstats documents every consistency defect and reads the pairwise field.
func TestStatsKnowsLabelOutputs(t *testing.T) {
	names := audit.DefectNames()
	for _, d := range Defects {
		if !slices.Contains(names, d) {
			t.Errorf("ngstats does not document the defect %s", d)
		}
	}
	if stats.PairwiseKey != PairwiseKey {
		t.Errorf("ngstats reads %q, nglabel writes %q", stats.PairwiseKey, PairwiseKey)
	}
}
