package render

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/pkg/record"
)

// smallPactRecords: four items, two models.
func smallPactRecords() []*record.Record {
	f, m := map[string]string{"gender": "female"}, map[string]string{"gender": "male"}
	return []*record.Record{
		// Item x in two gender variants (base x is not a record).
		pactRec("x-f", "x", "korean", f, fp(0.9), map[string]*float64{"a": fp(0.8), "b": fp(0.6)}),
		pactRec("x-m", "x", "korean", m, fp(0.7), map[string]*float64{"a": fp(0.5), "b": fp(0.4)}),
		// Item y: the base record carries the id the variant points at.
		pactRec("y", "", "american", f, fp(0.2), map[string]*float64{"a": fp(0.2), "b": fp(0.3)}),
		pactRec("y-m", "y", "american", m, nil, map[string]*float64{"a": fp(0.4), "b": nil}),
	}
}

// TestPactFormats: the PACT section of stats' TestPactSmallByHand in
// every format; JSON has nulls, not NaN.
func TestPactFormats(t *testing.T) {
	r := collect(t, smallPactRecords()...)
	// Every format shows the section; JSON has nulls, not NaN.
	var js bytes.Buffer
	if err := WriteJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || back["pact"] == nil {
		t.Fatalf("JSON: %v %v", err, back["pact"])
	}
	var txt bytes.Buffer
	if err := WriteText(&txt, r, 5); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"PACT, question choice: culture-following rate per model", "47.5% [", "counterfactual effect", "25.0 [",
		"agreement between models", "0.982", "models against human distributions", "0.971"} {
		if !strings.Contains(txt.String(), want) {
			t.Errorf("text report lacks %q", want)
		}
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, r, 5, 2); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "## PACT, question choice: signed change between attribute values (B - A)") {
		t.Error("Markdown lacks the PACT contrasts")
	}
}

// personaCase is a corpus whose persona-subgroup alignment is not
// computable, and why.
type personaCase struct {
	name string
	recs []*record.Record
	why  string
}

// personaCases are the reasons, one corpus each; item makes a record of
// item it-1 (a variant when id is not it-1).
func personaCases() ([]personaCase, func(id, country, demo string, answers ...record.HumanAnswer) *record.Record, record.HumanAnswer) {
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
	return []personaCase{
		{"no persona run", []*record.Record{item("it-1", "", "", india)}, "no result is of a persona-prompted run"},
		{"incomplete personas", []*record.Record{item("it-1", "", "", india), item("p1", "India", ""), item("p2", "", "young woman")},
			"every persona-prompted result lacks pact_item.persona_country or persona_demo"},
		{"no subgroups", []*record.Record{item("it-1", "", ""), item("p1", "India", "young woman")}, "no item has human answers with a respondent country and demo"},
		{"no match", []*record.Record{item("it-1", "", "", india), item("p1", "india", "young woman"), item("p2", "Japan", "young woman")},
			"no persona (persona_country, persona_demo) matches a respondent subgroup"},
	}, item, india
}

// TestPactPersonaReasonText: the text report says in one line why the
// persona-subgroup alignment is not computable (stats'
// TestPactPersonaNotComputable).
func TestPactPersonaReasonText(t *testing.T) {
	cases, _, _ := personaCases()
	for _, c := range cases {
		r := collect(t, c.recs...)
		var text strings.Builder
		if err := WriteText(&text, r, 0); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(text.String(), "persona-subgroup alignment (a persona-prompted run against its persona's human subgroup): not computable: "+c.why) {
			t.Errorf("%s: the text lacks the reason:\n%s", c.name, text.String())
		}
	}
}

// simSectionRecords: six episodes of two assistants, and a record that is
// no episode.
func simSectionRecords() []*record.Record {
	return []*record.Record{
		simRec("e1", "a", "benchmark", "thai", "food", "goal_met", 6, &[3]int{4, 5, 5}, record.OutcomeInferred, record.OutcomeRespected),
		simRec("e2", "a", "benchmark", "thai", "health", "max_turns", 16, &[3]int{2, 3, 5}, record.OutcomeViolated, record.OutcomeUnaddressed),
		simRec("e3", "a", "benchmark", "korean", "food", "goal_met", 4, &[3]int{5, 4, 4}, record.OutcomeInferred), // c2 has no outcome
		simRec("e4", "a", "benchmark", "korean", "food", "max_turns", 16, nil),                                    // not judged
		simRec("e5", "b", "benchmark", "thai", "food", "goal_met", 8, &[3]int{5, 5, 5}, record.OutcomeInferred, record.OutcomeInferred),
		simRec("e6", "b", "gold", "thai", "food", "goal_met", 6, &[3]int{5, 5, 5}, record.OutcomeInferred, "made_up"),
		{ID: "not-an-episode"},
	}
}

// TestSimFormats: the simulation section (stats' TestSimSection) in JSON
// and text.
func TestSimFormats(t *testing.T) {
	r := collect(t, simSectionRecords()...)
	var js bytes.Buffer
	if err := WriteJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Sim struct {
			Leaderboard []map[string]any `json:"leaderboard"`
		} `json:"sim"`
	}
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || len(back.Sim.Leaderboard) != 2 || back.Sim.Leaderboard[0]["assistant"] != "b" {
		t.Fatalf("JSON leaderboard: %v %+v", err, back.Sim.Leaderboard)
	}
	var txt bytes.Buffer
	if err := WriteText(&txt, r, 5); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Simulation leaderboard (benchmark mode)", "Simulation by culture", "Simulation by domain", "Simulation by subgroup",
		"40.0% [", "2 (40.00%)", "a benchmark: 1 constraints without an outcome"} {
		if !strings.Contains(txt.String(), want) {
			t.Errorf("text report lacks %q", want)
		}
	}
}
