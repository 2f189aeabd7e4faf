package manual

import (
	"regexp"
	"strings"
)

// kind is the kind of a Markdown block.
type kind int

const (
	para kind = iota
	heading
	code
	item // one list item
	table
)

// block is one Markdown block: a paragraph's or a list item's text (its
// lines joined by spaces), a heading's title and level, a code block's
// lines, a table's rows of cells.
type block struct {
	kind  kind
	level int // heading level
	text  string
	lines []string   // code
	rows  [][]string // table, the header first, without the --- row
}

var (
	headingRE = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*$`)
	itemRE    = regexp.MustCompile(`^\s*(?:[-*+]|\d+[.)])\s+`)
	ruleRowRE = regexp.MustCompile(`^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?$`)
)

// parse splits Markdown into blocks.
func parse(md string) []block {
	var out []block
	lines := strings.Split(strings.ReplaceAll(md, "\r\n", "\n"), "\n")
	for i := 0; i < len(lines); {
		l := lines[i]
		t := strings.TrimSpace(l)
		switch {
		case t == "":
			i++
		case strings.HasPrefix(t, "```"):
			b := block{kind: code}
			for i++; i < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[i]), "```"); i++ {
				b.lines = append(b.lines, lines[i])
			}
			i++ // the closing fence
			out = append(out, b)
		case headingRE.MatchString(t):
			m := headingRE.FindStringSubmatch(t)
			out = append(out, block{kind: heading, level: len(m[1]), text: m[2]})
			i++
		case strings.HasPrefix(t, "|"):
			b := block{kind: table}
			for ; i < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i]), "|"); i++ {
				r := strings.TrimSpace(lines[i])
				if ruleRowRE.MatchString(r) {
					continue
				}
				b.rows = append(b.rows, cells(r))
			}
			out = append(out, b)
		case itemRE.MatchString(l):
			// An item runs to a blank line, the next item or another block.
			text := []string{itemRE.ReplaceAllString(l, "")}
			for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "" && !itemRE.MatchString(lines[i]) && !startsBlock(lines[i]); i++ {
				text = append(text, strings.TrimSpace(lines[i]))
			}
			out = append(out, block{kind: item, text: strings.Join(text, " ")})
		default:
			var text []string
			for ; i < len(lines) && strings.TrimSpace(lines[i]) != "" && !startsBlock(lines[i]) && !itemRE.MatchString(lines[i]); i++ {
				text = append(text, strings.TrimSpace(lines[i]))
			}
			out = append(out, block{kind: para, text: strings.Join(text, " ")})
		}
	}
	return out
}

// startsBlock says whether a line starts a heading, a fence or a table.
func startsBlock(l string) bool {
	t := strings.TrimSpace(l)
	return strings.HasPrefix(t, "```") || strings.HasPrefix(t, "|") || headingRE.MatchString(t)
}

// cells splits a table row at the bars that are not escaped (\|) nor in
// `code`.
func cells(row string) []string {
	row = strings.TrimSuffix(strings.TrimPrefix(row, "|"), "|")
	var out []string
	var cur strings.Builder
	inCode := false
	for i := 0; i < len(row); i++ {
		c := row[i]
		switch {
		case c == '\\' && i+1 < len(row) && row[i+1] == '|':
			cur.WriteByte('|')
			i++
		case c == '`':
			inCode = !inCode
			cur.WriteByte(c)
		case c == '|' && !inCode:
			out = append(out, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	return append(out, strings.TrimSpace(cur.String()))
}

// span is a piece of inline text: plain, `code`, **strong** or a link.
type span struct {
	text   string
	code   bool
	strong bool
	url    string // a link's target
}

var inlineRE = regexp.MustCompile("`([^`]+)`|\\*\\*([^*]+)\\*\\*|\\[([^\\]]+)\\]\\(([^)\\s]+)\\)")

// spans splits inline Markdown into spans. Emphasis with one * or _ is
// left as written: ngkit's texts use * and _ literally (globs, names).
func spans(s string) []span {
	var out []span
	for s != "" {
		m := inlineRE.FindStringSubmatchIndex(s)
		if m == nil {
			out = append(out, span{text: s})
			break
		}
		if m[0] > 0 {
			out = append(out, span{text: s[:m[0]]})
		}
		switch {
		case m[2] >= 0:
			out = append(out, span{text: s[m[2]:m[3]], code: true})
		case m[4] >= 0:
			out = append(out, span{text: s[m[4]:m[5]], strong: true})
		default:
			out = append(out, span{text: s[m[6]:m[7]], url: s[m[8]:m[9]]})
		}
		s = s[m[1]:]
	}
	return out
}

// linkNote is what a link's target adds after its text in plain text and
// roff, where the reader cannot follow it: nothing for an anchor in the
// same page, the path for a file (docs/ links are written relative to
// docs/), the address for a URL.
func linkNote(text, url string) string {
	switch {
	case strings.HasPrefix(url, "#"):
		return ""
	case url == text || "<"+url+">" == text:
		return ""
	case strings.Contains(url, "://"):
		return " (" + url + ")"
	case strings.HasPrefix(url, "../"):
		return " (" + strings.TrimPrefix(url, "../") + ")"
	}
	return " (docs/" + url + ")"
}

// plain is inline Markdown as plain text: no backticks, stars or link
// syntax.
func plain(s string) string {
	var b strings.Builder
	for _, sp := range spans(s) {
		b.WriteString(sp.text)
		if sp.url != "" {
			b.WriteString(linkNote(sp.text, sp.url))
		}
	}
	return b.String()
}
