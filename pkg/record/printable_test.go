package record

import "testing"

// Hostile values: nothing a terminal obeys survives.
func TestPrintable(t *testing.T) {
	for _, c := range []struct{ in, want, line string }{
		{"plain 한국어 text", "plain 한국어 text", "plain 한국어 text"},
		{"a\tb\nc", "a\tb\nc", `a\tb\nc`},
		{"\x1b]52;c;cHduZWQ=\x07", `\x1b]52;c;cHduZWQ=\x07`, `\x1b]52;c;cHduZWQ=\x07`},
		{"\x1b]0;title\x07\x1b[2J\x1b[H", `\x1b]0;title\x07\x1b[2J\x1b[H`, `\x1b]0;title\x07\x1b[2J\x1b[H`},
		{"x\u009b2Jy", `x\u009b2Jy`, `x\u009b2Jy`},
		{"x\x9b2Jy", `x\x9b2Jy`, `x\x9b2Jy`},
		{"del\x7f\r", `del\x7f\x0d`, `del\x7f\x0d`},
		{"é\u00a0ok\ufffd", "é\u00a0ok\ufffd", "é\u00a0ok\ufffd"},
	} {
		if got := Printable(c.in); got != c.want {
			t.Errorf("Printable(%q) = %q, want %q", c.in, got, c.want)
		}
		if got := PrintableLine(c.in); got != c.line {
			t.Errorf("PrintableLine(%q) = %q, want %q", c.in, got, c.line)
		}
	}
}

// No heading, image, link, raw HTML or code span survives in a cell.
func TestMarkdownCell(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"korean", "korean"},
		{"a|b", `a\|b`},
		{`a\|b`, `a\\\|b`},
		{"x\n# Heading\r\n## two", `x # Heading ## two`},
		{"![px](https://t.example/p.gif)", `\!\[px\](https://t.example/p.gif)`},
		{"[click](javascript:alert(1))", `\[click\](javascript:alert(1))`},
		{`<img src=x onerror="alert(1)">`, `&lt;img src=x onerror="alert(1)"&gt;`},
		{"&lt;script&gt;", "&amp;lt;script&amp;gt;"},
		{"`code` *em* _u_", "\\`code\\` \\*em\\* _u_"},
		{"t\x1b]0;x\x07", `t\x1b\]0;x\x07`},
	} {
		if got := MarkdownCell(c.in); got != c.want {
			t.Errorf("MarkdownCell(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
