package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/cmd/internal/app"
	"github.com/ngkit/ngkit/cmd/internal/cli"
)

// ngkit --version prints the module version, the commit and Go's version.
func TestVersion(t *testing.T) {
	var out, errb bytes.Buffer
	err := dispatch(app.Env{Stdout: &out, Stderr: &errb}, []string{"ngkit", "--version"})
	if err != nil || !regexp.MustCompile(`\Angkit \S+, commit \S+, go1\.\S+\n\z`).MatchString(out.String()) {
		t.Errorf("ngkit --version: %v, %q", err, out.String())
	}
}

// docs/<program>.md are made by `ngkit help --markdown docs` from the
// programs' help: a change to the help without them (or the reverse)
// fails here.
func TestDocsFresh(t *testing.T) {
	dir := t.TempDir()
	if err := markdown(dir); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.md"))
	if len(files) != len(cli.Names())+1 {
		t.Fatalf("ngkit help --markdown wrote %d files, want %d", len(files), len(cli.Names())+1)
	}
	for _, f := range files {
		want, _ := os.ReadFile(f)
		repo := filepath.Join("..", "..", "docs", filepath.Base(f))
		got, err := os.ReadFile(repo)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("docs/%s is stale (the help changed): run `go run ./cmd/ngkit help --markdown docs` and commit docs/", filepath.Base(f))
		}
	}
}

// ngkit man writes a page a program that man(1) renders without a
// warning; where groff is not installed, the roff is checked by its
// structure only.
func TestManPages(t *testing.T) {
	dir := t.TempDir()
	if err := man(dir); err != nil {
		t.Fatal(err)
	}
	groff, _ := exec.LookPath("groff")
	for _, n := range append([]string{"ngkit"}, cli.Names()...) {
		b, err := os.ReadFile(filepath.Join(dir, n+".1"))
		if err != nil {
			t.Fatal(err)
		}
		page := string(b)
		for _, want := range []string{".TH " + strings.ToUpper(n) + " 1 ", "\n.SH NAME\n" + n + ` \- `, "\n.SH SYNOPSIS\n", "\n.SH DESCRIPTION\n"} {
			if !strings.Contains(page, want) {
				t.Errorf("%s.1 has no %q", n, want)
			}
		}
		if n != "ngkit" && !strings.Contains(page, "\n.SH OPTIONS\n.TP\n\\fB\\-o,\\: \\-\\-output\\fR \\fIFILE\\fR\n") {
			t.Errorf("%s.1: no -o in OPTIONS as \\-o, \\-\\-output", n)
		}
		for i, l := range strings.Split(page, "\n") {
			// A line of text never starts a request by accident: every
			// request is one of the macros written.
			if strings.HasPrefix(l, ".") || strings.HasPrefix(l, "'") {
				if m := strings.Fields(l)[0]; !slices.Contains([]string{".TH", ".ad", ".nh", ".SH", ".SS", ".PP", ".TP", ".IP", ".B", ".br", ".RS", ".RE", ".nf", ".fi"}, m) {
					t.Errorf("%s.1 line %d starts with a request %q: %s", n, i+1, m, l)
				}
			}
		}
		if groff == "" {
			continue
		}
		cmd := exec.Command(groff, "-k", "-man", "-Tutf8", "-ww", "-z", filepath.Join(dir, n+".1"))
		if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
			t.Errorf("groff on %s.1: %v\n%s", n, err, out)
		}
	}
	if groff == "" {
		t.Log("groff not installed: man pages checked by structure only")
	}
}
