package pactstats

import "testing"

// TestScenarioTheme: the authors' scenario_theme: the first theme in
// their order with a keyword in the lower-cased text (a substring: "hand"
// in "handed"), else other.
func TestScenarioTheme(t *testing.T) {
	for text, want := range map[string]string{
		"A GIFT handed over at DINNER":        "food_hospitality",
		"He is handed a present":              "greetings_respect",
		"Waiting for the train to the office": "workplace_education",
		"Sharing a phone in the market":       "public_etiquette",
		"A walk by the river":                 "other",
		"":                                    "other",
	} {
		if got := scenarioTheme(text); got != want {
			t.Errorf("%q: %s, want %s", text, got, want)
		}
	}
}
