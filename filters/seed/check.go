package seed

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ngkit/ngkit/pkg/lang"
	"github.com/ngkit/ngkit/pkg/normbank"
)

// Sentence bounds of what ngseed writes: NormGenesis' short scenario and
// 3-5 sentence situation, the same bounds the built-in exemplars meet.
const (
	MinScenarioSentences  = normbank.MinScenarioSentences
	MaxScenarioSentences  = normbank.MaxScenarioSentences
	MinSituationSentences = normbank.MinSituationSentences
	MaxSituationSentences = normbank.MaxSituationSentences
)

// detectorFor returns a detector that knows the languages a culture
// writes in besides pkg/lang's default candidates (and their neighbours:
// Indonesian for Malay, Simplified for Traditional Chinese). Detectors are
// cached by pkg/lang, so this is cheap after the first call.
func detectorFor(c *normbank.Culture) (*lang.Detector, error) {
	return lang.For(c.ScenarioLang, c.Lang)
}

// textError is why a scenario or situation was refused: a kind, for
// counting, and a message the model can act on.
type textError struct{ kind, msg string }

func (e *textError) Error() string { return e.msg }

// Kinds of textError.
const (
	kindEmpty    = "empty"
	kindMarker   = "format marker"
	kindLength   = "wrong length"
	kindLanguage = "wrong language"
)

func refuse(kind, format string, a ...any) error {
	return &textError{kind: kind, msg: fmt.Sprintf(format, a...)}
}

// checkText judges one scenario or situation: not empty, no format
// marker, lo-hi sentences (normbank.Sentences), and written in want.
func checkText(det *lang.Detector, field, s string, lo, hi int, want string) error {
	s = strings.TrimSpace(s)
	if s == "" {
		return refuse(kindEmpty, "the %s is empty", field)
	}
	if m := normbank.MarkerIn(s); m != "" {
		return refuse(kindMarker, "the %s contains %s: write plain prose on one line", field, m)
	}
	if n := normbank.Sentences(s); n < lo || n > hi {
		return refuse(kindLength, "the %s has %d sentences, it must have %s", field, n, span(lo, hi))
	}
	want = lang.Normalize(want)
	if r := det.Detect(s); r.Lang != want || r.Confidence < lang.MinConfidence {
		got := r.Lang
		if got == "" || r.Confidence < lang.MinConfidence {
			got = "no clear language"
		}
		return refuse(kindLanguage, "the %s is in %s, it must be in %s (%s)", field, got, lang.Name(want), want)
	}
	return nil
}

// kindOf is the kind of a check error.
func kindOf(err error) string {
	var te *textError
	if errors.As(err, &te) {
		return te.kind
	}
	return "invalid"
}

func span(lo, hi int) string {
	if lo == hi {
		return fmt.Sprint(lo)
	}
	return fmt.Sprintf("%d to %d", lo, hi)
}

// checkScenario judges a scenario against a culture's profile.
func checkScenario(det *lang.Detector, c *normbank.Culture, s string) error {
	return checkText(det, "scenario", s, MinScenarioSentences, MaxScenarioSentences, c.ScenarioLang)
}

// checkSituation judges a situation against a culture's profile.
func checkSituation(det *lang.Detector, c *normbank.Culture, s string) error {
	return checkText(det, "situation", s, MinSituationSentences, MaxSituationSentences, c.ScenarioLang)
}

// SeedCheck returns ngseed's check of a scenario and its situation in
// culture c (sentences, markers, language): what canned seeds, such as
// the built-in demo's (internal/demopool), must pass to be answers.
func SeedCheck(c *normbank.Culture) (func(scenario, situation string) error, error) {
	det, err := detectorFor(c)
	if err != nil {
		return nil, err
	}
	return func(scenario, situation string) error {
		if err := checkScenario(det, c, scenario); err != nil {
			return err
		}
		return checkSituation(det, c, situation)
	}, nil
}
