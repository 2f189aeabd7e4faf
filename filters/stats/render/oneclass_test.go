package render

import (
	"strings"
	"testing"

	"github.com/ngkit/ngkit/filters/stats/internal/statstest"
	"github.com/ngkit/ngkit/pkg/record"
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
	good := *qwen[0]
	good.Turns = append([]record.Turn(nil), qwen[0].Turns...)
	norms := []string{"not_relevant", "adhered", "adhered", "not_relevant", "adhered", "adhered"}
	for i := range good.Turns {
		l := *good.Turns[i].Labels
		l.Norm, l.Intent = norms[i%len(norms)], []string{"NR", "apology"}[i%2]
		l.ByModel = []record.ModelLabels{{Labeller: "a", Norm: l.Norm}, {Labeller: "b", Norm: "adhered"}}
		good.Turns[i].Labels = &l
	}
	good.LabelsMeta = &record.LabelsMeta{Model: "m", Panel: []string{"a", "b"}}
	r = collect(t, &good)
	if w := OneClassWarnings(r.Labels); len(w) != 1 || !strings.HasPrefix(w[0], "warning: b gave every turn one norm label in 1 of 1") {
		t.Errorf("warnings %q", w)
	}
}
