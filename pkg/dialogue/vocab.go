package dialogue

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ngkit/ngkit/pkg/vocab"
)

// The text-hygiene vocabulary: what counts as an end marker, a header, a
// separator and leaked reasoning. The parser removes these; every audit
// (pkg/audit, which ngstats, ngv2r and the importers run, and the norm
// bank's) asks the predicates below, so that what one finds the other
// knows. The lists live in markers.go (endMarkers, isRule), headers.go
// (HeaderWords, HeaderLeads) and prepare.go (reasoningFinal), beside the
// hand-written scanners that use them; the reasoning tags in pkg/vocab, which
// the client (pkg/llm) reads without importing the parser.

// EndMarkers returns every end-marker form the parser removes anywhere in
// a line ("[END]", "【끝】", "(完)"...). A line that is only an end word in
// brackets ("( END )", "(end)") or "[END" cut short is one too (see
// EndMarkerIn).
func EndMarkers() []string { return slices.Clone(endMarkers[:]) }

// EndMarkerIn returns the end marker the parser would remove from s, ""
// when s has none: one of EndMarkers anywhere, a stage direction that is
// only an end word ("(end)", "（完）", "( END )"), or a line that is only an
// end word in brackets ("[ end ]", "【End】") or "[END" cut short.
func EndMarkerIn(s string) string {
	for _, m := range endMarkers {
		if strings.Contains(s, m) {
			return m
		}
	}
	// a stage direction that is only an end word: "(end)", "（完）", "( END )";
	// as in splitDirs, "x(end)" and "(end)x" are words, not directions, and
	// a direction stands on one line
	for j := nextOpen(s, 0); j >= 0; j = nextOpen(s, j+1) {
		e := matchParen(s, j)
		if e < 0 {
			break
		}
		if (s[j] == '(' && j > 0 && isASCIIWord(s[j-1])) || (s[e-1] == ')' && e < len(s) && isASCIIWord(s[e])) || strings.IndexByte(s[j:e], '\n') >= 0 {
			continue
		}
		if endWord(s[j+openAt(s, j) : e-closeEndsAt(s, e)]) {
			return s[j:e]
		}
	}
	for line := range strings.SplitSeq(s, "\n") {
		l := trim(line)
		if l == "[END" {
			return l
		}
		if inner, ok := wholeBracket(l); ok && endWord(inner) {
			return l
		}
	}
	return ""
}

// IsSeparator reports whether a line is a separator the parser removes:
// only dashes, rules and the like ("---", "——", "***", "=====").
func IsSeparator(line string) bool { return isRule(trim(line)) }

// IsHeader reports whether a line is only a header that names the text
// ("Dialogue:", "## 对话", "**대화 2:**", "Here is the conversation:"),
// which the parser removes.
func IsHeader(line string) bool {
	l, _ := stripHeading(trim(line))
	if inner, ok := wrappedBold(l); ok {
		l = inner
	}
	_, rest, ok := parseHeader(l)
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
	s = trim(s)
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

// ReasoningTags returns the names of the tags reasoning models wrap their
// thinking in (DeepSeek-R1, Qwen3, ...): "think", "thinking", "reasoning".
// The list lives in pkg/vocab, which the client (pkg/llm) reads too.
func ReasoningTags() []string { return vocab.ReasoningTags() }

var reasoningTags = vocab.ReasoningTags()

// IsJSONResidue reports whether a line holds only what a JSON envelope
// leaves behind (quotes, braces, brackets, commas, backslashes), which the
// parser drops (Result.Defects then names DefectJSONResidue).
func IsJSONResidue(line string) bool {
	l := trim(line)
	return l != "" && onlyJunk(l)
}

// Defects returns the names of every defect Parse can report, in the order
// Result.Defects lists them.
func Defects() []string { return slices.Clone(defectNames[:]) }
