package render

import (
	"regexp"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/filters/stats"
	"github.com/ngkit/ngkit/pkg/record"
)

// hostile values: OSC 52 (clipboard), a window title, clear screen, C1
// CSI (as a rune and as a raw byte), and Markdown structure.
var hostile = []string{
	"\x1b]52;c;cHduZWQ=\x07", "\x1b]0;owned\x07", "\x1b[2J\x1b[H", "x\u009b2J", "y\x9b2J",
	"a\n# Heading", "![px](https://t.example/p.gif)", `<img src=x onerror=alert(1)>`, "[c](javascript:alert(1))", "`x`|y",
}

func hostileReport(t *testing.T) *stats.Report {
	t.Helper()
	c := stats.NewCollector()
	for i, h := range hostile {
		c.Add(&record.Record{ID: "id" + h, Culture: "c" + h, Category: "cat" + h, DialogueType: []string{"adherence", "v" + h}[i%2],
			Turns:  []record.Turn{{Index: 0, Speaker: "s" + h, Text: "hello " + h}, {Index: 1, Speaker: "s" + h, Text: "t" + h}},
			Checks: &record.Checks{Defects: []string{"d" + h}}})
	}
	return c.Report()
}

// No control byte a terminal obeys reaches ngstats' text report.
func TestTextReportEscapesControls(t *testing.T) {
	var b strings.Builder
	if err := WriteText(&b, hostileReport(t), 5); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, `\x1b]52;c;`) {
		t.Errorf("the hostile values are not in the report:\n%s", out)
	}
	for i := 0; i < len(out); i++ {
		if c := out[i]; c < 0x20 && c != '\n' || c == 0x7f || c == 0x9b {
			t.Fatalf("raw control byte %#x at %d: %q", c, i, out[max(0, i-40):min(len(out), i+40)])
		}
	}
	if strings.Contains(out, "\u009b") {
		t.Fatal("raw C1 CSI in the report")
	}
}

// No heading, image, link, raw HTML or control character survives in
// ngstats --markdown, the culture x type header included.
func TestMarkdownReportEscapes(t *testing.T) {
	var b strings.Builder
	if err := WriteMarkdown(&b, hostileReport(t), 5, 2); err != nil {
		t.Fatal(err)
	}
	checkMarkdown(t, b.String())
}

func checkMarkdown(t *testing.T, out string) {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "#") && strings.Contains(line, "Heading") {
			t.Errorf("a value made a heading: %q", line)
		}
	}
	if m := regexp.MustCompile(`(^|[^\\])\]\(`).FindStringIndex(out); m != nil {
		t.Errorf("a link survives: %q", out[max(0, m[0]-60):min(len(out), m[1]+60)])
	}
	for _, bad := range []string{"![", "<img", "\x1b", "\u009b", "\x9b", "`x`", "\n# "} {
		if strings.Contains(out, bad) {
			i := strings.Index(out, bad)
			t.Errorf("%q survives: %q", bad, out[max(0, i-60):min(len(out), i+60)])
		}
	}
}
