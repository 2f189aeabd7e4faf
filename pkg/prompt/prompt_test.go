package prompt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

var testBase = fstest.MapFS{
	"VERSION": {Data: []byte("7\n")},
	"seed/situation.tmpl": {Data: []byte(`{{define "system"}}Write in {{.Language}}.{{end}}
{{define "user"}}Norm: {{.Norm}}
{{numbered .Items}}{{end}}`)},
	"seed/situation.korean.tmpl": {Data: []byte(`{{define "system"}}{{.Language}}로 쓰세요.{{end}}{{define "user"}}규범: {{.Norm}}{{end}}`)},
}

type data struct {
	Language, Norm string
	Items          []string
}

func TestRenderPicksCultureThenGeneric(t *testing.T) {
	p, err := open(testBase, "")
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.Render("seed", "situation", "american", data{"English", "Say thanks.", []string{"a", "b"}})
	if err != nil || got.System != "Write in English." || got.User != "Norm: Say thanks.\n1. a\n2. b" {
		t.Fatalf("%+v %v", got, err)
	}
	got, err = p.Render("seed", "situation", "korean", data{Language: "한국어", Norm: "감사"})
	if err != nil || got.System != "한국어로 쓰세요." || got.User != "규범: 감사" {
		t.Fatalf("%+v %v", got, err)
	}
	if p.Version() != "7" {
		t.Fatalf("version %q", p.Version())
	}
	if _, err := p.Render("seed", "nosuch", "korean", data{}); err == nil || !strings.Contains(err.Error(), "seed/nosuch.korean.tmpl") {
		t.Fatalf("missing template: %v", err)
	}
	// missingkey=error: a field the data lacks is an error, not "<no value>".
	if _, err := p.Render("seed", "situation", "american", map[string]any{"Language": "x"}); err == nil {
		t.Fatal("a missing key rendered")
	}
}

func write(t *testing.T, dir, name, body string) {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestOverridesAndVersion(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "seed/situation.tmpl", `{{define "system"}}Mine.{{end}}{{define "user"}}{{.Norm}}{{end}}`)
	p, err := open(testBase, dir)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := p.Render("seed", "situation", "american", data{Norm: "n"})
	if got.System != "Mine." {
		t.Fatalf("override not used: %+v", got)
	}
	// The culture's built-in file is more specific than the user's generic one.
	if got, _ := p.Render("seed", "situation", "korean", data{Language: "ko", Norm: "n"}); got.System != "ko로 쓰세요." {
		t.Fatalf("korean: %+v", got)
	}
	v := p.Version()
	if !strings.HasPrefix(v, "7+") || len(v) != 10 {
		t.Fatalf("version %q", v)
	}
	write(t, dir, "seed/situation.tmpl", `{{define "system"}}Mine, changed.{{end}}{{define "user"}}{{.Norm}}{{end}}`)
	if p2, _ := open(testBase, dir); p2.Version() == v {
		t.Fatal("a changed override keeps the version")
	}
}

func TestOpenRejectsBadOverrides(t *testing.T) {
	for name, body := range map[string]string{
		"nostage/x.tmpl":      `{{define "system"}}{{end}}{{define "user"}}{{end}}`,
		"seed/broken.tmpl":    `{{define "system"}}{{.X{{end}}`,
		"seed/nouser.tmpl":    `{{define "system"}}x{{end}}`,
		"seed/missing.md.txt": "not a template",
	} {
		dir := t.TempDir()
		write(t, dir, name, body)
		if _, err := open(testBase, dir); err == nil || !strings.Contains(err.Error(), "--prompts") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := open(testBase, filepath.Join(t.TempDir(), "nope")); err == nil {
		t.Error("a missing directory was accepted")
	}
}

func TestBuiltinOpens(t *testing.T) {
	if p := Builtin(); p == nil || p.Version() == "" {
		t.Fatal("no built-in pack")
	}
}

// A culture is part of a template's file name, never a path: "x/../quality"
// would otherwise render seed/quality.tmpl.
func TestRenderRefusesCulturePath(t *testing.T) {
	base := fstest.MapFS{"VERSION": {Data: []byte("1\n")},
		"label/turns.tmpl":   {Data: []byte(`{{define "system"}}turns{{end}}{{define "user"}}u{{end}}`)},
		"label/quality.tmpl": {Data: []byte(`{{define "system"}}quality{{end}}{{define "user"}}u{{end}}`)},
	}
	p, err := open(base, "")
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.Render("label", "turns", "x/../quality", nil)
	if err == nil || !strings.Contains(err.Error(), "not a culture name") {
		t.Fatalf("rendered %+v, err %v", got, err)
	}
}
