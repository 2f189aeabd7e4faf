package audit

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ngkit/ngkit/pkg/lang"
	"github.com/ngkit/ngkit/pkg/record"
)

// The rules of a dialogue's turns that real small models broke while
// every other check passed. ngv2r refuses a reply by them,
// naming the turns; the audit marks a record with their defects, so that
// ngstats finds the same in a corpus made elsewhere.

// Repeat is a turn that says word for word what an earlier turn said.
type Repeat struct{ Turn, Of int }

// RepeatedTurns lists the turns whose text is, but for case and spacing,
// an earlier turn's, and longer than a formula: small models loop on one
// line (SmolLM2-135M wrote a sentence of 14 words in turn after turn),
// while people say a formula twice ("Okay.", "Good morning, Emily.",
// "응.", "再见！": the release repeats such turns in 129 dialogues, none
// longer). Turns of only a stage direction are not compared.
func RepeatedTurns(turns []record.Turn) []Repeat {
	first := map[string]int{}
	var reps []Repeat
	for i, t := range turns {
		key := strings.ToLower(strings.Join(strings.Fields(t.Text), " "))
		if key == "" {
			continue
		}
		// Texts of one key are all formulas or none (the key keeps the
		// words and their punctuation), so the formula test waits for a
		// repeat: most turns have none.
		if j, seen := first[key]; seen {
			if !isFormula(t.Text) {
				reps = append(reps, Repeat{Turn: i, Of: j})
			}
			continue
		}
		first[key] = i
	}
	return reps
}

// Bounds of a formula: at most formulaWords words, or, in a text written
// without spaces (Chinese, Japanese), formulaRunes letters and digits.
const formulaWords, formulaRunes = 6, 8

func isFormula(text string) bool {
	f := words(text)
	switch {
	case len(f) > formulaWords:
		return false
	case strings.ContainsFunc(strings.TrimSpace(text), unicode.IsSpace), len(f) == 1 && isLatinWord(f[0]):
		return true
	}
	return utf8.RuneCountInString(strings.Join(f, "")) <= formulaRunes
}

// words splits text at spaces and punctuation.
func words(text string) []string {
	return strings.FieldsFunc(text, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsPunct(r) })
}

// maxWordRunes bounds a one-word turn in a language written without
// spaces: "没关系。" is one, a sentence is longer.
const maxWordRunes = 6

// OneWordTurns lists the turns whose text is a single word, and tells
// whether they are more than four in five of the dialogue: SmolLM2-135M
// wrote seven turns of names and numbers ("Malike", "12345") that every
// other rule let through. Many one-word turns are fine: a curt reply is
// how the release's violation dialogues break a norm ("嗯。", "还行吧。",
// "Okay." in up to 7 of 9 turns).
func OneWordTurns(turns []record.Turn) (idx []int, mostly bool) {
	for i, t := range turns {
		if strings.TrimSpace(t.Text) == "" {
			continue // a stage direction alone, or an empty turn (a defect of its own)
		}
		if oneWord(t.Text) {
			idx = append(idx, i)
		}
	}
	return idx, len(turns) > 0 && 5*len(idx) > 4*len(turns)
}

// oneWord tells a turn of at most one word: of a language written with
// spaces, or of at most maxWordRunes letters. It is words(text) of at most
// one element, found without making the list (ngstats asks it of every
// turn of a corpus).
func oneWord(text string) bool {
	w, n := firstWords(text)
	return n <= 1 && utf8.RuneCountInString(w) <= maxWordRunes || n == 1 && !strings.ContainsFunc(text, unicode.IsSpace) && isLatinWord(w)
}

// firstWords is the first of words(text) and how many there are, counted
// up to 2.
func firstWords(text string) (first string, n int) {
	start := -1
	for i, r := range text {
		if unicode.IsSpace(r) || unicode.IsPunct(r) {
			if start >= 0 {
				first, start = text[start:i], -1
			}
			continue
		}
		if start < 0 {
			if n++; n > 1 {
				return first, n
			}
			start = i
		}
	}
	if start >= 0 {
		first = text[start:]
	}
	return first, n
}

// isLatinWord tells a word of a language written with spaces, where one
// token is one word whatever its length.
func isLatinWord(w string) bool {
	for _, r := range w {
		if unicode.IsLetter(r) && !unicode.Is(unicode.Latin, r) && !unicode.Is(unicode.Cyrillic, r) && !unicode.Is(unicode.Greek, r) {
			return false
		}
	}
	return true
}

// NamesOutsideScript gives the script of the dialogue's language and the
// speakers named outside it when no speaker's name is written in it
// ("Jessica" and "Mark" in a Korean dialogue, "Professor Cho" and "Suji",
// "Jun" and "Wei"), or whose name is a single letter ("Y" beside "아버지":
// Qwen2.5-Coder-1.5B). One foreigner among the cast is fine (the release's
// Chinese dialogues with "Michael" or "Lily" beside "陈叔"). It checks only
// a dialogue of one accepted language written in a script of its own
// (Korean, Chinese, Japanese): where a culture speaks several languages
// (Singapore), names in another script are expected.
func NamesOutsideScript(speakers, accepted []string) (script string, wrong []string) {
	if len(accepted) != 1 {
		return "", nil
	}
	script, in, ok := lang.NativeScript(accepted[0])
	if !ok {
		return "", nil
	}
	var foreign, letters []string
	anyNative := false
	for _, name := range speakers {
		n, native := 0, false
		for _, r := range name {
			if unicode.IsLetter(r) {
				n++
				native = native || in(r)
			}
		}
		switch {
		case native:
			anyNative = true
		case n == 1:
			letters = append(letters, name)
			foreign = append(foreign, name)
		case n > 1:
			foreign = append(foreign, name)
		}
	}
	if anyNative {
		return script, letters
	}
	return script, foreign
}

// turnDefects adds the defects of the rules above to rec, whose
// dialogue should be in one of accepted.
func turnDefects(rec *record.Record, accepted []string) {
	if len(RepeatedTurns(rec.Turns)) > 0 {
		rec.AddDefect(DefectRepeatedTurn)
	}
	if _, mostly := OneWordTurns(rec.Turns); mostly {
		rec.AddDefect(DefectOneWordTurns)
	}
	var speakers []string
	seen := map[string]bool{}
	for _, t := range rec.Turns {
		if t.Speaker != "" && !seen[t.Speaker] {
			seen[t.Speaker] = true
			speakers = append(speakers, t.Speaker)
		}
	}
	if _, wrong := NamesOutsideScript(speakers, accepted); len(wrong) > 0 {
		rec.AddDefect(DefectNameScript)
	}
}
