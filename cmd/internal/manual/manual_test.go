package manual

import (
	"bytes"
	"strings"
	"testing"
)

// Roff escaping: backslashes, hyphens (flags copy as ASCII minus), and a
// line of text that starts with a dot or an apostrophe is not a request.
func TestManEscape(t *testing.T) {
	d := &Doc{Name: "ngx", Summary: `a \ b`, Usage: []string{"[flags]"},
		Details: ".hidden starts with a dot\n\n'quoted starts with an apostrophe\n\nuse `--from text` and C:\\dir\n\n```sh\n.x --y\n```",
		Flags:   []Flag{{Short: "o", Long: "output", Arg: "FILE", Usage: "write to FILE"}}}
	var b bytes.Buffer
	d.WriteMan(&b, "v1")
	page := b.String()
	for _, want := range []string{
		"ngx \\- a \\e b\n",
		"\n.PP\n\\&.hidden starts with a dot\n",
		"\n.PP\n\\&'quoted starts",
		`use \fB\-\-from text\fR and C:\edir`,
		"\n.nf\n\\&.x \\-\\-y\n.fi\n",
		"\\fB\\-o,\\: \\-\\-output\\fR \\fIFILE\\fR\nwrite to FILE\n",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("man page has no %q:\n%s", want, page)
		}
	}
}

// Plain text: no Markdown markup left, code indented, headings as lines.
func TestText(t *testing.T) {
	d := &Doc{Name: "ngx", Summary: "s", Usage: []string{"[flags]"},
		Details:  "## A heading\n\nSee `--from` and **this** and [the guide](guide.md) and [x](#x).\n\n- one\n- two\n\n```sh\nngx --y\n```\n\n| a | b |\n|---|---|\n| `1` | 2 |",
		Sections: []Section{{Title: "--from text", Body: "body"}},
		Examples: []string{"ngx a"}, Exit: "0 ok."}
	var b bytes.Buffer
	d.WriteText(&b)
	want := "ngx — s\n\nUsage: ngx [flags]\n\nA heading:\n\nSee --from and this and the guide (docs/guide.md) and x.\n\n  - one\n  - two\n\n    ngx --y\n\na  b\n1  2\n\n--from text:\n\nbody\n\nExamples:\n  ngx a\n\nExit status: 0 ok.\n"
	if got := b.String(); got != want {
		t.Errorf("text:\n%s\nwant:\n%s", got, want)
	}
}

// A flag's usage in the Markdown table cannot break the table or become
// markup.
func TestMarkdownFlagCell(t *testing.T) {
	d := &Doc{Name: "ngx", Summary: "s", Usage: []string{"[flags]"},
		Flags: []Flag{{Long: "drop", Arg: "CLASS", Default: "a|b", Usage: "CLASS,...|any of <split>*.parquet"}}}
	var b bytes.Buffer
	d.WriteMarkdown(&b)
	if want := "| `--drop CLASS` | `a\\|b` | CLASS,...\\|any of &lt;split&gt;\\*.parquet |\n"; !strings.Contains(b.String(), want) {
		t.Errorf("markdown has no %q:\n%s", want, b.String())
	}
}
