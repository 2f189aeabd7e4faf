package label

import (
	"slices"
	"testing"

	"github.com/ngkit/ngkit/pkg/agree"
	"github.com/ngkit/ngkit/pkg/record"
)

// FuzzParseTurns: any reply either fails with a reason or gives exactly
// one entry per turn, in order, with every asked label from its set.
func FuzzParseTurns(f *testing.F) {
	f.Add([]byte(`{"turns":[{"index":0,"norm":"adhered","intent":"QUE","explanation":"x"},{"index":1,"norm":"violated","intent":"CRT","explanation":"y"}]}`), uint8(2))
	f.Add([]byte(`{"turns":[{"index":1,"norm":"adhered","explanation":"x"}]}`), uint8(1))
	f.Add([]byte(`{"turns":[{"index":-1},{"index":0,"safety":"needs_caution","rots":[""],"explanation":"x"}]}`), uint8(1))
	f.Add([]byte(`{"turns":null}`), uint8(0))
	f.Add([]byte(`[]`), uint8(3))
	f.Fuzz(func(t *testing.T, raw []byte, n uint8) {
		spec := turnsSpec{turns: int(n % 32), tasks: []string{"norm", "intent", "safety"}, explainLang: "en", rotsLang: "ko"}
		got, err := parseTurns(raw, spec)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an error without a reason")
			}
			return
		}
		if len(got) != spec.turns {
			t.Fatalf("%d entries for %d turns", len(got), spec.turns)
		}
		for i, e := range got {
			if e.Index == nil || *e.Index != i {
				t.Fatalf("entry %d has index %v", i, e.Index)
			}
			for _, task := range spec.tasks {
				if !slices.Contains(record.LabelSet(task), e.get(task)) {
					t.Fatalf("entry %d: %s %q", i, task, e.get(task))
				}
			}
			if e.Safety != agree.SafetyCasual && len(e.Rots) == 0 {
				t.Fatalf("entry %d: %s without rots", i, e.Safety)
			}
		}
	})
}
