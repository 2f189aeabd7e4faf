package manual

import (
	"fmt"
	"io"
	"strings"

	"github.com/mattn/go-runewidth"
)

// width is the column plain text is wrapped at.
const width = 80

// WriteText writes the manual as --help prints it: plain text, headings
// as "Title:", paragraphs wrapped, code indented, the flags as pflag lists
// them, the examples indented by two spaces under "Examples:" (which
// scripts read).
func (d *Doc) WriteText(w io.Writer) {
	fmt.Fprintf(w, "%s — %s\n\n", d.Name, d.Summary)
	for i, u := range d.Usage {
		lead := "Usage: "
		if i > 0 {
			lead = "       "
		}
		fmt.Fprintf(w, "%s%s %s\n", lead, d.Name, u)
	}
	if d.Details != "" {
		textBlocks(w, d.Details)
	}
	for _, s := range d.Sections {
		fmt.Fprintf(w, "\n%s\n", textHeading(s.Title))
		textBlocks(w, s.Body)
	}
	if d.FlagUsages != "" {
		fmt.Fprintf(w, "\nFlags:\n%s", d.FlagUsages)
	}
	if len(d.Examples) > 0 {
		fmt.Fprintf(w, "\nExamples:\n")
		for _, l := range d.Examples {
			fmt.Fprintf(w, "  %s\n", l)
		}
	}
	if d.Exit != "" {
		fmt.Fprintf(w, "\nExit status: %s\n", plain(d.Exit))
	}
}

// textHeading is a heading as a line of its own: "Title:".
func textHeading(t string) string {
	t = plain(t)
	if strings.HasSuffix(t, ":") || strings.HasSuffix(t, "?") || strings.HasSuffix(t, ".") {
		return t
	}
	return t + ":"
}

// textBlocks writes Markdown as plain text, each block after a blank line
// (a list's items are not separated).
func textBlocks(w io.Writer, md string) {
	prev := kind(-1)
	for _, b := range parse(md) {
		if !(b.kind == item && prev == item) {
			fmt.Fprintln(w)
		}
		prev = b.kind
		switch b.kind {
		case heading:
			fmt.Fprintln(w, textHeading(b.text))
		case code:
			for _, l := range b.lines {
				fmt.Fprintln(w, strings.TrimRight("    "+l, " "))
			}
		case item:
			wrap(w, plain(b.text), "  - ", "    ")
		case table:
			textTable(w, b.rows)
		default:
			wrap(w, plain(b.text), "", "")
		}
	}
}

// textTable writes a table in aligned columns when it fits the width,
// else each row as an item: the first cell, a dash, the second, then
// "header: cell" for the others.
func textTable(w io.Writer, rows [][]string) {
	n := 0
	for _, r := range rows {
		n = max(n, len(r))
	}
	cols := make([]int, n)
	for _, r := range rows {
		for i, c := range r {
			cols[i] = max(cols[i], runewidth.StringWidth(plain(c)))
		}
	}
	total := 0
	for _, c := range cols {
		total += c + 2
	}
	if total <= width+2 {
		for _, r := range rows {
			var line strings.Builder
			for i, c := range r {
				c = plain(c)
				line.WriteString(c)
				if i < len(r)-1 {
					line.WriteString(strings.Repeat(" ", cols[i]-runewidth.StringWidth(c)+2))
				}
			}
			fmt.Fprintln(w, strings.TrimRight(line.String(), " "))
		}
		return
	}
	head := rows[0]
	for _, r := range rows[1:] {
		parts := []string{plain(r[0])}
		for i := 1; i < len(r); i++ {
			if r[i] == "" || r[i] == "—" {
				continue
			}
			h := ""
			if i > 1 && i < len(head) && head[i] != "" {
				h = plain(head[i]) + ": "
			}
			parts = append(parts, h+plain(r[i]))
		}
		line := parts[0]
		if len(parts) > 1 {
			line += " — " + strings.Join(parts[1:], "; ")
		}
		wrap(w, line, "  - ", "    ")
	}
}

// wrap writes text in lines of at most width columns, the first led by
// first, the others by rest.
func wrap(w io.Writer, text, first, rest string) {
	line := first
	empty := true
	for _, word := range strings.Fields(text) {
		if !empty && runewidth.StringWidth(line)+1+runewidth.StringWidth(word) > width {
			fmt.Fprintln(w, line)
			line, empty = rest, true
		}
		if !empty {
			line += " "
		}
		line += word
		empty = false
	}
	fmt.Fprintln(w, line)
}
