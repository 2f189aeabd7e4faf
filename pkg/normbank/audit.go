package normbank

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/ngkit/ngkit/pkg/dialogue"
	"github.com/ngkit/ngkit/pkg/lang"
	"github.com/ngkit/ngkit/pkg/record"
)

// Bounds of the exemplar audit (see the package doc). The situation
// bounds are NormGenesis' "3-5 sentence situation"; the turn bounds are
// ngv2r's defaults.
const (
	MinScenarioSentences  = 1
	MaxScenarioSentences  = 2
	MinSituationSentences = 3
	MaxSituationSentences = 5
	MinTurns              = 5
	MaxTurns              = 15
)

// AuditExemplar checks an exemplar against the rule every built-in
// exemplar passes and returns the problems found, none when it passes:
//
//   - scenario of 1-2 sentences, situation of 3-5 (see Sentences), each
//     on one line, without format markers ([END], **, headers, literal
//     \n, JSON braces) and in the culture's ScenarioLang;
//   - when it has a dialogue: 5-15 turns numbered from 0, at least two
//     speakers, no turn without text or stage direction, no format marker in any turn (the
//     turns render as text and parse back unchanged, without defects), and
//     every turn whose language det can tell in the culture's Lang;
//     narration lines, if any, are one line each without markers.
//
// det is lang.Default() when nil.
func AuditExemplar(e *Exemplar, c *Culture, det *lang.Detector) []string {
	if det == nil {
		det = lang.Default()
	}
	var probs []string
	bad := func(format string, a ...any) { probs = append(probs, fmt.Sprintf(format, a...)) }
	if e.Culture != c.Name {
		bad("culture is %q, the profile is %q", e.Culture, c.Name)
	}
	textCheck := func(field, s string, lo, hi int) {
		if n := Sentences(s); n < lo || n > hi {
			bad("%s has %d sentences, want %d-%d", field, n, lo, hi)
		}
		if m := MarkerIn(s); m != "" {
			bad("%s: %s", field, m)
		}
		want := lang.Normalize(c.ScenarioLang)
		if r := det.Detect(s); r.Lang != want || r.Confidence < lang.MinConfidence {
			bad("%s is in %s (confidence %.2f), want %s", field, orUnknown(r.Lang), r.Confidence, want)
		}
	}
	textCheck("scenario", e.Scenario, MinScenarioSentences, MaxScenarioSentences)
	textCheck("situation", e.Situation, MinSituationSentences, MaxSituationSentences)
	if len(e.Turns) > 0 {
		probs = append(probs, auditTurns(e.Turns, lang.Normalize(c.Lang), det)...)
	}
	for i, n := range e.Narration {
		if m := MarkerIn(n); m != "" || strings.TrimSpace(n) == "" {
			bad("narration %d: %s", i, cmp.Or(m, "empty"))
		}
	}
	return probs
}

func orUnknown(l string) string {
	if l == "" {
		return "no candidate language"
	}
	return l
}

func auditTurns(turns []record.Turn, want string, det *lang.Detector) []string {
	var probs []string
	bad := func(format string, a ...any) { probs = append(probs, fmt.Sprintf(format, a...)) }
	if n := len(turns); n < MinTurns || n > MaxTurns {
		bad("dialogue has %d turns, want %d-%d", n, MinTurns, MaxTurns)
	}
	speakers := map[string]bool{}
	for i, t := range turns {
		speakers[t.Speaker] = true
		if t.Index != i {
			bad("turn %d has index %d", i, t.Index)
		}
		if strings.TrimSpace(t.Text) == "" {
			// A turn of only a stage direction ("(nods)") is fine, as in ngstats.
			if strings.TrimSpace(t.Action) == "" {
				bad("turn %d is empty", i)
			}
			continue
		}
		if m := MarkerIn(t.Text); m != "" {
			bad("turn %d: %s", i, m)
		}
		if r := det.Detect(t.Text); r.Confidence >= lang.MinConfidence && r.Lang != want {
			bad("turn %d is in %s, want %s: %q", i, orUnknown(r.Lang), want, t.Text)
		}
	}
	if len(speakers) < 2 {
		bad("dialogue has %d speaker(s), want at least 2", len(speakers))
	}
	// Markers the checks above do not know are caught by the parser: the
	// turns must read back from their rendering unchanged and clean.
	d := dialogue.Dialogue{Turns: turns}
	res := dialogue.Parse(dialogue.Render(d))
	switch {
	case len(res.Defects) > 0:
		bad("dialogue text has defects: %s", strings.Join(res.Defects, ", "))
	case len(res.Dialogues) != 1 || len(res.Dialogues[0].Narration) > 0 || !sameTurns(res.Dialogues[0].Turns, turns):
		bad("dialogue does not read back unchanged from its text")
	}
	return probs
}

func sameTurns(a, b []record.Turn) bool {
	return slices.EqualFunc(a, b, func(x, y record.Turn) bool {
		return x.Speaker == y.Speaker && x.Action == y.Action && x.Text == y.Text
	})
}

// MarkerIn names a format marker left in a scenario or situation, ""
// when it has none: what the release's scenarios and situations carry and
// ngstats counts as defects. ngseed and the exemplar audit share it.
func MarkerIn(s string) string {
	switch {
	case strings.ContainsAny(s, "\n\r"):
		return "a line break"
	case strings.Contains(s, `\n`):
		return `a literal \n`
	case strings.ContainsAny(s, "{}"):
		return "JSON braces"
	case strings.Contains(s, "**") || strings.Contains(s, "__") || strings.Contains(s, "```"):
		return "markdown"
	case dialogue.HasReasoning(s):
		return "leaked model reasoning"
	case dialogue.Clean(s) != strings.TrimSpace(s):
		return "a format marker (end marker, header, separator or emphasis)"
	}
	return ""
}

// Sentences counts the sentences of a text, in any of the languages: a
// sentence ends at '.', '!', '?', '。', '！', '？' or '…' (a run of them
// counts once), and text after the last end is one more sentence. What
// is not an end: a terminator inside quotes (“...”, "...", 「...」, 『...』,
// ‘...’) unless the quote closes a sentence (then the next word starts
// with a capital, or the text ends), an ASCII '.' not followed by a space
// or the end ("3.5", "U.S"), and the '.' of an abbreviation (Mr. Mrs. Ms.
// Dr. Prof. St. Jr. Sr. vs., and single Latin letters as in "J. K." and
// "p.m."). It is a heuristic for the length rule, not a linguistic tool.
func Sentences(s string) int {
	if n, ok := sentences([]rune(strings.TrimSpace(s)), true); ok {
		return n
	}
	// A quote that never closes would hide the rest of the text.
	n, _ := sentences([]rune(strings.TrimSpace(s)), false)
	return n
}

var quoteClose = map[rune]rune{'“': '”', '"': '"', '「': '」', '『': '』', '‘': '’', '《': '》'}

func sentences(rs []rune, quotes bool) (n int, ok bool) {
	open := false     // letters since the last end
	var closer rune   // the closing quote awaited, 0 outside quotes
	quoteEnd := false // the quoted text so far ends with a terminator
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		if closer != 0 {
			switch {
			case r == closer:
				closer = 0
				if quoteEnd && closesSentence(rs[i+1:]) {
					n++
					open = false
				}
			case isTerminator(r):
				quoteEnd = true
			case !unicode.IsSpace(r):
				quoteEnd = false
			}
			continue
		}
		if c, isQuote := quoteClose[r]; isQuote && quotes {
			closer, quoteEnd, open = c, false, true
			continue
		}
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			open = true
		case isTerminator(r) && open:
			if r == '.' && (!endsAfterDot(rs[i+1:]) || abbreviation(rs[:i])) {
				continue
			}
			n++
			open = false
		}
	}
	if closer != 0 {
		return 0, false
	}
	if open {
		n++
	}
	return n, true
}

func isTerminator(r rune) bool {
	switch r {
	case '.', '!', '?', '。', '！', '？', '…':
		return true
	}
	return false
}

// endsAfterDot: a '.' ends a sentence before a space, a closing bracket or
// quote, another terminator, or the end.
func endsAfterDot(rest []rune) bool {
	if len(rest) == 0 {
		return true
	}
	r := rest[0]
	return unicode.IsSpace(r) || isTerminator(r) || strings.ContainsRune(`)）”’"」』`, r)
}

// closesSentence: after a quote that ends with a terminator, the sentence
// is over when the text ends or the next word starts with a capital.
func closesSentence(rest []rune) bool {
	for _, r := range rest {
		if unicode.IsSpace(r) {
			continue
		}
		return unicode.IsUpper(r)
	}
	return true
}

var abbreviations = map[string]bool{"mr": true, "mrs": true, "ms": true, "dr": true, "prof": true,
	"st": true, "jr": true, "sr": true, "vs": true, "mt": true}

// abbreviation: the word before a '.' is a title or a single initial.
func abbreviation(before []rune) bool {
	i := len(before)
	for i > 0 && unicode.IsLetter(before[i-1]) {
		i--
	}
	w := strings.ToLower(string(before[i:]))
	if len(before)-i == 1 && unicode.Is(unicode.Latin, before[i]) {
		return true // an initial ("J. K. Rowling") or "p.m."
	}
	return abbreviations[w]
}
