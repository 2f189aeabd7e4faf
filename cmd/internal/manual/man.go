package manual

import (
	"fmt"
	"io"
	"strings"
)

// WriteMan writes the manual as a roff man page (man(7) macros, section
// 1), for `ngkit man DIR`.
func (d *Doc) WriteMan(w io.Writer, version string) {
	fmt.Fprintf(w, ".TH %s 1 \"\" %s \"ngkit manual\"\n", strings.ToUpper(d.Name), quoteArg("ngkit "+version))
	// Left-aligned, not hyphenated: flags, paths and ids are long words
	// that neither justify nor hyphenate well.
	fmt.Fprintln(w, ".ad l\n.nh")
	fmt.Fprintf(w, ".SH NAME\n%s \\- %s\n", esc(d.Name), esc(d.Summary))
	fmt.Fprintln(w, ".SH SYNOPSIS")
	for i, u := range d.Usage {
		if i > 0 {
			fmt.Fprintln(w, ".br")
		}
		fmt.Fprintf(w, ".B %s\n%s\n", esc(d.Name), esc(u))
	}
	if d.Details != "" {
		fmt.Fprintln(w, ".SH DESCRIPTION")
		manBlocks(w, d.Details)
	}
	for _, s := range d.Sections {
		fmt.Fprintf(w, ".SH %s\n", quoteArg(strings.ToUpper(plain(s.Title))))
		manBlocks(w, s.Body)
	}
	if len(d.Flags) > 0 {
		fmt.Fprintln(w, ".SH OPTIONS")
		for _, f := range d.Flags {
			spec := "\\fB" + esc(strings.TrimSuffix(f.Spec(), " "+f.Arg)) + "\\fR"
			if f.Arg != "" {
				spec += " \\fI" + esc(f.Arg) + "\\fR"
			}
			usage := esc(f.Usage)
			if f.Default != "" {
				usage += " (default: " + esc(f.Default) + ")"
			}
			fmt.Fprintf(w, ".TP\n%s\n%s\n", lineStart(spec), lineStart(usage))
		}
	}
	if len(d.Examples) > 0 {
		fmt.Fprintln(w, ".SH EXAMPLES")
		manCode(w, d.Examples)
	}
	if d.Exit != "" {
		fmt.Fprintf(w, ".SH \"EXIT STATUS\"\n%s\n", lineStart(manInline(d.Exit)))
	}
}

// manBlocks writes Markdown as man(7) paragraphs.
func manBlocks(w io.Writer, md string) {
	for _, b := range parse(md) {
		switch b.kind {
		case heading:
			fmt.Fprintf(w, ".SS %s\n", quoteArg(plain(b.text)))
		case code:
			manCode(w, b.lines)
		case item:
			fmt.Fprintf(w, ".IP \\(bu 2\n%s\n", lineStart(manInline(b.text)))
		case table:
			head := b.rows[0]
			for _, r := range b.rows[1:] {
				fmt.Fprintf(w, ".TP\n%s\n", lineStart("\\fB"+esc(plain(r[0]))+"\\fR"))
				var parts []string
				for i := 1; i < len(r); i++ {
					if r[i] == "" || r[i] == "—" {
						continue
					}
					h := ""
					if i < len(head) && head[i] != "" {
						h = plain(head[i]) + ": "
					}
					parts = append(parts, esc(h)+manInline(r[i]))
				}
				fmt.Fprintln(w, lineStart(strings.Join(parts, "; ")))
			}
		default:
			fmt.Fprintf(w, ".PP\n%s\n", lineStart(manInline(b.text)))
		}
	}
}

// manCode writes lines verbatim (no filling), indented.
func manCode(w io.Writer, lines []string) {
	fmt.Fprintln(w, ".PP\n.RS 4\n.nf")
	for _, l := range lines {
		fmt.Fprintln(w, lineStart(esc(l)))
	}
	fmt.Fprintln(w, ".fi\n.RE")
}

// manInline is inline Markdown in roff: code and strong in bold, links as
// their text and where they lead.
func manInline(s string) string {
	var b strings.Builder
	for _, sp := range spans(s) {
		t := esc(sp.text)
		if sp.code || sp.strong {
			t = "\\fB" + t + "\\fR"
		}
		b.WriteString(t)
		if sp.url != "" {
			b.WriteString(esc(linkNote(sp.text, sp.url)))
		}
	}
	return b.String()
}

// esc escapes text for roff: a backslash is \e, a hyphen-minus \- (so
// that flags copy as the ASCII minus they are); a comma may end a line
// (\:), so that lists without spaces (the defaults) can break.
func esc(s string) string {
	return strings.NewReplacer(`\`, `\e`, "-", `\-`, ",", `,\:`).Replace(s)
}

// lineStart keeps a line of text from being read as a request: a leading
// dot or apostrophe gets the zero-width \& before it.
func lineStart(s string) string {
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		return `\&` + s
	}
	return s
}

// quoteArg is s as one quoted macro argument.
func quoteArg(s string) string {
	return `"` + strings.ReplaceAll(esc(s), `"`, `\(dq`) + `"`
}
