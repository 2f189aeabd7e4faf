// Package fakefit is the fake judge of seed fit (ngv2r --check-fit, and
// the fit criterion of nglabel's quality judge) for tests on the fake
// server: it reads the seed and the dialogue from the judge's prompt and
// scores how many of the dialogue's speakers are people the scenario or
// situation names. A dialogue written for its seed names them; a dialogue
// of another seed (an unrelated dialogue) mostly does not: on the release
// sample (TestReleaseSeparation) every dialogue scores 4 or 5 against its
// own seed, and the dialogues of another seed of the same culture and type
// score 3 or less (all but 1 of 1,240 pairs).
package fakefit

import (
	"fmt"
	"regexp"
	"strings"
)

// Prompt lines the built-in judge prompts give, in English and Korean.
var (
	seedLine = regexp.MustCompile(`(?m)^(?:Scenario|Situation|시나리오|상황): (.*)$`)
	// A dialogue line, as the judge prompts render turns: "[3] Name: (action) text".
	turnLine = regexp.MustCompile(`(?m)^\[\d+\] ([^:\n：]{1,60})[:：]`)
)

// Seed is the scenario and situation of a judge prompt, joined.
func Seed(prompt string) string {
	var parts []string
	for _, m := range seedLine.FindAllStringSubmatch(prompt, -1) {
		parts = append(parts, m[1])
	}
	return strings.Join(parts, " ")
}

// Speakers are the distinct speakers of the dialogue lines of a prompt,
// in order of appearance.
func Speakers(prompt string) []string {
	var out []string
	for _, m := range turnLine.FindAllStringSubmatch(prompt, -1) {
		s := strings.TrimSpace(m[1])
		if s == "" {
			continue
		}
		dup := false
		for _, o := range out {
			dup = dup || o == s
		}
		if !dup {
			out = append(out, s)
		}
	}
	return out
}

// Score is the fit of a dialogue with these speakers to the seed text, 1-5,
// with the judge's reason: 5 when every speaker is named in the seed, 4
// when two thirds are, 3 when half are, 2 when some are, 1 when none is.
func Score(seed string, speakers []string) (int, string) {
	if len(speakers) == 0 {
		return 1, "the dialogue has no speakers"
	}
	low := strings.ToLower(seed)
	var in, out []string
	for _, s := range speakers {
		if strings.Contains(low, strings.ToLower(s)) {
			in = append(in, s)
		} else {
			out = append(out, s)
		}
	}
	share := float64(len(in)) / float64(len(speakers))
	score := 1
	switch {
	case share == 1:
		score = 5
	case share >= 2.0/3:
		score = 4
	case share >= 0.5:
		score = 3
	case share > 0:
		score = 2
	}
	if len(out) == 0 {
		return score, "the dialogue plays out the scenario and situation with the people they name (" + strings.Join(in, ", ") + ")"
	}
	return score, fmt.Sprintf("%d of %d speakers (%s) are not people of the scenario or situation: the dialogue seems to be about another situation",
		len(out), len(speakers), strings.Join(out, ", "))
}

// FromPrompt scores the seed and dialogue of a judge prompt.
func FromPrompt(prompt string) (int, string) {
	return Score(Seed(prompt), Speakers(prompt))
}
