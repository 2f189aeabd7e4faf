package refine

import (
	"slices"
	"strings"
	"sync"

	"github.com/ngkit/ngkit/pkg/lang"
	"github.com/ngkit/ngkit/pkg/normbank"
	"golang.org/x/text/language"
	"golang.org/x/text/language/display"
)

// culture is a profile with what refinement derives from it once.
type culture struct {
	p *normbank.Culture
	// language and languageSelf name the scenario language in English and
	// in itself ("Korean", "한국어"), for the prompts.
	language, languageSelf string
	det                    *lang.Detector
}

// culture returns the profile of a culture, read once per run.
func (s *Stage) culture(name string) (*culture, error) {
	return s.cultures.get(strings.ToLower(strings.TrimSpace(name)), func() (*culture, error) {
		p, err := s.opt.Profile(name)
		if err != nil {
			return nil, err
		}
		det, err := detectorFor(p.ScenarioLang)
		if err != nil {
			return nil, err
		}
		tag := language.Make(p.ScenarioLang)
		c := &culture{p: p, det: det, language: display.English.Languages().Name(tag), languageSelf: display.Self.Name(tag)}
		if c.language == "" {
			c.language = p.ScenarioLang
		}
		if c.languageSelf == "" {
			c.languageSelf = c.language
		}
		return c, nil
	})
}

// scriptLangs are decided by script in pkg/lang, without lingua models.
var scriptLangs = []string{"zh", "ja", "ko", "th", "ta"}

// detectorFor returns a detector that tells the scenario language from
// what a model may drift into. For Chinese, Japanese, Korean, Thai and
// Tamil, those and English do, and need no lingua model (~170 MB
// resident): a run over those cultures never loads one. Traditional
// Chinese is told from Simplified only when it is the scenario language:
// with both forms as candidates, Chinese text that neither form marks is
// weak, and a Simplified scenario must not be refused for that. A
// Latin-script language needs its Latin neighbours (lang.For).
func detectorFor(scenarioLang string) (*lang.Detector, error) {
	l := lang.Normalize(scenarioLang)
	switch {
	case slices.Contains(scriptLangs, l):
		return lang.New(append(slices.Clone(scriptLangs), "en")...)
	case l == "zh-Hant":
		return lang.New(append(slices.Clone(scriptLangs), "en", l)...)
	}
	return lang.For(l)
}

// audit returns the rules of the exemplar audit a version breaks: a
// scenario of 1-2 sentences and a situation of 3-5, one line each,
// without format markers, in the scenario language. Rewrites must pass;
// a seed that came in breaking them is rewritten whatever its scores.
func (c *culture) audit(v *version) []string {
	e := normbank.Exemplar{Culture: c.p.Name, Scenario: v.scenario, Situation: v.situation}
	return normbank.AuditExemplar(&e, c.p, c.det)
}

// cache holds values made once per key, concurrently.
type cache[T any] struct {
	mu sync.Mutex
	m  map[string]*cached[T]
}

type cached[T any] struct {
	once sync.Once
	v    T
	err  error
}

func (c *cache[T]) get(key string, make func() (T, error)) (T, error) {
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]*cached[T]{}
	}
	e := c.m[key]
	if e == nil {
		e = &cached[T]{}
		c.m[key] = e
	}
	c.mu.Unlock()
	e.once.Do(func() { e.v, e.err = make() })
	return e.v, e.err
}
