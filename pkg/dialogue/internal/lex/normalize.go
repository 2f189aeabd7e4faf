package lex

import (
	"html"
	"strings"
)

// Normalize takes out zero-width spaces (U+200B, invisible in a name
// line: "Sa\u200brah:") and decodes HTML entities (&amp;, &#39;, &nbsp;),
// so that "Tom &amp; Jerry" reads as written. A BOM at the start of a line
// (text glued from several files) is taken off as the parser reads each line. It costs two
// vectorised searches on text that has neither.
func Normalize(text string) string {
	if strings.Contains(text, zwsp) {
		text = strings.ReplaceAll(text, zwsp, "")
	}
	if HasEntity(text) {
		text = html.UnescapeString(text)
		text = strings.ReplaceAll(text, "\u00a0", " ")
	}
	return text
}

const (
	zwsp = "\u200b"
	// BOM is the byte order mark, which text glued from several files
	// holds at line starts.
	BOM = "\ufeff"
)

// HasEntity reports whether s holds an HTML entity: '&', a name or
// number of letters and digits, ';'.
func HasEntity(s string) bool {
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
		for k < len(s) && k-j < 10 && IsASCIIWord(s[k]) {
			k++
		}
		if k > j && k < len(s) && s[k] == ';' {
			return true
		}
		from = i + 1
	}
}

// QuotedLine reports whether line is a speaker line in quotes as a whole
// ("\"Sarah: Hi.\"", "“Sarah: Hi.”") and returns it without them.
func QuotedLine(line string) (string, bool) {
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
		inner = Trim(inner)
		if sp, ok := ParseSpeaker(inner); ok && sp.Rest != "" {
			return inner, true
		}
	}
	return "", false
}
