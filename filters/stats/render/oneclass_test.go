package render

import (
	"strings"
	"testing"

	"github.com/ngkit/ngkit/filters/stats/internal/statstest"
)

// The warnings of stats' TestOneClassLabellings: Qwen2.5-Coder-1.5B's
// one-class labelling warns, per task; a labelling that tells turns apart
// does not, a panel member who labels it all one way does.
func TestOneClassWarnings(t *testing.T) {
	qwen := statstest.RealRecords(t, "korean-nglabel-qwen")
	r := collect(t, qwen...)
	w := OneClassWarnings(r.Labels)
	if len(w) != 2 || !strings.Contains(w[0], "qwen2.5-coder-1.5b-instruct-q4_k_m gave every turn one norm label in 1 of 1 dialogues") || !strings.Contains(w[1], "NR 1") {
		t.Errorf("warnings %q", w)
	}

	// the same dialogue labelled turn by turn, and a panel member who
	// labels it all one way, beside one who does not
	good := statstest.TurnByTurn(qwen[0])
	r = collect(t, good)
	if w := OneClassWarnings(r.Labels); len(w) != 1 || !strings.HasPrefix(w[0], "warning: b gave every turn one norm label in 1 of 1") {
		t.Errorf("warnings %q", w)
	}
}
