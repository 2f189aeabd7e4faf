// Package audit is the text-hygiene audit of a record that ngstats, ngv2r,
// the importers and the norm bank's generator all run: the language of
// each turn, the turn and speaker bounds, and the format markers left in
// the text, named by the defect classes defined here and in pkg/record and
// pkg/dialogue. What counts as a marker is pkg/dialogue's vocabulary, the
// one the parser removes.
package audit

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/ngkit/ngkit/pkg/lang"
	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/record"
)

// Undetermined is the turn language Audit writes for text that is
// confidently in none of the candidate languages.
const Undetermined = "und"

// Audit is the per-record half of ngstats, run by the pipeline on every
// core: it detects the language of each turn (written to turn.lang, ""
// when the detector cannot tell), checks the dialogue's language against
// the expected one (checks.lang_*), and adds the defects it finds on the
// turns to checks.defects. It changes only the record it is given.
type Audit struct {
	// Detector is, when nil, lang.For the record's accepted languages:
	// the default candidates plus, say, Vietnamese for a Vietnamese
	// dialogue, so that lingua loads only the models the records need.
	Detector *lang.Detector
	// MinTurns and MaxTurns bound a dialogue's turn count (0: no bound).
	MinTurns, MaxTurns int
	// MinLangShare is the share of confident turns in the expected language
	// under which a dialogue has the wrong_language defect.
	MinLangShare float64
}

// DefaultMinLangShare is ngstats' --min-lang-share: under this share of
// turns in the expected language a dialogue has the wrong_language defect.
const DefaultMinLangShare = 0.8

// Default is an audit with ngstats' default thresholds.
func Default() *Audit {
	return &Audit{MinTurns: record.DefaultMinTurns, MaxTurns: record.DefaultMaxTurns, MinLangShare: DefaultMinLangShare}
}

// Copy audits a copy of rec and returns it; rec stays as it came (the
// turns and the checks, which the audit edits, are copies).
func (a *Audit) Copy(rec *record.Record) *record.Record {
	c := *rec
	c.Turns = slices.Clone(rec.Turns)
	if rec.Checks != nil {
		ch := *rec.Checks
		ch.Defects = slices.Clone(ch.Defects)
		c.Checks = &ch
	}
	a.Record(&c)
	return &c
}

// Name implements pipeline.Stage.
func (a *Audit) Name() string { return "ngstats" }

// Process implements pipeline.Stage.
func (a *Audit) Process(_ context.Context, rec *record.Record) ([]*record.Record, error) {
	a.Record(rec)
	return []*record.Record{rec}, nil
}

// ExpectedLang is the language a record's dialogue should be in: its
// checks.lang_expected, its lang, or its culture's language.
func ExpectedLang(rec *record.Record) string {
	if rec.Checks != nil && rec.Checks.LangExpected != "" {
		return lang.Normalize(rec.Checks.LangExpected)
	}
	if rec.Lang != "" {
		return lang.Normalize(rec.Lang)
	}
	return lang.Normalize(normbank.CultureLang(rec.Culture))
}

// AcceptedLangs are the languages a record's dialogue may be in: expected,
// and, when the record's culture has a profile that names several
// languages of which expected is one (Singapore: en, zh, ms, ta), all of
// them, expected first.
func AcceptedLangs(rec *record.Record, expected string) []string {
	if expected == "" {
		return nil
	}
	langs := cultureLangs(rec.Culture)
	if len(langs) < 2 || !slices.Contains(langs, expected) {
		return []string{expected}
	}
	out := append(make([]string, 0, len(langs)), expected)
	for _, l := range langs {
		if l != expected {
			out = append(out, l)
		}
	}
	return out
}

func cultureLangs(culture string) []string {
	if culture == "" {
		return nil
	}
	if p, err := normbank.SharedProfile(culture); err == nil {
		return p.Langs()
	}
	return nil
}

// detectors caches lang.For by accepted languages: it is asked once per
// record, and building its key is cheaper than lang.For's own lookup.
var detectors sync.Map

func detectorFor(accepted []string) *lang.Detector {
	key := strings.Join(accepted, ",")
	if d, ok := detectors.Load(key); ok {
		return d.(*lang.Detector)
	}
	d, err := lang.For(accepted...)
	if err != nil {
		d = lang.Default()
	}
	detectors.Store(key, d)
	return d
}

// Record audits one record in place.
func (a *Audit) Record(rec *record.Record) {
	FieldDefects(rec)
	if len(rec.Turns) == 0 {
		if _, ok := rec.Extra["dialogue"]; ok {
			rec.AddDefect(record.DefectEmptyDialogue)
		}
		return
	}
	expected := ExpectedLang(rec)
	accepted := AcceptedLangs(rec, expected)
	det := a.Detector
	if det == nil {
		det = detectorFor(accepted)
	}
	var confident, matching int
	found := make([]int, len(accepted))
	speakers := make(map[string]struct{}, 4)
	for i := range rec.Turns {
		t := &rec.Turns[i]
		speakers[t.Speaker] = struct{}{}
		if t.Text == "" {
			// A turn of only a stage direction ("(nods)") is fine.
			if t.Action == "" {
				rec.AddDefect(DefectEmptyTurn)
			}
			t.Lang = ""
			continue
		}
		TextDefects(t.Text, rec.AddDefect)
		r := det.Detect(t.Text)
		switch {
		case r.Confidence < lang.MinConfidence:
			t.Lang = ""
		case r.Lang == "":
			t.Lang = Undetermined
		default:
			t.Lang = r.Lang
		}
		if t.Lang != "" {
			confident++
			if k := slices.Index(accepted, t.Lang); k >= 0 {
				matching++
				found[k]++
			}
		}
	}
	if len(speakers) < 2 {
		rec.AddDefect(DefectSingleSpeaker)
	}
	turnDefects(rec, accepted)
	switch n := len(rec.Turns); {
	case rec.Sim != nil:
		// A simulated episode (ngsim) ends when its user's goal is met or
		// at ngsim's --max-turns: the dialogue bounds are not its.
	case a.MinTurns > 0 && n < a.MinTurns:
		rec.AddDefect(DefectTooFewTurns)
	case a.MaxTurns > 0 && n > a.MaxTurns:
		rec.AddDefect(DefectTooManyTurns)
	}
	if expected == "" || confident == 0 {
		return
	}
	if rec.Checks == nil {
		rec.Checks = &record.Checks{}
	}
	share := float64(matching) / float64(confident)
	ok := share >= a.MinLangShare
	// Of a culture's several languages, the one most turns were found in
	// is the one the dialogue is in: lang_expected says which.
	best := 0
	for k := range found {
		if found[k] > found[best] {
			best = k
		}
	}
	rec.Checks.LangExpected = accepted[best]
	rec.Checks.LangShare = share
	rec.Checks.LangOK = &ok
	if !ok {
		rec.AddDefect(DefectWrongLanguage)
	}
}
