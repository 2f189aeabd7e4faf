package cli

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/ngkit/ngkit/cmd/internal/app"
	"github.com/ngkit/ngkit/cmd/internal/demo"
	"github.com/ngkit/ngkit/internal/fakeng"
	"github.com/ngkit/ngkit/internal/testkit"
	"github.com/ngkit/ngkit/pkg/llm/llmtest"
)

// casesDir holds the CLI cases: casesDir/<program>/*.yaml, each file a list
// of cases run against that program (DEVELOPING.md, "CLI cases").
const casesDir = "../../../testdata/cli"

// cliCase is one run of a program and what it must give. Paths in args
// are relative to the case file's folder (the run's working directory);
// an arg with * is the files it matches, as in a shell; {tmp} in args,
// env, stdin and the expectations is a fresh empty folder. The format,
// with an example of each key: internal/testkit/README.md.
type cliCase struct {
	Name      string   `yaml:"name"`
	Args      []string `yaml:"args"`
	Stdin     string   `yaml:"stdin"`      // text on stdin
	StdinFile string   `yaml:"stdin_file"` // or this file on stdin
	// Env is what the program's Env.Getenv sees, nothing else (code that
	// reads the process environment, such as the user culture folder, still
	// sees the process's).
	Env map[string]string `yaml:"env"`
	// Fake starts the fake model of every stage (internal/fakeng) and
	// points NG_BASE_URL and NG_MODEL at it ({fake} is its URL, for a
	// models file); the args of the LLM programs then start with
	// testkit.FastRetryFlags (no cache, quick retries, no bar).
	Fake bool `yaml:"fake"`
	// Calls is how many requests the fake model must have had (with
	// fake; absent: not checked).
	Calls *int `yaml:"calls"`
	Exit  int  `yaml:"exit"`
	// Stdout and Stderr are the whole output; absent means nothing was
	// written, unless StdoutHas / StderrHas give lines that must appear
	// instead (help texts, which other work extends).
	Stdout    *string  `yaml:"stdout"`
	Stderr    *string  `yaml:"stderr"`
	StdoutHas []string `yaml:"stdout_has"`
	StderrHas []string `yaml:"stderr_has"`
	// StdoutLacks and StderrLacks are texts that must not appear.
	StdoutLacks []string `yaml:"stdout_lacks"`
	StderrLacks []string `yaml:"stderr_lacks"`
	// StderrLines, when set, is how many lines stderr must have;
	// StderrMatch a regular expression all of stderr must match.
	StderrLines *int   `yaml:"stderr_lines"`
	StderrMatch string `yaml:"stderr_match"`
	// StdoutMatch, when set, is a regular expression all of stdout must
	// match (in place of stdout).
	StdoutMatch string `yaml:"stdout_match"`
	// Files are files the run must leave in {tmp}, name -> whole content;
	// Absent lists names it must not leave there.
	Files  map[string]string `yaml:"files"`
	Absent []string          `yaml:"absent"`
	// Setup lays files out in {tmp} before the run: name -> content, or
	// {copy: path} for a file of the case folder.
	Setup map[string]setupFile `yaml:"setup"`
	// Pipe runs programs one after the other, each one's stdout the next
	// one's stdin (as "a > f; b < f" in a shell), in place of the folder's
	// program and args: each entry is a program name and its args, or
	// cat and files (their bytes to stdout, as the shell's cat). Every
	// program but the last must exit 0; stderr is all of theirs, in
	// order; exit and stdout are the last one's.
	Pipe [][]string `yaml:"pipe"`
	// Records checks stdout as JSON values (JSONL records or one report);
	// StdoutFile is a file stdout must equal. Either stands in for stdout.
	Records    *testkit.RecordCheck `yaml:"records"`
	StdoutFile string               `yaml:"stdout_file"`
	// FileChecks checks files the run left in {tmp} (name -> checks).
	FileChecks map[string]testkit.FileCheck `yaml:"file_checks"`

	line int // where the case starts in its file
}

// setupFile is a file laid out before a case: inline content, or a copy.
type setupFile struct {
	Content string
	Copy    string
}

func (f *setupFile) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		return n.Decode(&f.Content)
	}
	var v struct {
		Copy string `yaml:"copy"`
	}
	if err := n.Decode(&v); err != nil {
		return err
	}
	if v.Copy == "" {
		return fmt.Errorf("line %d: a setup file is its content or {copy: path}", n.Line)
	}
	f.Copy = v.Copy
	return nil
}

// llmPrograms take the LLM client's flags: with fake, their args start
// with testkit.FastRetryFlags.
var llmPrograms = map[string]bool{"ngseed": true, "ngrefine": true, "ngv2r": true, "nglabel": true, "ngpact": true, "ngsim": true}

var fakeModel = sync.OnceValues(fakeng.New)

// TestCLICases runs every case of testdata/cli.
func TestCLICases(t *testing.T) {
	dirs, err := os.ReadDir(casesDir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		prog := Programs[d.Name()]
		if prog == nil {
			t.Errorf("%s: no program %s (the folder names the program: %s)", filepath.Join(casesDir, d.Name()), d.Name(), strings.Join(Names(), ", "))
			continue
		}
		files, _ := filepath.Glob(filepath.Join(casesDir, d.Name(), "*.yaml"))
		for _, file := range files {
			for _, c := range loadCases(t, file) {
				n++
				t.Run(d.Name()+"/"+strings.TrimSuffix(filepath.Base(file), ".yaml")+"/"+c.Name, func(t *testing.T) {
					runCase(t, d.Name(), file, c)
				})
			}
		}
	}
	if n == 0 {
		t.Fatalf("no cases under %s", casesDir)
	}
}

func loadCases(t *testing.T, file string) []cliCase {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true) // a misspelt key is an error, not a check left out
	var cases []cliCase
	if err := dec.Decode(&cases); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	var doc yaml.Node // for the line each case starts on
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	for i, item := range doc.Content[0].Content {
		cases[i].line = item.Line
	}
	seen := map[string]bool{}
	for i, c := range cases {
		switch {
		case c.Name == "":
			t.Fatalf("%s: case %d has no name", file, i+1)
		case seen[c.Name]:
			t.Fatalf("%s: two cases named %q", file, c.Name)
		case c.Stdin != "" && c.StdinFile != "":
			t.Fatalf("%s: case %q: stdin or stdin_file, not both", file, c.Name)
		case c.Calls != nil && !c.Fake:
			t.Fatalf("%s: case %q: calls goes with fake", file, c.Name)
		case len(c.Pipe) > 0 && len(c.Args) > 0:
			t.Fatalf("%s: case %q: pipe or args, not both", file, c.Name)
		case c.Records != nil && (c.Stdout != nil || c.StdoutHas != nil || c.StdoutMatch != "") ||
			c.StdoutFile != "" && (c.Stdout != nil || c.StdoutHas != nil || c.StdoutMatch != ""):
			t.Fatalf("%s: case %q: records and stdout_file stand in for stdout, stdout_has and stdout_match", file, c.Name)
		}
		for _, p := range c.Pipe {
			if len(p) == 0 || Programs[p[0]] == nil && p[0] != "cat" {
				t.Fatalf("%s: case %q: pipe %q: each entry starts with a program (%s)", file, c.Name, p, strings.Join(Names(), ", "))
			}
		}
		seen[c.Name] = true
	}
	return cases
}

// runCase runs the program in the case file's folder and compares.
func runCase(t *testing.T, name string, file string, c cliCase) {
	tmp := t.TempDir()
	sub := strings.NewReplacer("{tmp}", tmp).Replace
	vars := map[string]string{}
	for k, v := range c.Env {
		vars[k] = sub(v)
	}
	pipe := c.Pipe
	if len(pipe) == 0 {
		pipe = [][]string{append([]string{name}, c.Args...)}
	}
	var srv *llmtest.Server
	if c.Fake {
		m, err := fakeModel()
		if err != nil {
			t.Fatal(err)
		}
		srv = llmtest.New(llmtest.Options{Reply: m.Reply, Logprobs: m.Logprobs})
		t.Cleanup(srv.Close)
		vars["NG_BASE_URL"], vars["NG_MODEL"] = srv.URL, "fake"
		sub = strings.NewReplacer("{tmp}", tmp, "{fake}", srv.URL).Replace
	}
	t.Chdir(filepath.Dir(file))
	for _, f := range slices.Sorted(maps.Keys(c.Setup)) {
		b := []byte(sub(c.Setup[f].Content))
		if src := c.Setup[f].Copy; src != "" {
			var err error
			if b, err = os.ReadFile(sub(src)); err != nil {
				t.Fatalf("%s: case %q: setup %s: %v", file, c.Name, f, err)
			}
		}
		p := filepath.Join(tmp, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stdin := []byte(sub(c.Stdin))
	if c.StdinFile != "" {
		var err error
		if stdin, err = os.ReadFile(sub(c.StdinFile)); err != nil {
			t.Fatalf("%s: case %q: %v", file, c.Name, err)
		}
	}
	var out, errb bytes.Buffer
	code := 0
	for i, p := range pipe {
		var args []string
		for _, a := range p[1:] {
			args = append(args, expand(sub(a))...)
		}
		if c.Fake && llmPrograms[p[0]] {
			args = testkit.FastRetryFlags(args...)
		}
		out.Reset()
		env := app.Env{Args: args, Stdin: bytes.NewReader(stdin), Stdout: &out, Stderr: &errb,
			Getenv: func(k string) string { return vars[k] }, Demo: demo.Endpoint}
		if p[0] == "cat" {
			code = catFiles(env)
		} else {
			code = exit(Programs[p[0]], env)
		}
		if i < len(pipe)-1 && code != 0 {
			t.Fatalf("%s:%d: case %q: %s exit %d in the pipe; stderr:\n%s", shortPath(file), c.line, c.Name, strings.Join(p, " "), code, errb.String())
		}
		stdin = slices.Clone(out.Bytes())
	}

	var cmds []string
	for _, p := range pipe {
		cmds = append(cmds, strings.Join(p, " "))
	}
	where := fmt.Sprintf("%s:%d: case %q (%s)", shortPath(file), c.line, c.Name, strings.Join(cmds, " | "))
	if code != c.Exit {
		t.Errorf("%s: exit %d, want %d; stderr:\n%s", where, code, c.Exit, errb.String())
	}
	switch {
	case c.Records != nil:
		for _, why := range c.Records.Check(out.Bytes()) {
			t.Errorf("%s: stdout: %s", where, why)
		}
	case c.StdoutFile != "":
		want, err := os.ReadFile(sub(c.StdoutFile))
		if err != nil {
			t.Fatalf("%s: stdout_file: %v", where, err)
		}
		if !bytes.Equal(out.Bytes(), want) {
			t.Errorf("%s: stdout differs from %s (- want, + got):\n%s", where, c.StdoutFile, lineDiff(string(want), out.String()))
		}
	case c.StdoutMatch != "":
		re, err := regexp.Compile(`\A(?:` + sub(c.StdoutMatch) + `)\z`)
		if err != nil {
			t.Fatalf("%s: stdout_match: %v", where, err)
		}
		if !re.MatchString(out.String()) {
			t.Errorf("%s: stdout does not match %s; it is:\n%s", where, re, out.String())
		}
	default:
		compare(t, where, "stdout", out.String(), c.Stdout, c.StdoutHas, sub)
	}
	if c.StderrMatch != "" {
		re, err := regexp.Compile(`\A(?:` + sub(c.StderrMatch) + `)\z`)
		if err != nil {
			t.Fatalf("%s: stderr_match: %v", where, err)
		}
		if !re.MatchString(errb.String()) {
			t.Errorf("%s: stderr does not match %s; it is:\n%s", where, re, errb.String())
		}
	} else {
		compare(t, where, "stderr", errb.String(), c.Stderr, c.StderrHas, sub)
	}
	for _, l := range c.StdoutLacks {
		if strings.Contains(out.String(), sub(l)) {
			t.Errorf("%s: stdout has %q; it is:\n%s", where, sub(l), out.String())
		}
	}
	for _, l := range c.StderrLacks {
		if strings.Contains(errb.String(), sub(l)) {
			t.Errorf("%s: stderr has %q; it is:\n%s", where, sub(l), errb.String())
		}
	}
	if c.StderrLines != nil {
		got := errb.String()
		if n := strings.Count(got, "\n"); n != *c.StderrLines || got != "" && !strings.HasSuffix(got, "\n") {
			t.Errorf("%s: stderr has %d lines, want %d whole lines:\n%s", where, n, *c.StderrLines, got)
		}
	}
	if c.Calls != nil && srv.Count() != *c.Calls {
		t.Errorf("%s: the fake model had %d requests, want %d", where, srv.Count(), *c.Calls)
	}
	for _, f := range slices.Sorted(maps.Keys(c.Files)) {
		b, err := os.ReadFile(filepath.Join(tmp, f))
		if err != nil {
			t.Errorf("%s: file %s: %v", where, f, err)
			continue
		}
		want := sub(c.Files[f])
		compare(t, where, "file "+f, string(b), &want, nil, sub)
	}
	for _, f := range slices.Sorted(maps.Keys(c.FileChecks)) {
		fc := c.FileChecks[f]
		path := filepath.Join(tmp, f)
		if strings.Contains(f, "*") { // a pattern: it must name one file
			m, _ := filepath.Glob(path)
			if len(m) != 1 {
				t.Errorf("%s: %s matches %d files, want 1: %v", where, f, len(m), m)
				continue
			}
			path = m[0]
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%s: file %s: %v", where, f, err)
			continue
		}
		read := func(name string) []byte {
			if name == "" {
				return nil
			}
			b, err := os.ReadFile(sub(name))
			if err != nil {
				t.Fatalf("%s: file %s: %v", where, f, err)
			}
			return b
		}
		for i := range fc.Has {
			fc.Has[i] = sub(fc.Has[i])
		}
		for _, why := range fc.Check(b, read(fc.SameAs), read(fc.Differs)) {
			t.Errorf("%s: file %s: %s", where, f, why)
		}
	}
	for _, f := range c.Absent {
		if m, _ := filepath.Glob(filepath.Join(tmp, f)); len(m) > 0 {
			t.Errorf("%s: left %v in {tmp}, want no %s", where, m, f)
		}
	}
}

// expand is an arg as a shell gives it: a pattern with * names the files
// it matches, in order (itself when none does).
func expand(arg string) []string {
	if !strings.Contains(arg, "*") {
		return []string{arg}
	}
	if m, _ := filepath.Glob(arg); len(m) > 0 {
		return m
	}
	return []string{arg}
}

// catFiles is cat in a pipe: the files in env.Args to env.Stdout.
func catFiles(env app.Env) int {
	for _, f := range env.Args {
		b, err := os.ReadFile(f)
		if err != nil {
			fmt.Fprintln(env.Stderr, "cat:", err)
			return 1
		}
		env.Stdout.Write(b)
	}
	return 0
}

// shortPath names a case file from the repository root.
func shortPath(file string) string {
	return strings.TrimPrefix(filepath.ToSlash(file), "../../../")
}

// compare checks one output: whole (want), or containing each of has, or
// empty when neither is given.
func compare(t *testing.T, where, what, got string, want *string, has []string, sub func(string) string) {
	t.Helper()
	switch {
	case want != nil:
		if w := sub(*want); got != w {
			t.Errorf("%s: %s differs (- want, + got):\n%s", where, what, lineDiff(w, got))
		}
	case len(has) > 0:
		for _, h := range has {
			if !strings.Contains(got, sub(h)) {
				t.Errorf("%s: %s has no %q; it is:\n%s", where, what, sub(h), got)
			}
		}
	case got != "":
		t.Errorf("%s: %s should be empty; it is:\n%s", where, what, got)
	}
}

// lineDiff is a line diff of want and got (longest common subsequence):
// "  " common, "- " only in want, "+ " only in got. A missing final
// newline shows as a line of its own.
func lineDiff(want, got string) string {
	a, b := diffLines(want), diffLines(got)
	// lcs[i][j] is the length of the longest common subsequence of a[i:], b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out strings.Builder
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			out.WriteString("  " + a[i] + "\n")
			i, j = i+1, j+1
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			out.WriteString("- " + a[i] + "\n")
			i++
		default:
			out.WriteString("+ " + b[j] + "\n")
			j++
		}
	}
	return out.String()
}

func diffLines(s string) []string {
	if s == "" {
		return nil
	}
	l := strings.Split(s, "\n")
	if l[len(l)-1] == "" {
		return l[:len(l)-1]
	}
	return append(l[:len(l)-1], l[len(l)-1], "(no newline at the end)")
}

// The case format is described once, in internal/testkit/README.md, and
// its keys are frozen: every yaml key of a case (and of the record and
// file checks it holds) is described there, and no key is added without
// a reason to leave Go tests.
func TestCaseKeysAreDescribed(t *testing.T) {
	b, err := os.ReadFile("../../../internal/testkit/README.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(ty reflect.Type) {
		for ty.Kind() == reflect.Pointer || ty.Kind() == reflect.Slice || ty.Kind() == reflect.Map {
			ty = ty.Elem()
		}
		if ty.Kind() != reflect.Struct || seen[ty] {
			return
		}
		seen[ty] = true
		for i := range ty.NumField() {
			f := ty.Field(i)
			key, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if key == "" || key == "-" {
				continue
			}
			if !regexp.MustCompile(`(^|[^a-z_])` + key + `([^a-z_]|$)`).MatchString(doc) {
				t.Errorf("the case key %q (%s.%s) is not described in internal/testkit/README.md", key, ty.Name(), f.Name)
			}
			walk(f.Type)
		}
	}
	walk(reflect.TypeOf(cliCase{}))
	if len(seen) < 3 {
		t.Fatalf("walked %d types", len(seen))
	}
}
