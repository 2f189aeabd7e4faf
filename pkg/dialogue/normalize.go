package dialogue

import (
	"html"
	"strings"
)

// invisible characters taken out before parsing: a zero-width space in a
// name line, a BOM at the start of a line (text glued from several files),
// a word joiner, a soft hyphen.
var invisible = [...]string{"\u200b", "\ufeff", "\u2060", "\u00ad"}

// normalize takes out invisible characters and decodes HTML entities
// (&amp;, &#39;, &nbsp;), so that "Sa\u200brah:" is Sarah and "Tom &amp;
// Jerry" reads as written. It costs a few vectorised searches on text
// that has neither.
func normalize(text string) string {
	for _, c := range invisible {
		if strings.Contains(text, c) {
			text = strings.ReplaceAll(text, c, "")
		}
	}
	if hasEntity(text) {
		text = html.UnescapeString(text)
		text = strings.ReplaceAll(text, "\u00a0", " ")
	}
	return text
}

func (p *parser) normalize(text string) string {
	return normalize(text)
}

// hasEntity reports whether s holds an HTML entity: '&', a name or
// number of letters and digits, ';'.
func hasEntity(s string) bool {
	for from := 0; ; {
		i := strings.IndexByte(s[from:], '&')
		if i < 0 {
			return false
		}
		i += from
		j := i + 1
		if j < len(s) && s[j] == '#' {
			j++
		}
		k := j
		for k < len(s) && k-j < 10 && isASCIIWord(s[k]) {
			k++
		}
		if k > j && k < len(s) && s[k] == ';' {
			return true
		}
		from = i + 1
	}
}

// quotedLine reports whether line is a speaker line in quotes as a whole
// ("\"Sarah: Hi.\"", "“Sarah: Hi.”") and returns it without them.
func quotedLine(line string) (string, bool) {
	if len(line) < 4 {
		return "", false
	}
	for _, q := range [...][2]string{{"\"", "\""}, {"“", "”"}} {
		if !strings.HasPrefix(line, q[0]) || !strings.HasSuffix(line, q[1]) {
			continue
		}
		inner := line[len(q[0]) : len(line)-len(q[1])]
		if strings.Contains(inner, q[0]) || strings.Contains(inner, q[1]) {
			return "", false
		}
		inner = trim(inner)
		if sp, ok := parseSpeaker(inner); ok && sp.rest != "" {
			return inner, true
		}
	}
	return "", false
}
