package seed

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/internal/golden"

	"github.com/ngkit/ngkit/filters/seed/seedtest"
	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/prompt"
	"github.com/ngkit/ngkit/pkg/record"
)

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
		golden.Check(t, filepath.Join("..", "..", "testdata", "prompts", "seed", culture+".golden"), b.String())
	}
}
