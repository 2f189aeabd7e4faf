package app

import (
	"errors"
	"testing"
)

func TestDidYouMean(t *testing.T) {
	p := NewProgram("x", "", "")
	p.Flags.String("culture", "", "")
	p.Flags.String("limit", "", "")
	for in, want := range map[string]string{
		"unknown flag: --cultre":      "unknown flag: --cultre: did you mean --culture?",
		"unknown flag: --limt=3":      "unknown flag: --limt=3: did you mean --limit?",
		"unknown flag: --cu":          "unknown flag: --cu",    // too short to be a typo
		"unknown flag: --bogus":       "unknown flag: --bogus", // near nothing
		"unknown shorthand flag: 'z'": "unknown shorthand flag: 'z'",
	} {
		if got := p.didYouMean(errors.New(in)); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}
