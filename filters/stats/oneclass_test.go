package stats

import (
	"strings"
	"testing"

	"github.com/ngkit/ngkit/filters/stats/internal/statstest"
)

// Qwen2.5-Coder-1.5B labelled every turn of a Korean dialogue
// not_relevant / NR: valid and useless. The report counts it per model
// (render's TestOneClassWarnings warns of it); a labelling that tells
// turns apart is not counted.
func TestOneClassLabellings(t *testing.T) {
	qwen := statstest.RealRecords(t, "korean-nglabel-qwen")
	if len(qwen) != 1 {
		t.Fatalf("%d records", len(qwen))
	}
	r := collect(t, qwen...)
	if r.Labels == nil || len(r.Labels.OneClass) != 2 {
		t.Fatalf("one-class labellings: %+v", r.Labels)
	}
	norm := r.Labels.OneClass[0]
	if norm.Model != "qwen2.5-coder-1.5b-instruct-q4_k_m" || norm.Task != "norm" || norm.Dialogues != 1 || norm.OneClass != 1 || norm.Share != 1 || norm.Labels["not_relevant"] != 1 {
		t.Errorf("norm: %+v", norm)
	}

	// the same dialogue labelled turn by turn, and a panel member who
	// labels it all one way, beside one who does not
	good := statstest.TurnByTurn(qwen[0])
	r = collect(t, good)
	var got []string
	for _, o := range r.Labels.OneClass {
		got = append(got, o.Model+"/"+o.Task)
	}
	if strings.Join(got, " ") != "a/norm b/norm" {
		t.Errorf("counted %v, want the panel members' norm labellings only", got)
	}
}
