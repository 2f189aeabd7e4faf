// Package doclinks holds the test that every relative Markdown link of
// README.md, DEVELOPING.md and docs/*.md names a file or folder of the
// repository (DEVELOPING.md, Links). Anchors (#...) are not checked.
package doclinks

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// link matches [text](target) and ![alt](target); the target ends at a
// space (a title) or the closing parenthesis.
var link = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)[^)]*\)`)

// links returns the link targets of a Markdown text outside fenced code
// blocks and inline code spans.
func links(text string) []string {
	var out []string
	fence := false
	for line := range strings.SplitSeq(text, "\n") {
		// A fence is a line of three or more backticks and an info
		// string without one (CommonMark); "```` ```sh ````: ..." is text.
		if s := strings.TrimSpace(line); strings.HasPrefix(s, "```") && !strings.Contains(strings.TrimLeft(s, "`"), "`") {
			fence = !fence
			continue
		}
		if fence {
			continue
		}
		// Drop inline code: `...` spans (backtick runs of any length).
		var b strings.Builder
		for i := 0; i < len(line); {
			if line[i] != '`' {
				b.WriteByte(line[i])
				i++
				continue
			}
			n := 1
			for i+n < len(line) && line[i+n] == '`' {
				n++
			}
			end := strings.Index(line[i+n:], strings.Repeat("`", n))
			if end < 0 {
				b.WriteString(line[i:])
				break
			}
			i += n + end + n
		}
		for _, m := range link.FindAllStringSubmatch(b.String(), -1) {
			out = append(out, m[1])
		}
	}
	return out
}

func TestLinks(t *testing.T) {
	root := "../.."
	files := []string{"README.md", "DEVELOPING.md"}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		files = append(files, filepath.ToSlash(strings.TrimPrefix(d, root+string(filepath.Separator))))
	}
	if len(docs) < 5 {
		t.Fatalf("found %d files in docs/", len(docs))
	}
	checked := 0
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, target := range links(string(b)) {
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") || strings.HasPrefix(target, "#") {
				continue
			}
			path, _, _ := strings.Cut(target, "#")
			rel := filepath.ToSlash(filepath.Join(filepath.Dir(f), path))
			checked++
			if _, err := os.Stat(filepath.Join(root, rel)); err != nil {
				t.Errorf("%s: link %q: %s does not exist", f, target, rel)
			}
		}
	}
	if checked < 20 {
		t.Errorf("checked only %d links", checked)
	}
}

func TestLinksParser(t *testing.T) {
	got := links("see [a](docs/a.md#x) and `[b](no.md)` and ![c](img.png \"t\")\n```\n[d](in-fence.md)\n```\n[e](https://x.org) [f](#anchor)\n```` ```sh ````: [g](g.md)")
	want := []string{"docs/a.md#x", "img.png", "https://x.org", "#anchor", "g.md"}
	if !slices.Equal(got, want) {
		t.Errorf("links = %q, want %q", got, want)
	}
}
