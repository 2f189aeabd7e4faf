package stats

import (
	"strings"
	"testing"

	"github.com/ngkit/ngkit/filters/stats/internal/statstest"
	"github.com/ngkit/ngkit/pkg/record"
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
	var got []string
	for _, o := range r.Labels.OneClass {
		got = append(got, o.Model+"/"+o.Task)
	}
	if strings.Join(got, " ") != "a/norm b/norm" {
		t.Errorf("counted %v, want the panel members' norm labellings only", got)
	}
}
