package cli

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/filters/refine/refinetest"
	"github.com/ngkit/ngkit/internal/testkit"
	"github.com/ngkit/ngkit/pkg/llm/llmtest"
	"github.com/ngkit/ngkit/pkg/record"
)

// ngv2r --personas --vary on seeds: each seed becomes one dialogue per
// varied value; the variants' seeds have their own ids, so the dialogues
// do; they share variant_of (the seed's id); a persona the seed already
// has is kept and only the varied attribute set; a seed without one gets
// one from the file; the persona reaches the prompt; reruns give the same
// ids; --vary with --resume is refused.
func TestNgv2rPersonasVary(t *testing.T) {
	seeds, replies := v2rSeeds(t, record.TypeAdherence, 1, false)
	seeds[0].Persona = map[string]string{"hierarchy": "senior", "setting": "office"}
	srv := v2rServer(t, replies, llmtest.Options{})
	pf := writeFile(t, "personas.yaml", personasYAML)
	args := []string{"--base-url", srv.URL, "--model", "fake", "--no-cache", "--backoff", "1ms",
		"--personas", pf, "--vary", "gender=female,male", "--seed", "3"}
	code, out, stderr := run(t, Ngv2r, testkit.JSONL(t, seeds), args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	recs := readJSONL(t, out)
	if len(recs) != 2*len(seeds) {
		t.Fatalf("%d dialogues for %d seeds x 2 genders", len(recs), len(seeds))
	}
	ids := map[string]bool{}
	for i, r := range recs {
		s := seeds[i/2]
		gender := []string{"female", "male"}[i%2]
		if r.VariantOf != s.ID || r.ParentID == s.ID || r.ID != record.NewID(r.ParentID, "dialogue") || ids[r.ID] || len(r.Turns) < 5 {
			t.Errorf("dialogue %d: id %s parent %s variant_of %s (seed %s)", i, r.ID, r.ParentID, r.VariantOf, s.ID)
		}
		ids[r.ID] = true
		if r.Persona["gender"] != gender {
			t.Errorf("dialogue %d: persona %v, want gender %s", i, r.Persona, gender)
		}
		if i < 2 {
			if want := map[string]string{"hierarchy": "senior", "setting": "office", "gender": gender}; !maps.Equal(r.Persona, want) {
				t.Errorf("dialogue %d: persona %v, want the seed's own plus gender: %v", i, r.Persona, want)
			}
		} else if len(r.Persona) != 4 {
			t.Errorf("dialogue %d: persona %v, want the file's 3 attributes and gender", i, r.Persona)
		}
		if i%2 == 1 {
			a, b := maps.Clone(recs[i-1].Persona), maps.Clone(r.Persona)
			delete(a, "gender")
			delete(b, "gender")
			if !maps.Equal(a, b) {
				t.Errorf("variants %d and %d differ beyond gender: %v %v", i-1, i, recs[i-1].Persona, r.Persona)
			}
		}
	}
	seen := map[string]int{}
	for _, q := range srv.Requests() {
		for _, g := range []string{"gender: female", "gender: male"} {
			if strings.Contains(q.Request.LastUser(), g) {
				seen[g]++
			}
		}
	}
	if seen["gender: female"] != len(seeds) || seen["gender: male"] != len(seeds) {
		t.Errorf("persona in the prompts: %v, want %d each", seen, len(seeds))
	}
	if code, again, stderr := run(t, Ngv2r, testkit.JSONL(t, seeds), args...); code != 0 || !sameIDsPersonas(readJSONL(t, again), recs) {
		t.Errorf("rerun: exit %d %s: other ids or personas", code, stderr)
	}

	o := filepath.Join(t.TempDir(), "out.jsonl")
	n := srv.Count()
	code, _, stderr = run(t, Ngv2r, testkit.JSONL(t, seeds), append(args, "-o", o, "--resume")...)
	if code != 2 || !strings.Contains(stderr, "--vary with --resume") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || srv.Count() != n {
		t.Errorf("--vary --resume: exit %d, %d calls, stderr %q", code, srv.Count()-n, stderr)
	}
	if _, err := os.Stat(o); err == nil {
		t.Error("--vary --resume wrote the output")
	}
}

// ngrefine --personas: seeds keep their ids and get a persona (a derived
// seed its parent's), which is in the judge's prompt; --vary refines each
// variant.
func TestNgrefinePersonas(t *testing.T) {
	seeds, pool := refineSeeds(t, 1)
	model := refinetest.New()
	for _, s := range seeds {
		model.Add(refineScript(t, pool, s, [3]int{5, 5}))
	}
	// A derived seed without a script of its own: the parent's scenario
	// is scripted (it is a violation seed of the same scenario).
	child := *seeds[0]
	child.ID, child.ParentID, child.DialogueType = "child", seeds[0].ID, record.TypeViolation
	in := append(seeds, &child)
	srv := llmtest.New(llmtest.Options{Reply: model.Reply})
	defer srv.Close()
	pf := writeFile(t, "personas.yaml", personasYAML)
	code, out, stderr := refineRun(t, srv, testkit.JSONL(t, in), "--personas", pf, "--seed", "9")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	recs := readJSONL(t, out)
	if len(recs) != len(in) {
		t.Fatalf("%d records for %d seeds", len(recs), len(in))
	}
	for i, r := range recs {
		if r.ID != in[i].ID || len(r.Persona) != 3 || r.VariantOf != "" || r.Refinement == nil {
			t.Errorf("seed %d: id %s persona %v variant_of %q", i, r.ID, r.Persona, r.VariantOf)
		}
	}
	if !maps.Equal(recs[len(recs)-1].Persona, recs[0].Persona) {
		t.Errorf("derived seed's persona %v, its parent's %v", recs[len(recs)-1].Persona, recs[0].Persona)
	}
	for _, q := range srv.Requests() {
		if !strings.Contains(q.Request.LastUser(), "Who is talking") && !strings.Contains(q.Request.LastUser(), "말하는 사람") {
			t.Errorf("a judge prompt without the persona: %.300s", q.Request.LastUser())
			break
		}
	}

	code, out, stderr = refineRun(t, srv, testkit.JSONL(t, seeds), "--vary", "hierarchy=junior,senior")
	if code != 0 {
		t.Fatalf("--vary: exit %d: %s", code, stderr)
	}
	recs = readJSONL(t, out)
	if len(recs) != 2*len(seeds) {
		t.Fatalf("--vary: %d records for %d seeds x 2", len(recs), len(seeds))
	}
	for i, r := range recs {
		if r.VariantOf != seeds[i/2].ID || r.ID == seeds[i/2].ID || r.Persona["hierarchy"] != []string{"junior", "senior"}[i%2] || len(r.Persona) != 1 {
			t.Errorf("--vary record %d: id %s variant_of %s persona %v", i, r.ID, r.VariantOf, r.Persona)
		}
	}
}
