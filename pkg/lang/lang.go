// Package lang identifies the language of dialogue turns (DEVELOPING.md,
// "Language checks").
//
// NormGenesis dialogues must be written in the culture's language. Detection
// is restricted to a small candidate set and works in three stages:
//
//  1. a script fast path on the stripped text (see StripForDetection): Hangul
//     means Korean, kana means Japanese, Han without kana or Hangul means
//     Chinese, Thai script Thai, Tamil script Tamil. When both zh (Simplified)
//     and zh-Hant (Traditional) are candidates, Han text is told apart by the
//     characters only one of the two forms writes (们/們, 这/這, 说/說; a
//     table from the Unicode Han database, see hanvariants.go); text with
//     none of them (好的, 谢 and 謝 both absent) is Chinese of either form and
//     is reported with a confidence under MinConfidence. These scripts decide
//     by themselves, so lingua models are never needed for zh, zh-Hant, ko,
//     ja, th and ta;
//  2. text dominated by Latin letters is put to a vote of function words
//     ("the", "you", "est", "qué", "nicht", "không", "hindi", "nggak", ...;
//     see words.go), which settles most turns in about a microsecond;
//  3. Latin text the vote leaves open goes to lingua-go, restricted to the
//     Latin-script candidates (en, vi, id, ms, tl and the neighbours fr, es,
//     de). Together, 2 and 3 catch French or Spanish in a dialogue that
//     should be English, and Indonesian in one that should be Malay.
//
// Mixed-script text resolves to the dominant script, measured in words, not
// letters: a Latin word counts as one unit, a Hangul run (a Korean eojeol) as
// one unit, and Han/kana characters as one unit per 1.7 characters (the mean
// Chinese word length). So "我昨天在Starbucks见到了Michael" is Chinese and
// "I met 王小明 yesterday" is English.
//
// Very short text carries little evidence. Its confidence is scaled down by
// length, so that Check and callers comparing against MinConfidence treat it
// as neutral instead of flipping the verdict: "OK" is reported as the first
// Latin candidate with confidence ~0.2, "嗯……" as zh with 0.25, "네." as ko
// with 0.5 (Hangul is unambiguous).
//
// lingua's models are large (~11 MB of Go heap per language as models.go
// indexes them, 40 MB as lingua's own maps): they are decoded once per
// process, when the first text that needs lingua is checked, and only for
// the Latin candidates of that text's Detector. For builds the detector a run needs for
// given expected languages: the default set plus those languages and their
// near neighbours, so a run over Korean and Thai dialogues loads no more
// than the default set, and one over Malay loads Malay and Indonesian.
package lang

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/ngkit/ngkit/pkg/memlimit"
	"github.com/pemistahl/lingua-go"
)

// MinConfidence is the confidence below which a Result is too weak to count
// for or against a language (very short text, text without letters).
const MinConfidence = 0.5

// DefaultLanguages is the candidate set of Default: the three release
// languages, Japanese as the near neighbour of Chinese (the script fast path
// tells them apart without models), and French, Spanish and German as the
// Latin near neighbours of English: the languages an English-prompted model
// most plausibly drifts into. Without any neighbour, Latin text could only
// ever be "en" and a French turn would pass. Each Latin candidate costs ~11
// MB of Go heap and ~60 ms of CPU to decode its models (models.go), makes
// every lingua call slower and adds false positives on short English
// turns, so the set stops at three.
// Italian, Portuguese and Dutch text is still reported as "not a candidate"
// by the function-word vote (words.go), without loading their models.
// Thai and Tamil are decided by script and cost nothing, so they are
// candidates too. The Latin languages of the Southeast Asian cultures (vi,
// id, ms, tl) and zh-Hant are not: each Latin one costs a model, and
// zh-Hant would make every Chinese turn without a distinguishing character
// weak; For adds them when a run needs them.
var DefaultLanguages = []string{"en", "zh", "ko", "ja", "fr", "es", "de", "th", "ta"}

// neighbours are, for a language, the languages a model asked for it most
// plausibly writes instead, which a detector checking it must know: Malay
// and Indonesian are close kin (a Malaysian dialogue in Indonesian is a
// real drift), and Traditional Chinese is checked against Simplified.
var neighbours = map[string][]string{
	"ms":      {"id"},
	"id":      {"ms"},
	"zh-Hant": {"zh"},
}

// Result is the language detected for one text.
type Result struct {
	// Lang is the detected language as Normalize writes it ("en", "zh",
	// "zh-Hant", "ko", "ja", "th", ...), always one of the detector's
	// candidates, or ""
	// when no candidate fits: no letters at all, or text in a script no
	// candidate uses (e.g. Korean text for a detector built without "ko").
	Lang string
	// Confidence in [0, 1]. It combines how dominant the deciding script is
	// in the text, the length of the evidence and, for Latin text, the
	// margin of the function-word vote or lingua's confidence. Below
	// MinConfidence the result should be treated as "cannot tell". Lang ==
	// "" with a high confidence means "certainly none of the candidates".
	Confidence float64
	// Method says which stage decided.
	Method Method
}

// Method is the stage of detection that decided a Result.
type Method uint8

const (
	// ByScript: the script census alone (CJK scripts, no letters, other
	// scripts, Latin text too short to tell or with a single Latin
	// candidate).
	ByScript Method = iota
	// ByWords: the function-word vote among Latin languages.
	ByWords
	// ByLingua: lingua-go's n-gram models.
	ByLingua
)

func (m Method) String() string {
	switch m {
	case ByScript:
		return "script"
	case ByWords:
		return "words"
	case ByLingua:
		return "lingua"
	}
	return "unknown"
}

// Detector identifies languages among a fixed candidate set. It is immutable
// after construction and safe for concurrent use.
type Detector struct {
	langs           []string // candidates, normalized, in the order given
	zh, zht, ja, ko bool
	th, ta          bool
	hantFirst       bool     // zh-Hant comes before zh in langs: the answer for Han text of either form
	latin           []string // Latin-script candidates in the order given; latin[0] is preferred for text too short to tell
	words           bool     // every Latin candidate has a function-word list
	byLingua        map[lingua.Language]string
	ld              lingua.LanguageDetector // nil when fewer than two Latin candidates
	ll              []lingua.Language       // ld's languages
	lms             []*langModels           // their models, as ll
	load            *modelLoad              // decodes lms on the first text for lingua
}

var (
	cacheMu sync.Mutex
	cache   = map[string]*cacheEntry{}
)

type cacheEntry struct {
	once sync.Once
	d    *Detector
	err  error
}

// Default returns the shared detector for DefaultLanguages. It is built on
// first use, once per process; the first text that reaches lingua decodes
// the models of the Latin candidates (~0.25 s of CPU and 44 MB for the
// default set).
func Default() *Detector {
	d, err := New(DefaultLanguages...)
	if err != nil {
		panic("lang: default languages: " + err.Error()) // cannot happen
	}
	return d
}

// New returns a detector for the given BCP-47 language tags ("en", "zh",
// "zh-Hant", "ko-KR", ...; compared as Normalize writes them). zh, zh-Hant,
// ja, ko, th and ta are decided by script; every other tag must be a
// Latin-script language lingua supports. The order matters in one way: the first Latin candidate
// is reported for Latin text too short to tell apart.
//
// Detectors are cached per candidate list, so calling New repeatedly with
// the same list is cheap and loads lingua models only once.
func New(langs ...string) (*Detector, error) {
	norm := make([]string, 0, len(langs))
	seen := map[string]bool{}
	for _, l := range langs {
		c := Normalize(l)
		if c == "" {
			return nil, fmt.Errorf("lang: empty or malformed language tag %q", l)
		}
		if !seen[c] {
			seen[c] = true
			norm = append(norm, c)
		}
	}
	if len(norm) == 0 {
		return nil, fmt.Errorf("lang: no candidate languages")
	}
	key := strings.Join(norm, ",")
	cacheMu.Lock()
	e := cache[key]
	if e == nil {
		e = &cacheEntry{}
		cache[key] = e
	}
	cacheMu.Unlock()
	e.once.Do(func() { e.d, e.err = build(norm) })
	return e.d, e.err
}

var latinLinguaLanguages = func() map[lingua.Language]bool {
	m := map[lingua.Language]bool{}
	for _, l := range lingua.AllLanguagesWithLatinScript() {
		m[l] = true
	}
	return m
}()

func build(langs []string) (*Detector, error) {
	d := &Detector{langs: langs, byLingua: map[lingua.Language]string{}}
	var ll []lingua.Language
	for _, c := range langs {
		switch c {
		case "zh":
			d.zh = true
			continue
		case "zh-Hant":
			d.zht = true
			d.hantFirst = !d.zh
			continue
		case "ja":
			d.ja = true
			continue
		case "ko":
			d.ko = true
			continue
		case "th":
			d.th = true
			continue
		case "ta":
			d.ta = true
			continue
		}
		l := lingua.GetLanguageFromIsoCode639_1(lingua.GetIsoCode639_1FromValue(c))
		if l == lingua.Unknown {
			return nil, fmt.Errorf("lang: language %q is not supported by lingua", c)
		}
		if !latinLinguaLanguages[l] {
			return nil, fmt.Errorf("lang: language %q is not written in Latin script; only zh, zh-Hant, ja, ko, th, ta and Latin-script languages are supported", c)
		}
		d.latin = append(d.latin, c)
		d.byLingua[l] = c
		ll = append(ll, l)
	}
	d.words = true
	for _, c := range d.latin {
		d.words = d.words && hasWordList(c)
	}
	if len(ll) >= 2 {
		// lingua's maps hold only the n-grams of the texts it is asked
		// about (models.go); the model files are decoded into indexes on
		// the first text that needs them. High-accuracy mode: lingua only
		// sees what the function-word vote leaves open, mostly short turns,
		// where low-accuracy mode (trigrams only) is much worse. Measured
		// on 8000 English release turns, en vs {en,fr,es,de}: high accuracy
		// 99.5% en, 2 confident non-en, ~150 µs/call; low accuracy 98.0%
		// en, 120 confident non-en, ~90 µs/call.
		memlimit.Reserve(int64(len(ll)) * modelBytes)
		for _, l := range ll {
			d.lms = append(d.lms, modelsOf(l))
		}
		d.ll = ll
		d.load = &modelLoad{}
		d.ld = lingua.NewLanguageDetectorBuilder().FromLanguages(ll...).Build()
	}
	return d, nil
}

// modelBytes is about what one Latin language's model indexes keep in the
// Go heap (models.go; 44 MB measured for en, fr, es, de).
const modelBytes = 11 << 20

// Languages returns the candidate languages, normalized, in the order given.
func (d *Detector) Languages() []string { return append([]string(nil), d.langs...) }

// For returns the detector that checks text expected in any of the given
// languages: the DefaultLanguages, the expected ones and their near
// neighbours (Indonesian for Malay and back, Simplified for Traditional
// Chinese); the ones beyond the defaults sorted, so that every order of
// the same languages shares one detector. Only the Latin-script languages among them
// load lingua models, once per process: For("ko") and For("th") are the
// Default detector, For("ms") loads Malay and Indonesian beside it.
func For(expected ...string) (*Detector, error) {
	langs := slices.Clone(DefaultLanguages)
	add := func(l string) {
		if l != "" && !slices.Contains(langs, l) {
			langs = append(langs, l)
		}
	}
	for _, e := range expected {
		n := Normalize(e)
		if n == "" {
			return nil, fmt.Errorf("lang: empty or malformed language tag %q", e)
		}
		add(n)
		for _, nb := range neighbours[n] {
			add(nb)
		}
	}
	slices.Sort(langs[len(DefaultLanguages):])
	return New(langs...)
}
