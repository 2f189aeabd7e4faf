package render

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/filters/stats/internal/statstest"
)

// TestPactFormats: the PACT section of stats' TestPactSmallByHand in
// every format; JSON has nulls, not NaN.
func TestPactFormats(t *testing.T) {
	r := collect(t, statstest.SmallPactRecords()...)
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

// TestPactPersonaReasonText: the text report says in one line why the
// persona-subgroup alignment is not computable (stats'
// TestPactPersonaNotComputable).
func TestPactPersonaReasonText(t *testing.T) {
	cases, _, _ := statstest.PersonaCases()
	for _, c := range cases {
		r := collect(t, c.Recs...)
		var text strings.Builder
		if err := WriteText(&text, r, 0); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(text.String(), "persona-subgroup alignment (a persona-prompted run against its persona's human subgroup): not computable: "+c.Why) {
			t.Errorf("%s: the text lacks the reason:\n%s", c.Name, text.String())
		}
	}
}

// TestSimFormats: the simulation section (stats' TestSimSection) in JSON
// and text.
func TestSimFormats(t *testing.T) {
	r := collect(t, statstest.SimSectionRecords()...)
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
