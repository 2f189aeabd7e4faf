package stats

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
	f, err := os.Open("../../testdata/realmodels/steps.jsonl")
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

// Qwen2.5-Coder-1.5B labelled every turn of a Korean dialogue
// not_relevant / NR: valid and useless. The report counts it per model
// (render's TestOneClassWarnings warns of it); a labelling that tells
// turns apart is not counted.
func TestOneClassLabellings(t *testing.T) {
	qwen := realRecords(t, "korean-nglabel-qwen")
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
