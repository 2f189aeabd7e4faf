package record

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Printable escapes what a terminal would obey in s: C0 controls but tab
// and newline, DEL, C1 controls (U+0080-U+009F, such as CSI U+009B) and
// bytes that are not UTF-8 (a lone 0x9b is CSI to a terminal that is not
// in UTF-8 mode), as \x1b, \u009b and \x9b. Every human-readable output
// that quotes a record value (reports, messages on stderr) goes through
// it, so that a dataset cannot write the clipboard (OSC 52), set the
// window title or clear the screen.
func Printable(s string) string { return printable(s, false) }

// PrintableLine is Printable that also escapes tab and newline (\t, \n),
// for a value inside a one-line message or a table cell.
func PrintableLine(s string) string { return printable(s, true) }

func printable(s string, line bool) string {
	if isPrintable(s, line) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\t' && line:
			b.WriteString(`\t`)
		case r == '\n' && line:
			b.WriteString(`\n`)
		case r == '\t' || r == '\n':
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x80 && r <= 0x9f:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func isPrintable(s string, line bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return scanUTF8(s[i:], line)
		}
		if c == 0x7f || c < 0x20 && (line || c != '\t' && c != '\n') {
			return false
		}
	}
	return true
}

// scanUTF8 is the slow path of isPrintable from the first non-ASCII byte.
func scanUTF8(s string, line bool) bool {
	for _, r := range s {
		if r == utf8.RuneError || r < 0x20 && (line || r != '\t' && r != '\n') || r >= 0x7f && r <= 0x9f {
			return false
		}
	}
	return true
}

// markdownCell escapes what Markdown (GitHub's, the Hugging Face Hub's)
// would read as structure in a table cell: a backslash first (so that a
// value's own "\|" cannot end the cell), the cell's '|', links and images
// ('[', ']', '!'), raw HTML ('<', '>', '&'), code spans and emphasis.
var markdownCell = strings.NewReplacer(`\`, `\\`, "|", `\|`, "[", `\[`, "]", `\]`, "!", `\!`,
	"<", "&lt;", ">", "&gt;", "&", "&amp;", "`", "\\`", "*", `\*`,
	"\r\n", " ", "\n", " ", "\r", " ")

// MarkdownCell makes a value safe as a Markdown table cell or a line of a
// Markdown list: one line (newlines become spaces), no control character
// (Printable), no heading, link, image, HTML or code span. Every table of
// ngstats --markdown and of the dataset card goes through it.
func MarkdownCell(s string) string { return PrintableLine(markdownCell.Replace(s)) }
