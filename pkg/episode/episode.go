// Package episode holds the rules of CultureConverse episode specs that
// ngseed (which writes them), ngcat's importer (which reads them) and
// ngsim (which runs them) share: the domains, the reveal modes, what a
// valid spec is, and when a message gives a hidden constraint away
// verbatim.
package episode

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/ngkit/ngkit/pkg/record"
)

// Domains are CultureConverse's seven domains, as record values; a user
// may name others (ngseed --domains).
var Domains = []string{
	"food_and_dining", "health", "family_and_ceremonies", "work",
	"religion_and_festivals", "travel_and_hospitality", "gifts_and_etiquette",
}

// The reveal modes of a constraint (record.Constraint.Reveal).
const (
	RevealImplicit = "implicit" // hints only, never stated outright
	RevealExplicit = "explicit" // stated, in the user's own words, when relevant
	RevealNever    = "never"    // the assistant must infer it or ask
)

// Reveals are the reveal modes.
var Reveals = []string{RevealImplicit, RevealExplicit, RevealNever}

// Bounds on the hidden constraints of an episode.
const (
	MinConstraints = 2
	MaxConstraints = 4
)

// Modes of ngsim.
const (
	ModeBenchmark = "benchmark"
	ModeGold      = "gold"
)

// Ends of an episode (record.Sim.End).
const (
	EndGoalMet  = "goal_met"
	EndMaxTurns = "max_turns"
)

// Normalize fills what a spec may leave out: constraint ids c1, c2, ...
// (by position, where missing) and the implicit reveal mode; it trims the
// text fields and lower-cases the reveal modes and the domain.
func Normalize(ep *record.Episode) {
	ep.Subgroup = strings.TrimSpace(ep.Subgroup)
	ep.Domain = strings.ToLower(strings.TrimSpace(ep.Domain))
	ep.Goal = strings.TrimSpace(ep.Goal)
	ep.Opening = strings.TrimSpace(ep.Opening)
	for i := range ep.Constraints {
		c := &ep.Constraints[i]
		c.ID, c.Text, c.NormID = strings.TrimSpace(c.ID), strings.TrimSpace(c.Text), strings.TrimSpace(c.NormID)
		if c.ID == "" {
			c.ID = fmt.Sprintf("c%d", i+1)
		}
		c.Reveal = strings.ToLower(strings.TrimSpace(c.Reveal))
		if c.Reveal == "" {
			c.Reveal = RevealImplicit
		}
	}
}

// Validate says what is wrong with a spec (after Normalize), in one line
// a model or a user can act on; nil when it is usable.
func Validate(ep *record.Episode) error {
	switch {
	case ep == nil:
		return fmt.Errorf("no episode spec")
	case ep.Goal == "":
		return fmt.Errorf("the episode has no goal")
	case ep.Opening == "":
		return fmt.Errorf("the episode has no opening message")
	case ep.Domain == "":
		return fmt.Errorf("the episode has no domain")
	case len(ep.Constraints) < MinConstraints || len(ep.Constraints) > MaxConstraints:
		return fmt.Errorf("the episode has %d hidden constraint(s), it must have %d to %d", len(ep.Constraints), MinConstraints, MaxConstraints)
	}
	seen := map[string]bool{}
	for i, c := range ep.Constraints {
		switch {
		case c.Text == "":
			return fmt.Errorf("constraint %d (%s) has no text", i+1, c.ID)
		case seen[c.ID]:
			return fmt.Errorf("constraint id %s is used twice", c.ID)
		case !valid(c.Reveal):
			return fmt.Errorf("constraint %s: reveal %q: want implicit, explicit or never", c.ID, c.Reveal)
		}
		seen[c.ID] = true
		if Leaks(ep.Opening, c.Text) {
			return fmt.Errorf("the opening message gives hidden constraint %s away verbatim", c.ID)
		}
	}
	return nil
}

func valid(reveal string) bool {
	for _, r := range Reveals {
		if r == reveal {
			return true
		}
	}
	return false
}

// Leak run lengths: a message leaks a constraint when it holds the whole
// constraint, or a run of this many of its letters and digits in a row
// (spaces, punctuation and case ignored): about five words in scripts that
// space words, a short clause in those that do not (Chinese, Japanese,
// Thai).
const (
	leakRunSpaced   = 28
	leakRunUnspaced = 12
)

// Leaks reports whether message gives constraint away verbatim: it
// contains the constraint's text, or a long run of it (see leakRunSpaced),
// once case, spaces and punctuation are ignored. Paraphrase and hints are
// not leaks: that is how constraints are meant to surface.
func Leaks(message, constraint string) bool {
	m, spacedM := fold(message)
	c, spacedC := fold(constraint)
	if len(c) == 0 || len(m) == 0 {
		return false
	}
	run := leakRunUnspaced
	if spacedM && spacedC {
		run = leakRunSpaced
	}
	ms := string(m)
	if len(c) <= run {
		return strings.Contains(ms, string(c))
	}
	for i := 0; i+run <= len(c); i++ {
		if strings.Contains(ms, string(c[i:i+run])) {
			return true
		}
	}
	return false
}

// fold keeps the letters and digits of s, lower-cased, and says whether s
// spaces its words (more than one space per 12 letters).
func fold(s string) ([]rune, bool) {
	out := make([]rune, 0, len(s))
	spaces := 0
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r):
			out = append(out, unicode.ToLower(r))
		case unicode.IsSpace(r):
			spaces++
		}
	}
	return out, spaces*12 > len(out)
}
