// Package layout holds the test of the repository's dependency rules
// (DEVELOPING.md, Layout): no package under filters/ depends on another filters/
// package, and nothing in pkg/ depends on filters/ or cmd/. Shared code
// belongs in pkg/.
package layout

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/ngkit/ngkit/"

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
			case strings.HasPrefix(rel, "filters/") && strings.HasPrefix(drel, "filters/"):
				out = append(out, rel+" depends on "+drel+": no filter may import another (move the shared part to pkg/)")
			case strings.HasPrefix(rel, "pkg/") && (strings.HasPrefix(drel, "filters/") || strings.HasPrefix(drel, "cmd/")):
				out = append(out, rel+" depends on "+drel+": nothing in pkg/ may import filters/ or cmd/")
			}
		}
	}
	slices.Sort(out)
	return out
}

func TestDependencyRules(t *testing.T) {
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`, module+"pkg/...", module+"filters/...")
	cmd.Dir = "../.."
	b, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	deps := map[string][]string{}
	for line := range strings.SplitSeq(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(line)
		deps[f[0]] = f[1:]
	}
	if len(deps) < 20 || len(deps[module+"filters/stats"]) == 0 {
		t.Fatalf("go list listed %d packages: %q", len(deps), b)
	}
	for _, v := range violations(deps) {
		t.Error(v)
	}
}

// The rules catch what they are meant to, and only that.
func TestViolations(t *testing.T) {
	got := violations(map[string][]string{
		module + "filters/v2r":          {"fmt", module + "filters/stats", module + "pkg/audit"},
		module + "filters/label":        {module + "pkg/agree", module + "filters/label"},
		module + "pkg/normbank":         {module + "pkg/lang"},
		module + "pkg/normbank/gen":     {module + "filters/imports"},
		module + "pkg/llm":              {module + "cmd/internal/app"},
		module + "cmd/internal/cli":     {module + "filters/stats", module + "pkg/llm"},
		module + "internal/normbankgen": {module + "filters/imports"},
	})
	want := []string{
		"filters/v2r depends on filters/stats: no filter may import another (move the shared part to pkg/)",
		"pkg/llm depends on cmd/internal/app: nothing in pkg/ may import filters/ or cmd/",
		"pkg/normbank/gen depends on filters/imports: nothing in pkg/ may import filters/ or cmd/",
	}
	if !slices.Equal(got, want) {
		t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
