package v2r

import (
	"strings"
	"testing"

	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/prompt"
	"github.com/ngkit/ngkit/pkg/record"
)

// The seed's persona reaches the dialogue prompt, in English and Korean
// packs; without one the prompt has no persona line.
func TestPromptPersona(t *testing.T) {
	for _, culture := range []string{"american", "korean"} {
		c, err := normbank.BuiltinProfile(culture)
		if err != nil {
			t.Fatal(err)
		}
		rec := &record.Record{ID: "s1", Culture: culture, DialogueType: record.TypeAdherence, Norm: "Thank people.",
			Scenario: "A dinner.", Situation: "Two colleagues at dinner.", Persona: map[string]string{"age": "50-64", "hierarchy": "senior"}}
		p, err := prompt.Builtin().Render("v2r", "dialogue", culture, promptData(rec, c, c.Lang, Rules{MinTurns: 5, MaxTurns: 15}, false))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(p.User, "age: 50-64; hierarchy: senior") {
			t.Errorf("%s: no persona in the prompt:\n%s", culture, p.User)
		}
		rec.Persona = nil
		q, _ := prompt.Builtin().Render("v2r", "dialogue", culture, promptData(rec, c, c.Lang, Rules{MinTurns: 5, MaxTurns: 15}, false))
		if strings.Contains(q.User, "hierarchy") || strings.Contains(q.User, "Who is talking") || strings.Contains(q.User, "말하는 사람 (") {
			t.Errorf("%s: a persona line without a persona:\n%s", culture, q.User)
		}
	}
}
