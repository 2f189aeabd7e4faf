// Package layout holds the test of the repository's dependency rules
// (DEVELOPING.md, Layout): no filter (filters/NAME, with the packages under
// it) depends on another filter, and nothing in pkg/ depends on filters/ or cmd/. Shared code
// belongs in pkg/. Beyond those, some packages keep out of others (forbidden)
// and some are leaves that depend on nothing of ngkit (leaves). The program
// framework (cmd/internal/app) imports no filter and not the programs'
// wiring (cmd/internal/cli): programs plug their stages into it, not the
// other way round, and links no test code: the demo model is injected by
// each program's main (cmd/internal/demo), and no program links a test
// helper, the test fakes or the testing packages. It also holds the limit
// on a function's length (funclen_test.go).
package layout

import (
	"os/exec"
	"path"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/ngkit/ngkit/"

// forbidden lists, for a package (that one only, not its subpackages), the
// packages of ngkit it may not depend on, and why.
var forbidden = map[string]map[string]string{
	// the client is called by stages; it must not know the parser (the
	// reasoning tags it shares with it are pkg/vocab's) nor the pipeline
	"pkg/llm": {
		"pkg/dialogue": "the client shares only the vocabulary (pkg/vocab) with the parser",
		"pkg/pipeline": "the client is called by stages, it is not one",
	},
	// the Batch rounds are driven by the program (cmd/internal/app) between
	// runs of the pipeline; the client's side of them is pkg/llm's
	"pkg/llm/batch": {
		"pkg/pipeline": "the Batch rounds run between runs of the pipeline, not in one",
		"pkg/dialogue": "the Batch rounds move requests and replies, they do not read dialogue",
	},
	// the role registry opens clients for programs; stages get a Caller
	"pkg/llm/roles": {
		"pkg/pipeline": "the role registry opens clients, it is not a stage",
		"pkg/dialogue": "the role registry knows endpoints, not dialogue",
	},
	// the personas are data and sampling; their stage is the framework's (cmd/internal/app)
	"pkg/persona": {
		"pkg/pipeline": "persona's stage belongs in cmd/internal/app",
	},
}

// leaves depend on no package of ngkit: vocabularies, scanners, maths and
// process-wide helpers (the soft memory limit, opening files others may
// have prepared) that packages on every level share.
var leaves = []string{"pkg/vocab", "pkg/jsonscan", "pkg/memlimit", "pkg/safeopen", "pkg/suggest",
	"pkg/llm/throttle", "pkg/dialogue/internal/lex", "filters/stats/evalmath"}

// filterOf is the filter a package under filters/ belongs to: a filter
// split into packages by concern (filters/stats/evalmath) is still one.
func filterOf(rel string) string {
	name, _, _ := strings.Cut(strings.TrimPrefix(rel, "filters/"), "/")
	return name
}

// violations checks the rules on a package -> dependencies listing (the
// transitive, non-test dependencies of go list -deps) and returns one line
// per broken edge.
func violations(deps map[string][]string) []string {
	var out []string
	for pkg, ds := range deps {
		rel, ok := strings.CutPrefix(pkg, module)
		if !ok {
			continue
		}
		for _, d := range ds {
			drel, ok := strings.CutPrefix(d, module)
			if !ok || d == pkg {
				continue
			}
			switch {
			case strings.HasPrefix(rel, "filters/") && strings.HasPrefix(drel, "filters/") && filterOf(rel) != filterOf(drel):
				out = append(out, rel+" depends on "+drel+": no filter may import another (move the shared part to pkg/)")
			case strings.HasPrefix(rel, "pkg/") && (strings.HasPrefix(drel, "filters/") || strings.HasPrefix(drel, "cmd/")):
				out = append(out, rel+" depends on "+drel+": nothing in pkg/ may import filters/ or cmd/")
			case forbidden[rel][drel] != "":
				out = append(out, rel+" depends on "+drel+": "+forbidden[rel][drel])
			case slices.Contains(leaves, rel):
				out = append(out, rel+" depends on "+drel+": a leaf package depends on nothing of ngkit")
			}
		}
	}
	slices.Sort(out)
	return out
}

// programViolations checks the rules of the program framework on a
// package -> direct imports listing (imports) and the transitive listing
// (deps): cmd/internal/app imports no filters/ package itself (the
// wiring of filters is cmd/internal/cli's), does not depend on
// cmd/internal/cli, nor on the demo model (cmd/internal/demo, which each
// program's main hands it as Env.Demo), nor on a test fake
// (internal/fakeng) or any package whose name ends in "test".
func programViolations(imports, deps map[string][]string) []string {
	var out []string
	const app = module + "cmd/internal/app"
	for _, d := range imports[app] {
		if drel, ok := strings.CutPrefix(d, module); ok && strings.HasPrefix(drel, "filters/") {
			out = append(out, "cmd/internal/app imports "+drel+": the framework imports no filter (wire it in cmd/internal/cli)")
		}
	}
	for _, d := range deps[app] {
		drel, ok := strings.CutPrefix(d, module)
		switch {
		case d == module+"cmd/internal/cli":
			out = append(out, "cmd/internal/app depends on cmd/internal/cli: the framework does not know the programs")
		case d == module+"cmd/internal/demo":
			out = append(out, "cmd/internal/app depends on cmd/internal/demo: main hands the framework the demo model (Env.Demo)")
		case ok && testCode(drel):
			out = append(out, "cmd/internal/app depends on "+drel+": the framework links no test helper or test fake")
		}
	}
	slices.Sort(out)
	return out
}

// testCode tells an ngkit package (its path in the module) that only
// tests may link: a test helper (its name ends in "test") or the test
// fake of every stage (internal/fakeng; the demo's model is
// internal/canned).
func testCode(rel string) bool {
	return strings.HasSuffix(path.Base(rel), "test") || rel == "internal/fakeng"
}

// testingImporters are the packages of other modules that the programs
// link and that import the testing package in their non-test code, and
// why that is let be: the programs' own code never does.
var testingImporters = map[string]string{
	"github.com/apache/thrift/lib/go/thrift": "the Parquet reader's Thrift (via arrow-go) has TestLogger in logger.go",
}

// binaryViolations checks, on the package -> direct imports listing of
// every package the programs link (go list -deps), that they link no
// test code: no ngkit test helper or test fake, no net/http/httptest, and
// testing only through testingImporters.
func binaryViolations(imports map[string][]string) []string {
	var out []string
	for p, is := range imports {
		name, own := strings.CutPrefix(p, module)
		for _, i := range is {
			irel, iown := strings.CutPrefix(i, module)
			switch {
			case i == "net/http/httptest":
				out = append(out, name+" imports net/http/httptest: a program serves in-process with net/http (cmd/internal/demo)")
			case i == "testing" && own:
				out = append(out, name+" imports testing: only tests may")
			case i == "testing" && testingImporters[p] == "":
				out = append(out, name+" imports testing: a program links it only through testingImporters")
			case iown && testCode(irel):
				out = append(out, name+" imports "+irel+": a program links no test helper or test fake")
			}
		}
	}
	slices.Sort(out)
	return out
}

// goList is pkg -> the listing of template field (Imports or Deps) of the
// packages of the patterns; with the first pattern "-deps", of every
// package they depend on too.
func goList(t *testing.T, field string, patterns ...string) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-f", `{{.ImportPath}}{{range .` + field + `}} {{.}}{{end}}`}, patterns...)...)
	cmd.Dir = "../.."
	b, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	out := map[string][]string{}
	for line := range strings.SplitSeq(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(line)
		out[f[0]] = f[1:]
	}
	return out
}

func TestProgramRules(t *testing.T) {
	app := module + "cmd/internal/app"
	imports, deps := goList(t, "Imports", app), goList(t, "Deps", app)
	if len(imports[app]) == 0 || len(deps[app]) == 0 {
		t.Fatalf("go list listed nothing for %s", app)
	}
	for _, v := range programViolations(imports, deps) {
		t.Error(v)
	}
}

// The program rules catch what they are meant to, and only that.
func TestProgramViolations(t *testing.T) {
	app := module + "cmd/internal/app"
	got := programViolations(
		map[string][]string{app: {"fmt", module + "pkg/llm", module + "filters/imports", module + "cmd/internal/demo"}},
		map[string][]string{app: {module + "filters/v2r", module + "cmd/internal/demo", module + "cmd/internal/cli",
			module + "internal/fakeng", module + "pkg/llm/llmtest", module + "internal/canned", module + "internal/testkit", "internal/synctest"}})
	want := []string{
		"cmd/internal/app depends on cmd/internal/cli: the framework does not know the programs",
		"cmd/internal/app depends on cmd/internal/demo: main hands the framework the demo model (Env.Demo)",
		"cmd/internal/app depends on internal/fakeng: the framework links no test helper or test fake",
		"cmd/internal/app depends on pkg/llm/llmtest: the framework links no test helper or test fake",
		"cmd/internal/app imports filters/imports: the framework imports no filter (wire it in cmd/internal/cli)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// The programs (the multi-call ngkit and each alone) link no test code.
func TestProgramsLinkNoTestCode(t *testing.T) {
	imports := goList(t, "Imports", "-deps", module+"cmd/...")
	if len(imports[module+"cmd/ngkit"]) == 0 || len(imports["net/http"]) == 0 {
		t.Fatal("go list -deps listed nothing for cmd/ngkit")
	}
	for _, v := range binaryViolations(imports) {
		t.Error(v)
	}
	for p := range testingImporters {
		if !slices.Contains(imports[p], "testing") {
			t.Errorf("testingImporters names %s, which the programs do not link or which no longer imports testing: update it", p)
		}
	}
}

// The rule catches what it is meant to, and only that.
func TestBinaryViolations(t *testing.T) {
	got := binaryViolations(map[string][]string{
		module + "cmd/ngkit":                     {"fmt", module + "cmd/internal/demo", module + "cmd/internal/cli"},
		module + "cmd/internal/demo":             {"net/http", module + "internal/canned", module + "internal/canned/wire"},
		module + "internal/canned":               {module + "filters/seed/seedtest", module + "internal/fakeng"},
		module + "internal/canned/wire":          {"net/http/httptest", "testing"},
		"github.com/apache/thrift/lib/go/thrift": {"testing"},
		"example.com/other":                      {"testing"},
		"sync":                                   {"internal/synctest"},
	})
	want := []string{
		"example.com/other imports testing: a program links it only through testingImporters",
		"internal/canned imports filters/seed/seedtest: a program links no test helper or test fake",
		"internal/canned imports internal/fakeng: a program links no test helper or test fake",
		"internal/canned/wire imports net/http/httptest: a program serves in-process with net/http (cmd/internal/demo)",
		"internal/canned/wire imports testing: only tests may",
	}
	if !slices.Equal(got, want) {
		t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestDependencyRules(t *testing.T) {
	deps := goList(t, "Deps", module+"pkg/...", module+"filters/...")
	if len(deps) < 20 || len(deps[module+"filters/stats"]) == 0 {
		t.Fatalf("go list listed %d packages", len(deps))
	}
	for _, v := range violations(deps) {
		t.Error(v)
	}
	// a rule on a package that is gone (renamed, moved) would hold silently
	ruled := slices.Clone(leaves)
	for p, ds := range forbidden {
		ruled = append(ruled, p)
		for d := range ds {
			ruled = append(ruled, d)
		}
	}
	for _, p := range ruled {
		if _, ok := deps[module+p]; !ok {
			t.Errorf("the rules name %s, which go list does not list: update the rules", p)
		}
	}
}

// The rules catch what they are meant to, and only that.
func TestViolations(t *testing.T) {
	got := violations(map[string][]string{
		module + "filters/v2r":             {"fmt", module + "filters/stats", module + "pkg/audit"},
		module + "filters/label":           {module + "pkg/agree", module + "filters/label"},
		module + "filters/stats":           {module + "filters/stats/evalmath"},
		module + "filters/stats/pactstats": {module + "filters/stats/evalmath", module + "filters/sim"},
		module + "pkg/normbank":            {module + "pkg/lang"},
		module + "pkg/normbank/gen":        {module + "filters/imports"},
		module + "pkg/llm":                 {module + "cmd/internal/app"},
		module + "cmd/internal/cli":        {module + "filters/stats", module + "pkg/llm"},
		module + "internal/normbankgen":    {module + "filters/imports"},
		module + "pkg/llm/llmtest":         {module + "pkg/pipeline", module + "pkg/dialogue"},
		module + "pkg/persona":             {module + "pkg/record", module + "pkg/pipeline"},
		module + "pkg/vocab":               {"slices", module + "pkg/record"},
		module + "pkg/jsonscan":            {"bytes"},
		module + "pkg/dialogue":            {module + "pkg/vocab", module + "pkg/record"},
	})
	got = append(got, violations(map[string][]string{
		module + "pkg/llm": {module + "pkg/vocab", module + "pkg/dialogue", module + "pkg/pipeline"},
	})...)
	want := []string{
		"filters/stats/pactstats depends on filters/sim: no filter may import another (move the shared part to pkg/)",
		"filters/v2r depends on filters/stats: no filter may import another (move the shared part to pkg/)",
		"pkg/llm depends on cmd/internal/app: nothing in pkg/ may import filters/ or cmd/",
		"pkg/normbank/gen depends on filters/imports: nothing in pkg/ may import filters/ or cmd/",
		"pkg/persona depends on pkg/pipeline: persona's stage belongs in cmd/internal/app",
		"pkg/vocab depends on pkg/record: a leaf package depends on nothing of ngkit",
		"pkg/llm depends on pkg/dialogue: the client shares only the vocabulary (pkg/vocab) with the parser",
		"pkg/llm depends on pkg/pipeline: the client is called by stages, it is not one",
	}
	if !slices.Equal(got, want) {
		t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// testOnly are modules that only tests may use (go.mod lists them all
// alike), and why: no program may depend on them.
var testOnly = map[string]string{
	"k8s.io/":      "the Kubernetes API types check docs/scale.md's Jobs (cmd/internal/scaledoc's test)",
	"sigs.k8s.io/": "the Kubernetes YAML decoder checks docs/scale.md's Jobs (cmd/internal/scaledoc's test)",
}

// testOnlyViolations says which packages depend on a test-only module.
func testOnlyViolations(deps map[string][]string) []string {
	var out []string
	for p, ds := range deps {
		for _, d := range ds {
			for prefix, why := range testOnly {
				if strings.HasPrefix(d, prefix) {
					out = append(out, strings.TrimPrefix(p, module)+" depends on "+d+": only tests may, "+why)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// The programs (the multi-call ngkit and each alone) are built without
// the modules only tests use.
func TestTestOnlyModules(t *testing.T) {
	deps := goList(t, "Deps", module+"cmd/...")
	if len(deps[module+"cmd/ngkit"]) == 0 {
		t.Fatal("go list listed nothing for cmd/ngkit")
	}
	for _, v := range testOnlyViolations(deps) {
		t.Error(v)
	}
	got := testOnlyViolations(map[string][]string{module + "cmd/ngkit": {"fmt", "k8s.io/api/batch/v1"}, module + "pkg/x": {"k8s.io.example/y"}})
	if want := []string{"cmd/ngkit depends on k8s.io/api/batch/v1: only tests may, " + testOnly["k8s.io/"]}; !slices.Equal(got, want) {
		t.Errorf("violations %q, want %q", got, want)
	}
}
