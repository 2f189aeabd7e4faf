package sim

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/pkg/record"
)

// FuzzParseUserReply: any bytes as a simulator reply. Invariant: no panic;
// an accepted reply has a trimmed, non-empty message and revealed ids
// trimmed, non-empty and distinct, and parsing it again once re-encoded
// gives the same reply.
func FuzzParseUserReply(f *testing.F) {
	for _, s := range []string{
		`{"message":"hi","goal_met":false,"revealed":["c1"]}`,
		`{"message":"  ","goal_met":true,"revealed":[]}`,
		`{"message":"x","goal_met":true,"revealed":[" c1 ","c1",""]}`,
		`{"message":"x","goal_met":1,"revealed":[]}`,
		`{"message":"x","goal_met":false,"revealed":[],"extra":1}`,
		`{"message":"x","goal_met":false,"revealed":[]} trailing`,
		`null`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := ParseUserReply(data)
		if err != nil {
			return
		}
		if v.Message == "" || v.Message != strings.TrimSpace(v.Message) {
			t.Fatalf("message %q", v.Message)
		}
		for i, id := range v.Revealed {
			if id == "" || id != strings.TrimSpace(id) || slices.Index(v.Revealed, id) != i {
				t.Fatalf("revealed %q", v.Revealed)
			}
		}
		b, _ := json.Marshal(map[string]any{"message": v.Message, "goal_met": v.GoalMet, "revealed": append([]string{}, v.Revealed...)})
		w, err := ParseUserReply(b)
		if err != nil || w.Message != v.Message || w.GoalMet != v.GoalMet || !slices.Equal(w.Revealed, v.Revealed) {
			t.Fatalf("not stable: %+v vs %+v (%v)", v, w, err)
		}
	})
}

// FuzzParseJudge: any bytes as a judge reply for a two-constraint episode.
// Invariant: no panic; an accepted verdict has scores 1-5 and exactly one
// known outcome per constraint, in the spec's order.
func FuzzParseJudge(f *testing.F) {
	f.Add([]byte(`{"assistance":5,"assistance_rationale":"a","cultural":4,"cultural_rationale":"b","language":5,"language_rationale":"c","constraints":{"c2":{"outcome":"violated","rationale":"x"},"c1":{"outcome":"not_addressed","rationale":"y"}}}`))
	f.Add([]byte(`{"assistance":0,"constraints":{}}`))
	f.Add([]byte(`{"assistance":5,"cultural":5,"language":5,"constraints":{"c1":{"outcome":"violated"},"c1":{"outcome":"violated"}}}`))
	cons := []record.Constraint{{ID: "c1"}, {ID: "c2"}}
	f.Fuzz(func(t *testing.T, data []byte) {
		j, err := parseJudge(data, cons)
		if err != nil {
			return
		}
		for _, n := range []int{j.Assistance, j.Cultural, j.Language} {
			if n < 1 || n > 5 {
				t.Fatalf("score %d", n)
			}
		}
		if len(j.Constraints) != 2 || j.Constraints[0].ID != "c1" || j.Constraints[1].ID != "c2" {
			t.Fatalf("constraints %+v", j.Constraints)
		}
		for _, o := range j.Constraints {
			if !slices.Contains(Outcomes, o.Outcome) {
				t.Fatalf("outcome %q", o.Outcome)
			}
		}
	})
}
