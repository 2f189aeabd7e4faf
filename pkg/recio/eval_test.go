package recio

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/ngkit/ngkit/pkg/record"
)

// evalRecords: PACT items and results (p_follow and entropy set, zero and
// unset; a human share of 0) and episodes (with and without a judge), beside
// records that have none of them.
func evalRecords() []record.Record {
	p := func(f float64) *float64 { return &f }
	return []record.Record{
		{ID: "i0", Culture: "korean", PactItem: &record.PactItem{Actor: "손님", Expectation: "신발을 벗는다", Preference: "신발을 신고 싶다",
			FollowOption: "벗는다", AllowOption: "신고 있는다", Human: &record.HumanShare{FollowCulture: 0, N: 12}},
			Pact: []record.PactResult{
				{Model: "a", Question: record.PactChoice, Method: "logprobs", PFollow: p(0.75), Samples: 1, Valid: 1, Majority: record.PactFollow, Entropy: p(0.811)},
				{Model: "b", Question: record.PactNorm, Method: "sample", PFollow: p(0), Samples: 5, Valid: 5, Majority: record.PactAllow, Entropy: p(0)},
				{Model: "c", Question: record.PactChoice, Method: "sample", Samples: 5, Valid: 0, Error: "no valid sample"},
			}},
		{ID: "i1", PactItem: &record.PactItem{Actor: "guest", Receiver: "host", Expectation: "e", Preference: "p", FollowOption: "f", AllowOption: "a",
			ScenarioID: "s1", ActorCountry: "Brazil", ReceiverCountry: "India", ActorAge: "younger", ActorGender: "female",
			ReceiverAge: "older", ReceiverGender: "male", MetadataSource: "CultureAtlas",
			Human: &record.HumanShare{FollowCulture: 0.5, N: 2, Personal: p(1), Norm: p(0),
				Answers: []record.HumanAnswer{{Respondent: "r1", Country: "India", Personal: record.PactFollow, Norm: record.PactAllow}, {Respondent: "r2"}}}}},
		{ID: "x"},
		{ID: "e0", Culture: "thai", Lang: "th", Episode: &record.Episode{Subgroup: "Bangkok office worker", Domain: "food and dining", Goal: "g",
			Constraints: []record.Constraint{{ID: "c1", Text: "no beef", NormID: "n1", Reveal: "implicit"}, {ID: "c2", Text: "t"}}, Opening: "สวัสดี"}},
		{ID: "e1", ParentID: "e0", Episode: &record.Episode{Subgroup: "s", Domain: "d", Goal: "g", Constraints: []record.Constraint{{ID: "c1", Text: "t"}}, Opening: "o"},
			Turns: []record.Turn{{Index: 0, Speaker: "user", Text: "hi", Lang: "en"}, {Index: 1, Speaker: "assistant", Text: "hello"}},
			Sim: &record.Sim{Assistant: "a", Mode: "gold", End: "goal_met", Revealed: []string{"c1"},
				Judge: &record.SimJudge{Assistance: 4, Cultural: 5, CulturalRationale: "ok", Language: 3,
					Constraints: []record.ConstraintOutcome{{ID: "c1", Outcome: record.OutcomeInferred}}}}},
		{ID: "e2", Sim: &record.Sim{Assistant: "b", Mode: "benchmark", End: "max_turns", Human: &record.SimHuman{Assistance: p(4.5), Language: p(5), Reviewers: 2}}},
	}
}

// TestEvalRoundTrip: the PACT and simulation fields through JSONL, Parquet
// and Arrow (stream and file) read back as written, nil where unset.
func TestEvalRoundTrip(t *testing.T) {
	rows := evalRecords()
	check := func(format string, got []record.Record) {
		t.Helper()
		if len(got) != len(rows) {
			t.Fatalf("%s: %d records, want %d", format, len(got), len(rows))
		}
		for i, w := range rows {
			g := got[i]
			if !reflect.DeepEqual(g.PactItem, w.PactItem) || !reflect.DeepEqual(g.Pact, w.Pact) ||
				!reflect.DeepEqual(g.Episode, w.Episode) || !reflect.DeepEqual(g.Sim, w.Sim) {
				t.Errorf("%s: record %s:\n got %+v %+v %+v %+v\nwant %+v %+v %+v %+v", format, w.ID,
					g.PactItem, g.Pact, g.Episode, g.Sim, w.PactItem, w.Pact, w.Episode, w.Sim)
			}
		}
	}
	var jb bytes.Buffer
	writeAll[record.Record](t, NewJSONLWriter[record.Record](&jb), rows)
	check("jsonl", readAll(t, NewJSONLReader("t.jsonl", bytes.NewReader(jb.Bytes()))))
	check("parquet", readParquet(t, writeParquet(t, rows, WriteOptions{})))
	for _, file := range []bool{false, true} {
		var ab bytes.Buffer
		w, err := NewArrowWriter[record.Record](&ab, file)
		if err != nil {
			t.Fatal(err)
		}
		writeAll(t, w, rows)
		check(map[bool]string{false: "arrow stream", true: "arrow file"}[file], readAll(t, openArrow(t, ab.Bytes(), file, nil)))
	}
}
