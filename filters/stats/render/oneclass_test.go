package render

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/pkg/record"
)

// realRecords are the records a step of a real-model run wrote
// (testdata/realmodels/steps.jsonl).
func realRecords(t *testing.T, step string) []*record.Record {
	t.Helper()
	f, err := os.Open("../../../testdata/realmodels/steps.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var s struct {
			Name string
			Out  []*record.Record
		}
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatal(err)
		}
		if s.Name == step {
			return s.Out
		}
	}
	t.Fatalf("no step %s", step)
	return nil
}

// The warnings of stats' TestOneClassLabellings: Qwen2.5-Coder-1.5B's
// one-class labelling warns, per task; a labelling that tells turns apart
// does not, a panel member who labels it all one way does.
func TestOneClassWarnings(t *testing.T) {
	qwen := realRecords(t, "korean-nglabel-qwen")
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
