package review

import (
	"os"
	"slices"
	"testing"

	"github.com/ngkit/ngkit/pkg/record"
)

// FuzzDecodeReview: any bytes, as a Label Studio task or an Argilla
// record, give an error or a record whose reviewers' labels are all from
// the closed sets, on turns that exist, and whose verdict is accept,
// reject or none; never a panic.
func FuzzDecodeReview(f *testing.F) {
	for _, p := range []string{"../../testdata/review/labelstudio_export.json", "../../testdata/review/argilla_export.json", "../../testdata/review/argilla_nested.json", "../../testdata/review/argilla_sdk_flat.json", "../../testdata/review/argilla_sdk_datasets.jsonl"} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"data":{"dialogue":[{"author":"A","text":"(x) y"}]},"annotations":[{"result":[{"from_name":"norm","type":"paragraphlabels","value":{"start":"0","end":"9","paragraphlabels":["adhered"]}}]}]}`))
	f.Add([]byte(`{"id":"a","fields":{"dialogue":[{"role":"A","content":"hi"}]},"responses":{"norm_0":[{"value":"violated","user_id":"u"}]}}`))
	f.Add([]byte(`{"id":"a","dialogue":[{"role":"A","content":"X: hi"}],"speakers":["X"],"norm_0.responses":["violated","adhered"],"norm_0.responses.users":["u","v"],"norm_0.responses.status":["submitted","draft"]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, decode := range []func([]byte) (*record.Record, error){DecodeLabelStudio, DecodeArgilla} {
			r, err := decode(b)
			if err != nil {
				continue
			}
			for i, turn := range r.Turns {
				for _, task := range record.LabelTaskNames() {
					if v := turn.LabelsHuman.Get(task); v != "" && !slices.Contains(record.LabelSet(task), v) {
						t.Fatalf("turn %d: %s label %q outside its set", i, task, v)
					}
				}
			}
			if rv := r.Review; rv != nil && rv.Verdict != "" && rv.Verdict != record.VerdictAccept && rv.Verdict != record.VerdictReject {
				t.Fatalf("verdict %q", rv.Verdict)
			}
		}
	})
}
