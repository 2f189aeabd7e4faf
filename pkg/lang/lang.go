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
// lingua's models are large (~40 MB resident per language once decoded) and are
// held in process-wide maps inside lingua: they are loaded once per process,
// when the first Detector that needs them is built, and only for the Latin
// candidates of that Detector. For builds the detector a run needs for
// given expected languages: the default set plus those languages and their
// near neighbours, so a run over Korean and Thai dialogues loads no more
// than the default set, and one over Malay loads Malay and Indonesian.
package lang

import (
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"unicode"

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
// ever be "en" and a French turn would pass. Each Latin candidate costs ~20
// MB of Go heap and ~40 MB resident (measured: en+fr 86 MB RSS, this set
// 167 MB, plus it+pt+nl 259 MB), makes every lingua call slower and adds
// false positives on short English turns, so the set stops at three.
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
// first use, once per process; the first call loads the lingua models for
// the Latin candidates (~0.3 s and ~165 MB resident for the default set).
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

// Normalize returns the canonical form of a BCP-47 tag that detectors and
// checks compare: the lower-case primary subtag ("EN_us" -> "en", "ko-KR"
// -> "ko"), except for Chinese, which keeps its written form: "zh-Hant"
// for Traditional (zh-Hant, zh-Hant-TW, and zh-TW, zh-HK, zh-MO without a
// script subtag) and "zh" for Simplified (zh, zh-Hans, zh-CN, zh-SG). It
// returns "" when tag has no alphabetic primary subtag of 2 or 3 letters.
func Normalize(tag string) string {
	tag = strings.TrimSpace(tag)
	rest := ""
	if i := strings.IndexAny(tag, "-_"); i >= 0 {
		tag, rest = tag[:i], tag[i+1:]
	}
	if len(tag) < 2 || len(tag) > 3 {
		return ""
	}
	for i := 0; i < len(tag); i++ {
		c := tag[i] | 0x20
		if c < 'a' || c > 'z' {
			return ""
		}
	}
	tag = strings.ToLower(tag)
	if tag == "zh" && traditional(rest) {
		return "zh-Hant"
	}
	return tag
}

// traditional reports whether the subtags after "zh" say Traditional: a
// Hant script subtag, or no script subtag and a region that writes
// Traditional (Taiwan, Hong Kong, Macau).
func traditional(subtags string) bool {
	for _, st := range strings.FieldsFunc(subtags, func(r rune) bool { return r == '-' || r == '_' }) {
		switch strings.ToLower(st) {
		case "hant":
			return true
		case "hans":
			return false
		case "tw", "hk", "mo":
			return true
		}
	}
	return false
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
		// Preloaded: lingua's lazy loading is racy in the benign but costly
		// sense that N goroutines hitting a cold model each decode it (tens
		// of MB each) before one wins. Loading at build time, once, avoids
		// that and keeps Detect latency flat.
		//
		// High-accuracy mode: lingua only sees what the function-word vote
		// leaves open, mostly short turns, where low-accuracy mode (trigrams
		// only) is much worse. Measured on 8000 English release turns, en
		// vs {en,fr,es,de}: high accuracy 99.5% en, 2 confident non-en, ~150
		// µs/call; low accuracy 98.0% en, 120 confident non-en, ~90 µs/call.
		reserveMemory(int64(len(ll)) * modelBytes)
		d.ld = lingua.NewLanguageDetectorBuilder().
			FromLanguages(ll...).
			WithPreloadedLanguageModels().
			Build()
	}
	return d, nil
}

// modelBytes is about what one Latin language's lingua models keep resident.
const modelBytes = 45 << 20

// reserveMemory raises the process' soft memory limit, when one is set and
// not by the user's GOMEMLIMIT, by the resident models: a limit chosen for
// a program's streaming buffers (pkg/pipeline sets one) would otherwise sit
// under the models and keep the garbage collector running without pause.
func reserveMemory(n int64) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	if cur := debug.SetMemoryLimit(-1); cur != math.MaxInt64 {
		debug.SetMemoryLimit(cur + n)
	}
}

// Languages returns the candidate languages, normalized, in the order given.
func (d *Detector) Languages() []string { return append([]string(nil), d.langs...) }

// Detect returns the language of text after StripForDetection.
func (d *Detector) Detect(text string) Result {
	return d.detectStripped(StripForDetection(text))
}

// Tuning constants of the script fast path. See the package doc.
const (
	// hanCharsPerWord converts Han and kana characters into word units
	// comparable with Latin words and Hangul runs.
	hanCharsPerWord = 1.7
	// kanaShare: Japanese prose has well over half kana; Chinese text may
	// contain a stray "の" or a katakana name. A quarter is safely between.
	kanaShare = 0.25
	// Letters needed for full length confidence, per deciding script. Hangul
	// and kana are unambiguous; a few Han characters could still be
	// Japanese; a short Latin string is anyone's guess for lingua.
	fullHangul = 2
	fullKana   = 2
	fullHan    = 4
	fullLatin  = 12
	// Thai and Tamil letters are unambiguous too; a few make a word.
	fullThai  = 4
	fullTamil = 4
	// thaiCharsPerWord converts Thai letters (vowel and tone marks not
	// counted) into word units: Thai writes no spaces between words.
	thaiCharsPerWord = 3.5
	// minLatinLetters: below this, Latin text is not looked at further
	// (no vote, no lingua): its length factor alone keeps the confidence
	// under MinConfidence.
	minLatinLetters = fullLatin * MinConfidence
)

// scriptCounts is a letter census of a stripped text.
type scriptCounts struct {
	hangul, kana, han, latin, thai, tamil, other int // letters
	hangulRuns, latinRuns, tamilRuns, otherRuns  int // maximal runs of one script (≈ words)
	simp, trad                                   int // Han characters only Simplified / only Traditional writes
}

const (
	clsNone = iota
	clsHangul
	clsKana
	clsHan
	clsLatin
	clsThai
	clsTamil
	clsOther
)

func classify(r rune) int {
	if r < 0x80 {
		if (r|0x20) >= 'a' && (r|0x20) <= 'z' {
			return clsLatin
		}
		return clsNone
	}
	// Fast paths for the blocks that make up nearly all release text; the
	// unicode tables below are a binary search each.
	switch {
	case r >= 0xAC00 && r <= 0xD7A3: // Hangul syllables
		return clsHangul
	case r >= 0x4E00 && r <= 0x9FFF: // CJK unified ideographs
		return clsHan
	case r >= 0x3041 && r <= 0x3096, r >= 0x30A1 && r <= 0x30FA, r == 'ー': // kana
		return clsKana
	case r >= 0xC0 && r <= 0x24F && r != 0xD7 && r != 0xF7: // Latin-1 Supplement, Extended-A/B letters
		return clsLatin
	case r >= 0x1EA0 && r <= 0x1EF9: // Latin Extended Additional: Vietnamese letters with two marks
		return clsLatin
	case r >= 0x2000 && r <= 0x206F, r >= 0x3000 && r <= 0x3004, r >= 0x3008 && r <= 0x301F, r >= 0xFF01 && r <= 0xFF0F: // punctuation
		return clsNone
	}
	return classifySlow(r)
}

// classifySlow is classify by the unicode tables only (tested equal to the
// fast paths).
func classifySlow(r rune) int {
	if r == 'ー' {
		// U+30FC is script Common, but only Japanese writes it.
		return clsKana
	}
	switch {
	case unicode.Is(unicode.Hangul, r):
		return clsHangul
	case unicode.Is(unicode.Han, r):
		return clsHan
	case unicode.In(r, unicode.Hiragana, unicode.Katakana):
		return clsKana
	case unicode.Is(unicode.Latin, r):
		return clsLatin
	case unicode.IsMark(r):
		// Combining accents, Thai vowel and tone marks and Tamil vowel
		// signs belong to the preceding letter.
		return -1
	case !unicode.IsLetter(r):
		return clsNone
	case unicode.Is(unicode.Thai, r):
		return clsThai
	case unicode.Is(unicode.Tamil, r):
		return clsTamil
	}
	return clsOther
}

// hanForm says which written form of Chinese a Han character belongs to
// only: hanSimp, hanTrad, or 0 for characters both write (hanvariants.go).
var hanForm = func() []uint8 {
	t := make([]uint8, 0x9FFF-0x4E00+1)
	for _, r := range simplifiedOnly {
		t[r-0x4E00] = hanSimp
	}
	for _, r := range traditionalOnly {
		t[r-0x4E00] = hanTrad
	}
	return t
}()

const (
	hanSimp = 1
	hanTrad = 2
)

func census(s string) scriptCounts {
	var c scriptCounts
	prev := clsNone
	for _, r := range s {
		cls := classify(r)
		if cls == -1 {
			continue
		}
		switch cls {
		case clsHangul:
			c.hangul++
			if prev != clsHangul {
				c.hangulRuns++
			}
		case clsKana:
			c.kana++
		case clsHan:
			c.han++
			if r >= 0x4E00 && r <= 0x9FFF {
				switch hanForm[r-0x4E00] {
				case hanSimp:
					c.simp++
				case hanTrad:
					c.trad++
				}
			}
		case clsLatin:
			c.latin++
			if prev != clsLatin {
				c.latinRuns++
			}
		case clsThai:
			c.thai++
		case clsTamil:
			c.tamil++
			if prev != clsTamil {
				c.tamilRuns++
			}
		case clsOther:
			c.other++
			if prev != clsOther {
				c.otherRuns++
			}
		}
		prev = cls
	}
	return c
}

func lengthFactor(n, full int) float64 {
	if n >= full {
		return 1
	}
	return float64(n) / float64(full)
}

// weakVariant is the confidence cap of Han text that has no character of
// only one form, for a detector that must tell Simplified from
// Traditional: certainly Chinese, but which form cannot be told.
const weakVariant = MinConfidence - 0.05

func (d *Detector) detectStripped(s string) Result {
	c := census(s)
	cjk := float64(c.hangulRuns) + float64(c.han+c.kana)/hanCharsPerWord
	lat := float64(c.latinRuns)
	thai := float64(c.thai) / thaiCharsPerWord
	tamil := float64(c.tamilRuns)
	oth := float64(c.otherRuns)
	total := cjk + lat + thai + tamil + oth
	if total == 0 {
		return Result{}
	}
	// The dominant script decides; ties go to CJK, then Latin, Thai,
	// Tamil, other scripts.
	switch top := max(cjk, lat, thai, tamil, oth); {
	case cjk == top:
	case lat == top:
		return d.detectLatin(s, c, lat/total)
	case thai == top:
		return d.pick(d.th, "th", thai/total*lengthFactor(c.thai, fullThai))
	case tamil == top:
		return d.pick(d.ta, "ta", tamil/total*lengthFactor(c.tamil, fullTamil))
	default:
		return Result{Confidence: oth / total * lengthFactor(c.other, fullLatin)}
	}
	share := cjk / total
	cj := c.han + c.kana
	switch {
	case c.hangul > 0 && c.hangul >= cj:
		return d.pick(d.ko, "ko", share*lengthFactor(c.hangul, fullHangul))
	case c.kana > 0 && float64(c.kana) >= kanaShare*float64(cj):
		return d.pick(d.ja, "ja", share*lengthFactor(cj, fullKana))
	case d.zh && d.zht:
		return d.chineseForm(c, share*lengthFactor(cj, fullHan))
	case d.zh:
		return d.pick(true, "zh", share*lengthFactor(cj, fullHan))
	case d.zht:
		return d.pick(true, "zh-Hant", share*lengthFactor(cj, fullHan))
	default:
		// Han-only text without zh among the candidates: it may be
		// kanji-only Japanese; say so, weakly.
		return d.pick(d.ja, "ja", 0.5*share*lengthFactor(cj, fullHan))
	}
}

// chineseForm tells Simplified from Traditional Chinese by the characters
// only one form writes. The confidence is scaled by the margin between
// the two counts: a Traditional text quoting one Simplified name is still
// Traditional. Text with none of them is either; it gets the first of zh
// and zh-Hant among the candidates, below MinConfidence.
func (d *Detector) chineseForm(c scriptCounts, conf float64) Result {
	s, t := c.simp, c.trad
	switch {
	case s == t:
		l := "zh"
		if d.hantFirst {
			l = "zh-Hant"
		}
		return Result{Lang: l, Confidence: min(conf, weakVariant)}
	case t > s:
		return Result{Lang: "zh-Hant", Confidence: conf * variantFactor(t, s)}
	default:
		return Result{Lang: "zh", Confidence: conf * variantFactor(s, t)}
	}
}

// variantFactor is how sure n distinguishing characters against m of the
// other form make the verdict: one character alone is enough (a short
// turn such as "謝謝。" has only that), an even mix is not.
func variantFactor(n, m int) float64 {
	return float64(n-m) / float64(n+m)
}

// pick reports lang if it is a candidate, and "" otherwise (with the same
// confidence: the text is certainly not in any candidate language).
func (d *Detector) pick(ok bool, lang string, conf float64) Result {
	if !ok {
		lang = ""
	}
	return Result{Lang: lang, Confidence: conf}
}

func (d *Detector) detectLatin(s string, c scriptCounts, share float64) Result {
	lf := lengthFactor(c.latin, fullLatin)
	switch {
	case len(d.latin) == 0:
		return Result{Confidence: share * lf}
	case len(d.latin) == 1 || c.latin < minLatinLetters:
		return Result{Lang: d.latin[0], Confidence: share * lf}
	}
	if d.words {
		if win, h1, h2 := wordVote(s); win != "" {
			conf := share * lf * float64(h1) / float64(h1+h2)
			switch {
			case d.isLatinCandidate(win):
				return Result{Lang: win, Confidence: conf, Method: ByWords}
			case h1 >= minWordHits:
				// Clearly Italian, say, for a detector without "it": none of
				// the candidates. lingua would force the nearest candidate
				// (it calls Dutch English). A single word ("Ciao, Maria!")
				// is too little to call a turn foreign; lingua decides.
				return Result{Confidence: conf, Method: ByWords}
			}
		}
	}
	vals := d.ld.ComputeLanguageConfidenceValues(latinOnly(s, c))
	top := vals[0]
	if top.Value() == 0 {
		// lingua found no known n-gram: we only know it is Latin script.
		return Result{Lang: d.latin[0], Confidence: 0.5 * share * lf, Method: ByLingua}
	}
	// lingua's values are a softmax over the candidates, so 1/n is chance
	// level; rescale to "above chance" so that a name-only turn ("Maria
	// Garcia": es 0.59 among four) stays below MinConfidence.
	chance := 1 / float64(len(vals))
	conf := (top.Value() - chance) / (1 - chance)
	return Result{Lang: d.byLingua[top.Language()], Confidence: conf * share * lf, Method: ByLingua}
}

func (d *Detector) isLatinCandidate(code string) bool {
	for _, c := range d.latin {
		if c == code {
			return true
		}
	}
	return false
}

// latinOnly keeps only the Latin words of s, space-separated, so that a
// Han name in English text does not engage lingua's own CJK rules. When s
// has no other letters it is returned as is.
func latinOnly(s string, c scriptCounts) string {
	if c.hangul+c.kana+c.han+c.thai+c.tamil+c.other == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	prev := clsNone
	for _, r := range s {
		cls := classify(r)
		if cls == clsLatin || (cls == -1 && prev == clsLatin) {
			if prev != clsLatin && b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteRune(r)
			prev = clsLatin
			continue
		}
		prev = clsNone
	}
	return b.String()
}

// Check detects every turn and returns the share of turns in the expected
// language, together with the detected language of each turn ("" when
// unknown). Turns whose result is below MinConfidence (no letters, "OK",
// "嗯") count neither for nor against and are left out of the share; when
// no turn is confident the share is 0, and so it is when expected is not a
// valid tag. Check uses the Default detector.
func Check(turnTexts []string, expected string) (share float64, langs []string) {
	return Default().Check(turnTexts, expected)
}

// Check is Check with this detector's candidate set.
func (d *Detector) Check(turnTexts []string, expected string) (share float64, langs []string) {
	v := d.CheckAny(turnTexts, expected)
	return v.Share, v.Langs
}

// Verdict is the outcome of CheckAny.
type Verdict struct {
	// Share of the confident turns that are in one of the accepted
	// languages (0 when no turn is confident).
	Share float64
	// Langs is the detected language of each turn, as Detect says ("" when
	// unknown), confident or not.
	Langs []string
	// Found are the accepted languages found among the confident turns,
	// the most frequent first (ties in the order accepted): which of a
	// culture's languages the dialogue is in.
	Found []string
	// Confident is the number of confident turns.
	Confident int
}

// CheckAny is Check for a culture written in several languages
// (Singapore: English, Chinese, Malay, Tamil): a turn in any of the
// accepted languages counts as matching, and Found says which were found.
func (d *Detector) CheckAny(turnTexts []string, accepted ...string) Verdict {
	acc := make([]string, 0, len(accepted))
	for _, a := range accepted {
		if a = Normalize(a); a != "" && !slices.Contains(acc, a) {
			acc = append(acc, a)
		}
	}
	v := Verdict{Langs: make([]string, len(turnTexts))}
	counts := make([]int, len(acc))
	ok := 0
	for i, t := range turnTexts {
		r := d.Detect(t)
		v.Langs[i] = r.Lang
		if r.Confidence < MinConfidence {
			continue
		}
		v.Confident++
		if k := slices.Index(acc, r.Lang); k >= 0 && r.Lang != "" {
			counts[k]++
			ok++
		}
	}
	if v.Confident > 0 {
		v.Share = float64(ok) / float64(v.Confident)
	}
	for k := range acc {
		if counts[k] > 0 {
			v.Found = append(v.Found, acc[k])
		}
	}
	slices.SortStableFunc(v.Found, func(a, b string) int {
		return counts[slices.Index(acc, b)] - counts[slices.Index(acc, a)]
	})
	return v
}

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
