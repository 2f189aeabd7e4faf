package vocab

import "testing"

func TestRefused(t *testing.T) {
	for s, want := range map[string]bool{
		"I'm sorry, but I can't help with that.":      true,
		"  I can’t write this dialogue.":              true,
		"As an AI language model, I cannot...":        true,
		`{"turns": []}`:                               false,
		"Sure! Here is the dialogue: {\"turns\": []}": false,
		"Sorry for being late, Mrs. Kim!":             false, // a turn's text, not a refusal
	} {
		if Refused(s) != want {
			t.Errorf("Refused(%q) = %v", s, !want)
		}
	}
}
