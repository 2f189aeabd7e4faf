package dialogue

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ngkit/ngkit/pkg/dialogue/internal/lex"
	"github.com/ngkit/ngkit/pkg/vocab"
)

// The text-hygiene vocabulary: what counts as an end marker, a header, a
// separator and leaked reasoning. The parser removes these; every audit
// (pkg/audit, which ngstats, ngv2r and the importers run, and the norm
// bank's) asks the predicates below, so that what one finds the other
// knows. The lists live beside the hand-written scanners that use them: in
// internal/lex (lex.EndMarkers, lex.IsRule, HeaderWords, HeaderLeads) and in
// prepare.go (reasoningFinal); the reasoning tags in pkg/vocab, which the
// client (pkg/llm) reads without importing the parser.

// EndMarkers returns every end-marker form the parser removes anywhere in
// a line ("[END]", "【끝】", "(完)"...). A line that is only an end word in
// brackets ("( END )", "(end)") or "[END" cut short is one too (see
// EndMarkerIn).
func EndMarkers() []string { return slices.Clone(lex.EndMarkers[:]) }

// EndMarkerIn returns the end marker the parser would remove from s, ""
// when s has none: one of EndMarkers anywhere, a stage direction that is
// only an end word ("(end)", "（完）", "( END )"), or a line that is only an
// end word in brackets ("[ end ]", "【End】") or "[END" cut short.
func EndMarkerIn(s string) string {
	for _, m := range lex.EndMarkers {
		if strings.Contains(s, m) {
			return m
		}
	}
	// a stage direction that is only an end word: "(end)", "（完）", "( END )";
	// as in splitDirs, "x(end)" and "(end)x" are words, not directions, and
	// a direction stands on one line
	for j := lex.NextOpen(s, 0); j >= 0; j = lex.NextOpen(s, j+1) {
		e := lex.MatchParen(s, j)
		if e < 0 {
			break
		}
		if (s[j] == '(' && j > 0 && lex.IsASCIIWord(s[j-1])) || (s[e-1] == ')' && e < len(s) && lex.IsASCIIWord(s[e])) || strings.IndexByte(s[j:e], '\n') >= 0 {
			continue
		}
		if lex.EndWord(s[j+lex.OpenAt(s, j) : e-lex.CloseEndsAt(s, e)]) {
			return s[j:e]
		}
	}
	for line := range strings.SplitSeq(s, "\n") {
		l := lex.Trim(line)
		if l == "[END" {
			return l
		}
		if inner, ok := lex.WholeBracket(l); ok && lex.EndWord(inner) {
			return l
		}
	}
	return ""
}

// IsSeparator reports whether a line is a separator the parser removes:
// only dashes, rules and the like ("---", "——", "***", "=====").
func IsSeparator(line string) bool { return lex.IsRule(lex.Trim(line)) }

// IsHeader reports whether a line is only a header that names the text
// ("Dialogue:", "## 对话", "**대화 2:**", "Here is the conversation:"),
// which the parser removes.
func IsHeader(line string) bool {
	l, _ := lex.StripHeading(lex.Trim(line))
	if inner, ok := lex.WrappedBold(l); ok {
		l = inner
	}
	_, rest, ok := lex.ParseHeader(l)
	return ok && strings.Trim(rest, "*_ ") == ""
}

// HasReasoning reports whether s holds a model's leaked reasoning: a
// reasoning tag (<think>, </think>, <thinking>, <reasoning>...; in lower case,
// as models write them), the
// harmony format's final-channel marker ("assistantfinal",
// "<|channel|>final<|message|>"), or a text that opens with the analysis
// channel ("analysisWe need to produce JSON", as in the release's
// scenarios). The parser strips the same forms (Result.Defects then names
// record.DefectReasoning).
func HasReasoning(s string) bool {
	s = lex.Trim(s)
	if strings.HasPrefix(s, "analysis") {
		r, _ := utf8.DecodeRuneInString(s[len("analysis"):])
		if r == ' ' || (r >= 'A' && r <= 'Z') {
			return true
		}
	}
	for _, m := range reasoningFinal {
		if strings.Contains(s, m) {
			return true
		}
	}
	if strings.IndexByte(s, '<') < 0 {
		return false
	}
	for _, tag := range reasoningTags {
		if strings.Contains(s, "<"+tag+">") || strings.Contains(s, "</"+tag+">") {
			return true
		}
	}
	return false
}

// HeaderWords name a dialogue in a header line ("Dialogue 2:",
// "Dialogues:", "对话一：", "대화 1:"); matched in any case, and in the
// plural for the Latin ones.
var HeaderWords = lex.HeaderWords

// HeaderLeads may come before a header word ("A Dialogue:", "The
// conversation:", "Sample dialogue:"); a header with one needs its colon.
var HeaderLeads = lex.HeaderLeads

// NarrationLabels are the labels of prose lines ("Scene: ...", "Note:
// ...", "规范：...", "상황: ...") in English, Chinese and Korean: what
// follows such a label is narration, never a turn, and the label is
// removed. Matched whole and, for Latin ones, in any case.
//
// HeaderWords, HeaderLeads and NarrationLabels are the lists the parser
// matches (the same slices as package lex's), read once, when the parser
// is initialised.
var NarrationLabels = lex.NarrationLabels

// ReasoningTags returns the names of the tags reasoning models wrap their
// thinking in (DeepSeek-R1, Qwen3, ...): "think", "thinking", "reasoning".
// The list lives in pkg/vocab, which the client (pkg/llm) reads too.
func ReasoningTags() []string { return vocab.ReasoningTags() }

var reasoningTags = vocab.ReasoningTags()

// IsJSONResidue reports whether a line holds only what a JSON envelope
// leaves behind (quotes, braces, brackets, commas, backslashes), which the
// parser drops (Result.Defects then names DefectJSONResidue).
func IsJSONResidue(line string) bool {
	l := lex.Trim(line)
	return l != "" && lex.OnlyJunk(l)
}

// Defects returns the names of every defect Parse can report, in the order
// Result.Defects lists them.
func Defects() []string { return slices.Clone(defectNames[:]) }
