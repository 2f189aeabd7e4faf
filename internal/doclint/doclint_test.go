// Package doclint holds the test that the user's manual reads as one:
// the README, every program's help (docs/<program>.md, which TestDocsFresh
// keeps equal to --help) and the user guides of docs/ name no issue
// number, no Go test, benchmark or fuzz target, no note of where
// something was tried, and say no paragraph twice. Those belong in
// DEVELOPING.md, docs/status.md and docs/speed.md (DEVELOPING.md, Docs).
package doclint

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// notManual are the pages of docs/ written for developers and for the
// record of what was measured: they may name tests and issues.
var notManual = map[string]bool{"status.md": true, "speed.md": true, "bench.md": true, "bench-peers.md": true}

// forbidden is what a user's page must not say, and why.
var forbidden = []struct {
	re  *regexp.Regexp
	why string
}{
	{regexp.MustCompile(`(?i)\bissues?\s+#?\d+|(^|[\s(])#\d{1,4}\b`), "an issue number"},
	{regexp.MustCompile(`\b(Test|Benchmark|Fuzz)[A-Z][A-Za-z0-9_]*`), "a Go test, benchmark or fuzz target"},
	{regexp.MustCompile(`(?i)\b(could not be tried|not tried here|tried here|on this (shared )?machine|loaded 2-core|2-core machine)\b`), "a note of where something was tried"},
}

// minRepeat is the length from which a paragraph or sentence said twice
// on one page is a repetition, not a phrase ("See --help.").
const minRepeat = 60

func pages(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("../../docs/*.md")
	if err != nil || len(files) < 10 {
		t.Fatalf("docs: %v %v", files, err)
	}
	out := []string{"../../README.md"}
	for _, f := range files {
		if !notManual[filepath.Base(f)] {
			out = append(out, f)
		}
	}
	return out
}

// prose splits a Markdown page into its paragraphs outside fenced code,
// each with the line it starts on; a table row or list item is one.
func prose(text string) (paras []string, lines []int) {
	var cur []string
	start := 0
	flush := func() {
		if len(cur) > 0 {
			paras = append(paras, strings.Join(cur, " "))
			lines = append(lines, start)
		}
		cur = nil
	}
	fence := false
	for i, line := range strings.Split(text, "\n") {
		s := strings.TrimSpace(line)
		if strings.HasPrefix(s, "```") {
			fence = !fence
			flush()
			continue
		}
		if fence {
			continue
		}
		if s == "" || strings.HasPrefix(s, "|") || strings.HasPrefix(s, "- ") || strings.HasPrefix(s, "#") {
			flush()
		}
		if s == "" {
			continue
		}
		if len(cur) == 0 {
			start = i + 1
		}
		cur = append(cur, s)
		if strings.HasPrefix(s, "|") || strings.HasPrefix(s, "#") {
			flush()
		}
	}
	flush()
	return paras, lines
}

var space = regexp.MustCompile(`\s+`)

// sentences are a paragraph's sentences, normalised (case, spaces, code
// marks), for comparison.
func sentences(p string) []string {
	p = strings.ToLower(space.ReplaceAllString(strings.ReplaceAll(p, "`", ""), " "))
	var out []string
	for _, s := range regexp.MustCompile(`[.;:]\s`).Split(p, -1) {
		if s = strings.TrimSpace(s); len(s) >= minRepeat {
			out = append(out, s)
		}
	}
	return out
}

// problems are what a page says that a user's manual must not.
func problems(name, text string) []string {
	var out []string
	paras, lines := prose(text)
	seen := map[string]int{}
	for i, p := range paras {
		for _, f := range forbidden {
			if m := f.re.FindString(p); m != "" {
				out = append(out, fmt.Sprintf("%s:%d: names %s (%q): move it to DEVELOPING.md, docs/status.md or docs/speed.md", name, lines[i], f.why, m))
			}
		}
		if strings.HasPrefix(p, "|") || strings.HasPrefix(p, "#") {
			continue
		}
		for _, s := range sentences(p) {
			if first, ok := seen[s]; ok && first != lines[i] {
				out = append(out, fmt.Sprintf("%s:%d: says again what line %d says: %.80q", name, lines[i], first, s))
				continue
			}
			seen[s] = lines[i]
		}
	}
	return out
}

func TestManualIsForUsers(t *testing.T) {
	for _, f := range pages(t) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range problems(strings.TrimPrefix(f, "../../"), string(b)) {
			t.Error(p)
		}
	}
}

// The lint itself: each rule fires on a page that breaks it, and not on
// one that does not.
func TestProblems(t *testing.T) {
	for _, c := range []struct {
		text string
		want string // "" for none
	}{
		{"The counts are as measured (issue 12).", "issue number"},
		{"Fixed in #41.", "issue number"},
		{"A retry's custom_id ends in `#2`, an entity is `&#39;`.", ""},
		{"`TestIntervalCoverage` checks it.", "Go test"},
		{"0.43 s (BenchmarkPactReport).", "Go test"},
		{"The upload could not be tried here (no PyPI).", "where something was tried"},
		{"--by ATTR adds a table per attribute and then the whole report of each value.\n\nSee below.\n\n--by ATTR adds a table per attribute and then the whole report of each value.", "says again"},
		{"Examples:\n\n```sh\nngstats a.jsonl # issue 3\nngstats a.jsonl # issue 3\n```\n", ""},
		{"| a | b |\n| a | b |\n", ""},
		{"ngstats tests the records and reports what it finds; a testing pipeline stops.", ""},
	} {
		got := strings.Join(problems("page.md", c.text), "\n")
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%q:\n got %q\nwant %q", c.text, got, c.want)
		}
	}
}

// issueNumber is a reference to an issue of the tracker, which a reader
// of the repository cannot look up. (A bare "#2" is a speaker's name or a
// call's number in code, so only the manual is held to that.)
var issueNumber = regexp.MustCompile(`(?i)\bissues?\s+#?\d+`)

// upstream ends a text that names another project's repository
// ("huggingface/datasets issue 5612").
var upstream = regexp.MustCompile(`[\w.-]+/[\w.-]+\s+$`)

// sourceExt are the files whose text a developer reads: code, scripts,
// test cases and developer docs.
var sourceExt = map[string]bool{".go": true, ".sh": true, ".py": true, ".yaml": true, ".md": true, ".tmpl": true}

// noIssueNumbers are files that may name issues: docs/status.md is the
// record of the open work, kept with the tracker; this file's cases.
var noIssueNumbers = map[string]bool{"docs/status.md": true, "internal/doclint/doclint_test.go": true}

// TestNoIssueNumbersInTheRepository: code, comments, scripts, test cases
// and developer docs say what was decided, not which issue asked for it.
// Recorded model replies and vendored copies are data, not ours.
func TestNoIssueNumbersInTheRepository(t *testing.T) {
	root := "../.."
	skip := map[string]bool{".git": true, "node_modules": true, "realmodels": true, "realreplies": true, "pact_authors": true, "normgenesis": true}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if skip[d.Name()] {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		if !sourceExt[filepath.Ext(p)] || noIssueNumbers[filepath.ToSlash(rel)] {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			for _, loc := range issueNumber.FindAllStringIndex(line, -1) {
				if upstream.MatchString(line[:loc[0]]) {
					continue // another project's issue, which can be looked up
				}
				t.Errorf("%s:%d: names an issue (%q): say what was decided instead", rel, i+1, line[loc[0]:loc[1]])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
