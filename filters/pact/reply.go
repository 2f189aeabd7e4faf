package pact

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/record"
)

// The option labels of the prompts: the first option shown is A.
const (
	LabelA = "A"
	LabelB = "B"
)

// label is the option label a token or word stands for: A or B, with
// white space, brackets, markdown emphasis and trailing punctuation
// around it and full-width forms allowed ("" when it is none). Lower-case
// a is not a label: in English it is the article.
func label(tok string) string {
	t := strings.TrimFunc(tok, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune("()[]{}*_`'\"（）【】「」:：.。,，)-", r)
	})
	switch t {
	case "A", "Ａ":
		return LabelA
	case "B", "Ｂ":
		return LabelB
	}
	return ""
}

// ParseAnswer reads which option a free-text reply names: A or B, or ""
// when it names neither or both. It accepts the bare label ("A", "(B)",
// "**A**", "Ｂ."), a reply that starts with a label ("A. Because ..."),
// a reply in which only one of the two labels stands as a word ("I would
// pick option B"), and a reply that holds the text of exactly one of the
// options (optA, optB; ignored when empty). The invariants, which
// FuzzParseAnswer checks: the result is "", "A" or "B"; a non-empty
// result is a label or an option text that the reply holds; and swapping
// A and B in the reply (and the options) swaps the result.
func ParseAnswer(reply, optA, optB string) string {
	text := strings.TrimSpace(reply)
	if text == "" {
		return ""
	}
	if l := label(text); l != "" {
		return l
	}
	words := strings.FieldsFunc(text, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == 'Ａ' || r == 'Ｂ')
	})
	if len(words) > 0 && label(words[0]) != "" && startsWithLabel(text) {
		return label(words[0])
	}
	seen := map[string]bool{}
	for _, w := range words {
		if l := label(w); l != "" && w == strings.TrimSpace(w) && utf8.RuneCountInString(w) == 1 {
			seen[l] = true
		}
	}
	switch {
	case seen[LabelA] && !seen[LabelB]:
		return LabelA
	case seen[LabelB] && !seen[LabelA]:
		return LabelB
	case seen[LabelA] && seen[LabelB]:
		return ""
	}
	hasA := optA != "" && contains(text, optA)
	hasB := optB != "" && contains(text, optB)
	switch {
	case hasA && !hasB:
		return LabelA
	case hasB && !hasA:
		return LabelB
	}
	return ""
}

// startsWithLabel: the reply opens with a lone label followed by
// punctuation ("A.", "B)", "(A) ..."), not by a letter (“Absolutely”) or a
// space ("A or B" is no answer).
func startsWithLabel(text string) bool {
	t := strings.TrimLeft(text, " \t\n(*[【「（")
	r, n := utf8.DecodeRuneInString(t)
	if label(string(r)) == "" {
		return false
	}
	if n == len(t) {
		return true
	}
	next, _ := utf8.DecodeRuneInString(t[n:])
	return unicode.IsPunct(next)
}

// contains is a case- and space-insensitive substring test.
func contains(text, sub string) bool {
	norm := func(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }
	return strings.Contains(norm(text), norm(sub))
}

// LabelProbs sums the probabilities of the first-token alternatives that
// stand for each label (tokens " A", "A", "(A" alike); the two need not
// sum to 1 (other tokens take the rest).
func LabelProbs(top []llm.TokenLogprob) (pA, pB float64) {
	for _, t := range top {
		if math.IsNaN(t.Logprob) || t.Logprob > 0 {
			continue
		}
		switch label(t.Token) {
		case LabelA:
			pA += math.Exp(t.Logprob)
		case LabelB:
			pB += math.Exp(t.Logprob)
		}
	}
	return pA, pB
}

// Summarise fills a result's p_follow, majority and entropy from the
// follow share p (nil: no valid answer).
func Summarise(r *record.PactResult, p *float64) {
	r.PFollow, r.Majority, r.Entropy = nil, "", nil
	if p == nil {
		return
	}
	v := *p
	r.PFollow = &v
	switch {
	case math.Abs(v-0.5) < 1e-9: // renormalised logprobs of equal labels
		r.Majority = "tie"
	case v > 0.5:
		r.Majority = record.PactFollow
	case v < 0.5:
		r.Majority = record.PactAllow
	default:
		r.Majority = "tie"
	}
	h := 0.0
	for _, q := range []float64{v, 1 - v} {
		if q > 0 {
			h -= q * math.Log2(q)
		}
	}
	r.Entropy = &h
}
