package seed

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/filters/seed/seedtest"
	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/prompt"
	"github.com/ngkit/ngkit/pkg/record"
)

var update = flag.Bool("update", false, "rewrite the golden prompts in testdata/prompts/seed")

// The prompts as sent, per culture: every task, and the scenarios call
// that asks for replacements. A change to a template, a profile or the
// prompt data shows here.
func TestGoldenPrompts(t *testing.T) {
	pack := prompt.Builtin()
	pool, err := seedtest.Load("")
	if err != nil {
		t.Fatal(err)
	}
	for _, culture := range normbank.NormCultures() {
		c, err := normbank.BuiltinProfile(culture)
		if err != nil {
			t.Fatal(err)
		}
		norm := normbank.Norms(culture, []string{"apology"})[0]
		pairs := pool.Pairs(culture, "apology", record.TypeAdherence)
		var b strings.Builder
		render := func(title, task string, d promptData) {
			p, err := pack.Render("seed", task, culture, d)
			if err != nil {
				t.Fatalf("%s %s: %v", culture, task, err)
			}
			fmt.Fprintf(&b, "===== %s: system\n%s\n===== %s: user\n%s\n", title, p.System, title, p.User)
		}
		d := newPromptData(norm, c)
		d.Count = DefaultPerNorm
		render("scenarios", "scenarios", d)
		d.Count, d.Have = 2, []string{pairs[0].Scenario, pairs[1].Scenario}
		render("scenarios (replacements)", "scenarios", d)
		d = newPromptData(norm, c)
		d.Scenario = pairs[0].Scenario
		render("situation", "situation", d)
		d.Situation = pairs[0].Situation
		for _, typ := range []string{record.TypeViolation, record.TypeV2R} {
			d.Type = typ
			render(typ, typ, d)
		}
		golden(t, filepath.Join("..", "..", "testdata", "prompts", "seed", culture+".golden"), b.String())
	}
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./filters/seed -run TestGoldenPrompts -update)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the rendered prompts (run with -update after checking the change):\n%s", path, firstDiff(string(want), got))
	}
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d:\n- %s\n+ %s", i+1, x, y)
		}
	}
	return ""
}
