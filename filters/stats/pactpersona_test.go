package stats

import (
	"strings"
	"testing"

	"github.com/ngkit/ngkit/pkg/record"
)

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

// TestPactPersonaNotComputable: without a row the figure says why, one
// reason per case (render's TestPactPersonaReasonText shows it); a persona
// matches its subgroup by the exact strings, and its result counts in no
// other figure.
func TestPactPersonaNotComputable(t *testing.T) {
	cases, item, india := personaCases()
	for _, c := range cases {
		r := collect(t, c.recs...)
		run := r.Pact.Persona
		if run == nil || len(run.Alignment) != 0 || !strings.HasPrefix(run.NotComputable, c.why) {
			t.Errorf("%s: %+v, want the reason %q", c.name, run, c.why)
			continue
		}
		if r.Pact.Items != 1 || r.Pact.Questions[0].Rates[0].Results != 1 {
			t.Errorf("%s: the persona-prompted results count in the persona-free figures: %d items", c.name, r.Pact.Items)
		}
	}
	// the matching persona has its row: the subgroup's share (allow: 0)
	// against the decision (follow)
	r := collect(t, item("it-1", "", "", india), item("p1", "India", "young woman"))
	run := r.Pact.Persona
	if len(run.Alignment) != 1 || run.NotComputable != "" || run.Alignment[0].HumanCultureRate != 0 || run.Alignment[0].Majority.Mean != 0 ||
		run.Alignment[0].MAE.Mean != 1 || run.Alignment[0].SignedGapPP.Mean != 100 {
		t.Errorf("%+v", run)
	}
}
