package render

import (
	"strings"
	"testing"

	"github.com/ngkit/ngkit/filters/stats"
	"github.com/ngkit/ngkit/filters/stats/pactstats"
	"github.com/ngkit/ngkit/pkg/agree"
	"github.com/ngkit/ngkit/pkg/audit"
	"github.com/ngkit/ngkit/pkg/record"
)

// The fixtures below are copies of stats' test fixtures: render's tests
// build their reports as ngstats does, through the Collector.

func turns(lines ...string) []record.Turn {
	var ts []record.Turn
	for i, l := range lines {
		sp, text, _ := strings.Cut(l, ": ")
		ts = append(ts, record.Turn{Index: i, Speaker: sp, Text: text})
	}
	return ts
}

var goodEN = []string{"Ann: Hello there, how are you doing today?", "Ben: I am fine, thank you for asking.",
	"Ann: That is good to hear, my friend.", "Ben: What about you, how have you been?", "Ann: I have been well, thanks."}

// collect audits and collects recs at ngstats' default thresholds.
func collect(t *testing.T, recs ...*record.Record) *stats.Report {
	t.Helper()
	a := &audit.Audit{MinTurns: 5, MaxTurns: 15, MinLangShare: 0.8}
	c := stats.NewCollector()
	for _, r := range recs {
		a.Record(r)
		c.Add(r)
	}
	return c.Report()
}

func fp(f float64) *float64 { return &f }

// pactRec is an item in culture with persona and one result per model
// (p nil: no valid sample).
func pactRec(id, variantOf, culture string, persona map[string]string, human *float64, results map[string]*float64) *record.Record {
	r := &record.Record{ID: id, VariantOf: variantOf, Culture: culture, Persona: persona,
		PactItem: &record.PactItem{Actor: "guest", Expectation: "remove shoes", Preference: "keep shoes on",
			FollowOption: "remove", AllowOption: "keep"}}
	if human != nil {
		r.PactItem.Human = &record.HumanShare{FollowCulture: *human, N: 20}
	}
	for _, m := range []string{"a", "b"} {
		p, ok := results[m]
		if !ok {
			continue
		}
		res := record.PactResult{Model: m, Question: record.PactChoice, Method: "sample", Samples: 10}
		if p != nil {
			res.PFollow, res.Valid = p, 10
			res.Majority = pactstats.MajorityOf(*p)
			res.Entropy = fp(agree.Entropy(map[string]float64{"f": *p, "a": 1 - *p}))
		} else {
			res.Error = "no valid sample"
		}
		r.Pact = append(r.Pact, res)
	}
	return r
}

// simRec is an episode of assistant in mode; judge nil for none; outcomes
// are the judge's outcome per constraint c1, c2, ...
func simRec(id, assistant, mode, culture, domain, end string, nTurns int, judge *[3]int, outcomes ...string) *record.Record {
	r := &record.Record{ID: id, Culture: culture,
		Episode: &record.Episode{Subgroup: culture + "-urban", Domain: domain, Goal: "plan a dinner", Opening: "hi",
			Constraints: []record.Constraint{{ID: "c1", Text: "no pork"}, {ID: "c2", Text: "elders first"}}},
		Sim: &record.Sim{Assistant: assistant, Mode: mode, End: end}}
	for i := range nTurns {
		sp := "user"
		if i%2 == 1 {
			sp = "assistant"
		}
		r.Turns = append(r.Turns, record.Turn{Index: i, Speaker: sp, Text: "Could you help me plan this, please?"})
	}
	if judge != nil {
		j := &record.SimJudge{Assistance: judge[0], Cultural: judge[1], Language: judge[2]}
		for i, o := range outcomes {
			j.Constraints = append(j.Constraints, record.ConstraintOutcome{ID: "c" + string(rune('1'+i)), Outcome: o})
		}
		r.Sim.Judge = j
	}
	return r
}
