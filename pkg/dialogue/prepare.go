package dialogue

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/ngkit/ngkit/pkg/dialogue/internal/lex"
)

func (p *parser) removed(s string) {
	if s == "" {
		return
	}
	p.nRemoved++
	if p.tr != nil {
		p.tr.removed = append(p.tr.removed, s)
	}
}

// dropEndMarkers removes the end markers of the given kinds from s
// (lex.RemoveEndMarkersK), notes the defect and counts them, traced as a
// stand-in.
func (p *parser) dropEndMarkers(s string, kinds uint8) string {
	s, ok := lex.RemoveEndMarkersK(s, kinds)
	if ok {
		p.bits |= dEndMarker
		p.nRemoved++
		if p.tr != nil {
			p.tr.removed = append(p.tr.removed, endMarkerTrace)
		}
	}
	return s
}

// prepare strips what wraps the dialogue: leaked reasoning, a JSON
// envelope, JSON-string escapes, stray quotes at the ends.
func (p *parser) prepare(text string) []string {
	text = lex.Trim(text)
	if text == "" {
		return []string{""}
	}
	text = lex.Trim(strings.TrimPrefix(lex.Normalize(text), lex.BOM))
	text = p.stripReasoning(text)
	if texts, ok := p.envelope(text); ok {
		return texts
	}
	return []string{p.unescape(text)}
}

var reasoningFinal = [...]string{"assistantfinal", "<|channel|>final<|message|>", "<|start|>assistant<|channel|>final<|message|>"}

func (p *parser) stripReasoning(text string) string {
	if strings.IndexByte(text, '<') < 0 && !strings.Contains(text, "assistantfinal") && !strings.HasPrefix(text, "analysis") {
		return text
	}
	for _, m := range reasoningFinal {
		if i := strings.LastIndex(text, m); i >= 0 {
			p.bits |= dReasoning
			p.removed(text[:i+len(m)])
			text = text[i+len(m):]
			for _, end := range [...]string{"<|end|>", "<|return|>"} {
				text = strings.TrimSuffix(lex.Trim(text), end)
			}
			return lex.Trim(text)
		}
	}
	// Up to the last closing tag is reasoning, and so is an opening tag
	// with no closing one after it, and all that follows it (a reply that
	// thinks again and is cut off): both, so that the text left holds no
	// tag for a second pass to strip (the dialogue then reads back from
	// its rendering).
	for _, tag := range reasoningTags {
		found := false
		if cl := "</" + tag + ">"; strings.Contains(text, cl) {
			i := strings.LastIndex(text, cl)
			p.bits |= dReasoning
			p.removed(text[:i+len(cl)])
			text, found = lex.Trim(text[i+len(cl):]), true
		}
		if i := strings.Index(text, "<"+tag+">"); i >= 0 {
			p.bits |= dReasoning
			p.removed(text[i:])
			text, found = lex.Trim(text[:i]), true
		}
		if found {
			return text
		}
	}
	if strings.HasPrefix(text, "analysis") && len(text) > len("analysis") {
		// "analysisWe need to ..." with no final answer: all of it is reasoning
		r, _ := utf8.DecodeRuneInString(text[len("analysis"):])
		if r == ' ' || (r >= 'A' && r <= 'Z') {
			p.bits |= dReasoning
			p.removed(text)
			return ""
		}
	}
	return text
}

// envelope unwraps {"dialogue": "..."} (also in a ```json fence).
func (p *parser) envelope(text string) ([]string, bool) {
	body := text
	if strings.HasPrefix(body, "```") {
		nl := strings.IndexByte(body, '\n')
		if nl < 0 {
			return nil, false
		}
		body = lex.Trim(strings.TrimSuffix(lex.Trim(body[nl+1:]), "```"))
	}
	if len(body) < 2 || body[0] != '{' || body[len(body)-1] != '}' {
		return nil, false
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(body), &obj) != nil {
		return nil, false
	}
	// raws are the strings as written, for the trace
	var texts, raws []string
	add := func(raw json.RawMessage) bool {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return false
		}
		texts, raws = append(texts, s), append(raws, string(raw))
		return true
	}
	for _, key := range [...]string{"dialogue", "Dialogue", "dialog", "conversation", "text"} {
		if raw, ok := obj[key]; ok && add(raw) {
			break
		}
	}
	if texts == nil {
		if raw, ok := obj["dialogues"]; ok {
			var arr []json.RawMessage
			if json.Unmarshal(raw, &arr) == nil {
				for _, el := range arr {
					if add(el) {
						continue
					}
					var o map[string]json.RawMessage
					if json.Unmarshal(el, &o) == nil {
						if d, ok := o["dialogue"]; ok {
							add(d)
						}
					}
				}
			}
		}
	}
	if texts == nil {
		return nil, false
	}
	p.bits |= dJSON
	if p.tr != nil {
		// everything but the dialogue strings is removed on purpose
		rest := body
		for i, raw := range raws {
			inner := strings.TrimSpace(raw)
			inner = inner[1 : len(inner)-1]
			rest = strings.Replace(rest, inner, " ", 1)
			p.tr.decoded = append(p.tr.decoded, [2]string{inner, texts[i]})
		}
		p.removed(rest)
	}
	for i, t := range texts {
		texts[i] = p.unescape(lex.Trim(t))
	}
	return texts, true
}

// unescapeAll undoes JSON-string escapes however many times the text was
// escaped: a run of backslashes before n or r is a newline, before t a
// space, before a quote a quote. Other backslashes stay.
func unescapeAll(s string) string {
	return unescapeRuns(s, "\n")
}

// noEscapes removes escape sequences from a parsed field (left when a
// direction taken out from between '\\' and 'n' made one), so that the field
// reads back the same from Render's output; newlines become spaces.
func noEscapes(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	return lex.Trim(unescapeRuns(s, " "))
}

func unescapeRuns(s, nl string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' {
			b.WriteByte(c)
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] == '\\' {
			j++
		}
		if j < len(s) {
			switch s[j] {
			case 'n', 'r':
				if s[j] == 'r' && j+2 < len(s) && s[j+1] == '\\' && s[j+2] == 'n' {
					j += 2 // \r\n
				}
				b.WriteString(nl)
				i = j + 1
				continue
			case 't':
				b.WriteByte(' ')
				i = j + 1
				continue
			case '"':
				b.WriteByte('"')
				i = j + 1
				continue
			}
		}
		b.WriteString(s[i:j])
		i = j
	}
	return b.String()
}

// unescape turns literal "\n" (and the other JSON-string escapes that come
// with it) into what they stand for and drops the quotes of a JSON string
// left around the whole text.
func (p *parser) unescape(text string) string {
	if strings.IndexByte(text, '\\') >= 0 {
		lit := strings.Contains(text, `\n`) || strings.Contains(text, `\r`)
		esc := strings.Contains(text, `\"`)
		if lit || esc || strings.Contains(text, `\t`) {
			text = unescapeAll(text)
			if lit {
				p.bits |= dLiteralNewline
			}
			if esc {
				p.bits |= dJSON
			}
		}
	}
	if n := len(text); n >= 2 && text[0] == '"' && text[n-1] == '"' {
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			first, last := text[:i], text[strings.LastIndexByte(text, '\n')+1:]
			if strings.Count(first, `"`)%2 == 1 && strings.Count(last, `"`)%2 == 1 {
				text = text[1 : n-1]
				p.bits |= dJSON
			}
		} else if strings.Count(text, `"`) == 2 {
			text = text[1 : n-1]
			p.bits |= dJSON
		}
	}
	return lex.Trim(text)
}
