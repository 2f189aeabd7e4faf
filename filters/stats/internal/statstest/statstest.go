// Package statstest holds the records that the tests of filters/stats and
// of its renderers (filters/stats/render) both build their reports from:
// one copy, so that a figure and its rendering are tested on the same
// corpus.
package statstest

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/filters/stats/pactstats"
	"github.com/ngkit/ngkit/pkg/agree"
	"github.com/ngkit/ngkit/pkg/record"
)

// PersonaCase is a corpus whose persona-subgroup alignment is not
// computable, and why.
type PersonaCase struct {
	Name string
	Recs []*record.Record
	Why  string
}

// Turns builds turns from "Speaker: text" lines.
func Turns(lines ...string) []record.Turn {
	var ts []record.Turn
	for i, l := range lines {
		sp, text, _ := strings.Cut(l, ": ")
		ts = append(ts, record.Turn{Index: i, Speaker: sp, Text: text})
	}
	return ts
}

// PactRec is an item in culture with persona and one result per model
// (p nil: no valid sample).
func PactRec(id, variantOf, culture string, persona map[string]string, human *float64, results map[string]*float64) *record.Record {
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
			res.Entropy = FP(agree.Entropy(map[string]float64{"f": *p, "a": 1 - *p}))
		} else {
			res.Error = "no valid sample"
		}
		r.Pact = append(r.Pact, res)
	}
	return r
}

// SimRec is an episode of assistant in mode; judge nil for none; outcomes
// are the judge's outcome per constraint c1, c2, ...
func SimRec(id, assistant, mode, culture, domain, end string, nTurns int, judge *[3]int, outcomes ...string) *record.Record {
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

// SmallPactRecords: four items, two models.
func SmallPactRecords() []*record.Record {
	f, m := map[string]string{"gender": "female"}, map[string]string{"gender": "male"}
	return []*record.Record{
		// Item x in two gender variants (base x is not a record).
		PactRec("x-f", "x", "korean", f, FP(0.9), map[string]*float64{"a": FP(0.8), "b": FP(0.6)}),
		PactRec("x-m", "x", "korean", m, FP(0.7), map[string]*float64{"a": FP(0.5), "b": FP(0.4)}),
		// Item y: the base record carries the id the variant points at.
		PactRec("y", "", "american", f, FP(0.2), map[string]*float64{"a": FP(0.2), "b": FP(0.3)}),
		PactRec("y-m", "y", "american", m, nil, map[string]*float64{"a": FP(0.4), "b": nil}),
	}
}

// PersonaCases are the reasons, one corpus each; item makes a record of
// item it-1 (a variant when id is not it-1).
func PersonaCases() ([]PersonaCase, func(id, country, demo string, answers ...record.HumanAnswer) *record.Record, record.HumanAnswer) {
	p := 0.8
	item := func(id, country, demo string, answers ...record.HumanAnswer) *record.Record {
		it := &record.PactItem{Actor: "a", Expectation: "e", Preference: "p", FollowOption: "f", AllowOption: "o",
			PersonaCountry: country, PersonaDemo: demo}
		if len(answers) > 0 {
			it.Human = &record.HumanShare{Answers: answers}
		}
		return &record.Record{ID: id, VariantOf: "it-1", Culture: "indian", PactItem: it,
			Pact: []record.PactResult{{Model: "m", Question: record.PactPersonal, Method: "logprobs", PFollow: &p, Samples: 1, Valid: 1}}}
	}
	india := record.HumanAnswer{Respondent: "r1", Country: "India", Demo: "young woman", Personal: record.PactAllow}
	return []PersonaCase{
		{"no persona run", []*record.Record{item("it-1", "", "", india)}, "no result is of a persona-prompted run"},
		{"incomplete personas", []*record.Record{item("it-1", "", "", india), item("p1", "India", ""), item("p2", "", "young woman")},
			"every persona-prompted result lacks pact_item.persona_country or persona_demo"},
		{"no subgroups", []*record.Record{item("it-1", "", ""), item("p1", "India", "young woman")}, "no item has human answers with a respondent country and demo"},
		{"no match", []*record.Record{item("it-1", "", "", india), item("p1", "india", "young woman"), item("p2", "Japan", "young woman")},
			"no persona (persona_country, persona_demo) matches a respondent subgroup"},
	}, item, india
}

// SimSectionRecords: six episodes of two assistants, and a record that is
// no episode.
func SimSectionRecords() []*record.Record {
	return []*record.Record{
		SimRec("e1", "a", "benchmark", "thai", "food", "goal_met", 6, &[3]int{4, 5, 5}, record.OutcomeInferred, record.OutcomeRespected),
		SimRec("e2", "a", "benchmark", "thai", "health", "max_turns", 16, &[3]int{2, 3, 5}, record.OutcomeViolated, record.OutcomeUnaddressed),
		SimRec("e3", "a", "benchmark", "korean", "food", "goal_met", 4, &[3]int{5, 4, 4}, record.OutcomeInferred), // c2 has no outcome
		SimRec("e4", "a", "benchmark", "korean", "food", "max_turns", 16, nil),                                    // not judged
		SimRec("e5", "b", "benchmark", "thai", "food", "goal_met", 8, &[3]int{5, 5, 5}, record.OutcomeInferred, record.OutcomeInferred),
		SimRec("e6", "b", "gold", "thai", "food", "goal_met", 6, &[3]int{5, 5, 5}, record.OutcomeInferred, "made_up"),
		{ID: "not-an-episode"},
	}
}

// CountsAndLabelsRecords: two labelled American dialogues with quality
// scores, one with a seed fit, and an empty Chinese record.
func CountsAndLabelsRecords() []*record.Record {
	lab := func(norm, intent, emo string) *record.Labels {
		return &record.Labels{Norm: norm, Intent: intent, Emotion: emo}
	}
	a := &record.Record{ID: "a", Culture: "american", DialogueType: "v2r", Category: "apology", Turns: Turns(GoodEN...), Quality: &record.Quality{Naturalness: 4, Norm: 3, Fit: 2}}
	a.Turns[0].Labels = lab("violated", "CRT", "anger")
	a.Turns[1].Labels = lab("adhered", "APO", "sadness")
	b := &record.Record{ID: "b", Culture: "american", DialogueType: "adherence", Category: "thanks", Turns: Turns(GoodEN[:2]...), Quality: &record.Quality{Naturalness: 5}}
	b.Turns[0].Labels = lab("adhered", "THX", "joy")
	return []*record.Record{a, b, {ID: "c", Culture: "chinese"}}
}

// BrowseRecords: a labelled V2R dialogue with a reviewer's labels, seed
// and quality scores; a Korean adherence dialogue; a one-speaker dialogue
// (single_speaker); and more American V2R dialogues than --examples.
func BrowseRecords() []*record.Record {
	v2r := func(id string) *record.Record {
		return &record.Record{ID: id, Culture: "american", Lang: "en", DialogueType: "v2r", Category: "apology",
			Norm: "Apologize when you are late.", Scenario: "Sam is late to a meeting.", Situation: "Sam walks in ten minutes late.",
			Refinement:  &record.Refinement{Rounds: 1, After: &record.Scores{TaskRelevance: 5, LinguisticQuality: 4}, Accepted: true},
			Quality:     &record.Quality{Consistency: 5, Naturalness: 4, Relevance: 5, Coherence: 5, Emotion: 4, Norm: 3},
			Narration:   []string{"The meeting has already started.", "Everyone gets back to work."},
			NarrationAt: []int{0, 4},
			Turns: []record.Turn{
				{Index: 0, Speaker: "Sam", Action: "sits down", Text: "So, where are we?", Stage: "violation", Labels: &record.Labels{Norm: "violated", Intent: "QUE", Emotion: "neutral"},
					LabelsHuman: &record.Labels{Norm: "violated"}},
				{Index: 1, Speaker: "Ana", Text: "We started ten minutes ago, Sam.", Stage: "recognition", Labels: &record.Labels{Norm: "not_relevant", Intent: "CRT", Emotion: "anger", Stage: "repair"}},
				{Index: 2, Speaker: "Sam", Text: "I'm sorry, that was rude of me.", Stage: "repair", Labels: &record.Labels{Norm: "adhered", Intent: "APO", Emotion: "sadness", Stage: "repair"},
					LabelsHuman: &record.Labels{Norm: "adhered"}},
				{Index: 3, Speaker: "Ana", Text: "Thanks. Let's go on.", Stage: "resolution", Labels: &record.Labels{Norm: "adhered", Intent: "THX", Emotion: "joy"}},
			},
			Review: &record.Review{Tool: "labelstudio", Verdict: "accept", Reviewers: 1},
		}
	}
	// ko was written before narration kept its place: its line goes
	// after the last turn.
	ko := &record.Record{ID: "ko", Culture: "korean", Lang: "ko", DialogueType: "adherence", Norm: "윗사람에게 먼저 인사한다.",
		Narration: []string{"복도에서 마주친다."},
		Turns:     []record.Turn{{Index: 0, Speaker: "민수", Text: "부장님, 안녕하십니까?"}, {Index: 1, Speaker: "부장", Text: "그래, 좋은 아침이에요."}}}
	solo := &record.Record{ID: "solo", Culture: "korean", DialogueType: "adherence",
		Turns: []record.Turn{{Index: 0, Speaker: "민수", Text: "혼자 말한다."}}}
	return []*record.Record{v2r("v1"), ko, v2r("v2"), solo, v2r("v3")}
}

// RealRecords are the records a step of a real-model run wrote
// (testdata/realmodels/steps.jsonl).
func RealRecords(t testing.TB, step string) []*record.Record {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	f, err := os.Open(filepath.Join(filepath.Dir(file), "..", "..", "..", "..", "testdata", "realmodels", "steps.jsonl"))
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

// FP is a pointer to f.
func FP(f float64) *float64 { return &f }

// GoodEN is a clean five-turn English dialogue.
var GoodEN = []string{"Ann: Hello there, how are you doing today?", "Ben: I am fine, thank you for asking.",
	"Ann: That is good to hear, my friend.", "Ben: What about you, how have you been?", "Ann: I have been well, thanks."}

// LabelExtrasRecords: labels from three samples, V2R stages and pairwise
// judgements.
func LabelExtrasRecords() []*record.Record {
	var recs []*record.Record
	mk := func(id, culture, pw string, turns ...record.Turn) *record.Record {
		r := &record.Record{ID: id, Culture: culture, DialogueType: record.TypeV2R, Turns: turns,
			LabelsMeta: &record.LabelsMeta{Samples: 3}}
		if pw != "" {
			r.SetExtra("pairwise", map[string]string{"against": "b", "naturalness": pw, "norm": "win"})
		}
		return r
	}
	turn := func(i int, stage, intent string, dist map[string]float64) record.Turn {
		return record.Turn{Index: i, Speaker: "A", Text: "x", Stage: stage,
			Labels: &record.Labels{Intent: intent, IntentDist: dist}}
	}
	unanimous := func(l string) map[string]float64 { return map[string]float64{l: 1} }
	recs = append(recs, mk("r1", "american", "win",
		turn(0, "violation", "CRT", unanimous("CRT")),
		turn(1, "recognition", "QUE", map[string]float64{"QUE": 2.0 / 3, "CRT": 1.0 / 3}),
		turn(2, "repair", "APO", unanimous("APO"))))
	recs = append(recs, mk("r2", "chinese", "loss",
		turn(0, "violation", "CRT", unanimous("CRT")),
		turn(1, "repair", "APO", unanimous("APO"))))
	recs = append(recs, mk("r3", "chinese", "tie",
		turn(0, "violation", "JUS", map[string]float64{"JUS": 1.0 / 3, "CRT": 1.0 / 3, "DIS": 1.0 / 3})))
	return recs
}

// PanelRecords: a panel of three labellers over two records, by hand:
// norm votes per turn (a, b, c) AAA VVA AAA VVV. Cohen's kappa of a and b is 1 (the
// same labels); of a and c: confusion [[2 0] [1 1]], po 3/4, pe 1/2, so
// 0.5. Fleiss' kappa: P_i 1, 1/3, 1, 1 -> P 5/6; shares A 7/12, V 5/12 ->
// Pe 74/144; kappa (5/6 - 74/144) / (1 - 74/144) = 46/70. Alpha: n 12,
// coincidences within 10 (3 units of 3 alike give 3 each, VVA gives 1),
// n_A 7, n_V 5: 1 - 11 * 2 / (144 - 74) = 48/70. The turn disagreed on is
// r1 turn 1, with 2/3; c failed on r2 (its labels are absent there).
func PanelRecords() []*record.Record {
	ml := func(l, norm string) record.ModelLabels { return record.ModelLabels{Labeller: l, Norm: norm} }
	turn := func(i int, a, b, c string) record.Turn {
		bm := []record.ModelLabels{ml("a", a), ml("b", b)}
		if c != "" {
			bm = append(bm, ml("c", c))
		}
		return record.Turn{Index: i, Speaker: "S", Text: "text", Labels: &record.Labels{Norm: a, ByModel: bm}}
	}
	meta := &record.LabelsMeta{Panel: []string{"a", "b", "c"}}
	r1 := &record.Record{ID: "r1", Turns: []record.Turn{turn(0, "adhered", "adhered", "adhered"), turn(1, "violated", "violated", "adhered")}, LabelsMeta: meta,
		Gen: []record.Gen{{Stage: "nglabel", Role: "labeller", Endpoint: "a", Model: "ma", TokensIn: 100, TokensOut: 50, CostUSD: 0.002},
			{Stage: "nglabel", Role: "labeller", Endpoint: "b", Model: "mb", TokensIn: 90, TokensOut: 40, CacheHit: true, Retries: 1}}}
	meta2 := &record.LabelsMeta{Panel: []string{"a", "b", "c"}, Failed: []record.PanelFailure{{Labeller: "c", Error: "HTTP 503"}}}
	r2 := &record.Record{ID: "r2", Turns: []record.Turn{turn(0, "adhered", "adhered", "adhered"), turn(1, "violated", "violated", "violated")}, LabelsMeta: meta2,
		Gen: []record.Gen{{Stage: "nglabel", Role: "labeller", Endpoint: "a", Model: "ma", TokensIn: 10, TokensOut: 5, CostUSD: 0.001}}}
	return []*record.Record{r1, r2}
}

// TurnByTurn is rec (a dialogue labelled all one way) relabelled turn by
// turn, with a two-member panel: a, who follows the turns, and b, who
// labels every turn "adhered".
func TurnByTurn(rec *record.Record) *record.Record {
	good := *rec
	good.Turns = append([]record.Turn(nil), rec.Turns...)
	norms := []string{"not_relevant", "adhered", "adhered", "not_relevant", "adhered", "adhered"}
	for i := range good.Turns {
		l := *good.Turns[i].Labels
		l.Norm, l.Intent = norms[i%len(norms)], []string{"NR", "apology"}[i%2]
		l.ByModel = []record.ModelLabels{{Labeller: "a", Norm: l.Norm}, {Labeller: "b", Norm: "adhered"}}
		good.Turns[i].Labels = &l
	}
	good.LabelsMeta = &record.LabelsMeta{Model: "m", Panel: []string{"a", "b"}}
	return &good
}
