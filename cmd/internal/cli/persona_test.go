package cli

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/filters/seed/seedtest"
	"github.com/ngkit/ngkit/filters/stats"
	"github.com/ngkit/ngkit/pkg/llm/llmtest"
	"github.com/ngkit/ngkit/pkg/record"
)

const personasYAML = `age: [20-29, 30-49, 50-64]
relationship: {colleagues: 2, friends: 1}
hierarchy: [junior, peer, senior]
`

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(f, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// ngseed --personas --vary: each adherence seed once per varied value,
// alike but for it, sharing variant_of; derived seeds share their parent's
// persona; the persona reaches the prompts; reruns give the same records.
func TestNgseedPersonasVary(t *testing.T) {
	srv := seedFake(t, &seedtest.Replier{}, llmtest.Options{})
	pf := writeFile(t, "personas.yaml", personasYAML)
	args := []string{"--culture", "korean", "--limit", "1", "--per-norm", "2", "--types", "adherence,violation",
		"--personas", pf, "--vary", "hierarchy=junior,senior", "--seed", "5"}
	code, out, stderr := seedRun(t, srv, nil, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	recs := readJSONL(t, out)
	if len(recs) != 2*2*2 { // scenarios x hierarchy values x types
		t.Fatalf("%d seeds, want 8", len(recs))
	}
	seedCheck(t, recs)
	byID := map[string]*record.Record{}
	groups := map[string][]*record.Record{}
	for _, r := range recs {
		byID[r.ID] = r
		if len(r.Persona) != 3 || r.VariantOf == "" || r.VariantOf == r.ID {
			t.Errorf("%s: persona %v, variant_of %q", r.ID, r.Persona, r.VariantOf)
		}
		groups[r.VariantOf] = append(groups[r.VariantOf], r)
	}
	if len(groups) != 4 {
		t.Fatalf("%d variant groups, want 4 (2 scenarios x 2 types)", len(groups))
	}
	for vo, g := range groups {
		if len(g) != 2 || g[0].Persona["hierarchy"] != "junior" || g[1].Persona["hierarchy"] != "senior" {
			t.Fatalf("group %s: %d variants %v", vo, len(g), g[0].Persona)
		}
		a, b := maps.Clone(g[0].Persona), maps.Clone(g[1].Persona)
		delete(a, "hierarchy")
		delete(b, "hierarchy")
		if !maps.Equal(a, b) || g[0].DialogueType != g[1].DialogueType || g[0].NormID != g[1].NormID {
			t.Errorf("group %s: variants differ beyond hierarchy: %v %v", vo, g[0].Persona, g[1].Persona)
		}
		if g[0].DialogueType == record.TypeAdherence && g[0].Scenario != g[1].Scenario {
			t.Errorf("group %s: adherence variants of different scenarios", vo)
		}
	}
	for _, r := range recs {
		if r.DialogueType == record.TypeViolation {
			p := byID[r.ParentID]
			if p == nil || !maps.Equal(p.Persona, r.Persona) {
				t.Errorf("%s: parent %s not written or another persona", r.ID, r.ParentID)
			}
		}
	}
	// The persona is in the situation and violation prompts.
	seen := map[string]int{}
	for _, q := range srv.Requests() {
		u := q.Request.LastUser()
		for _, h := range []string{"hierarchy: junior", "hierarchy: senior"} {
			if strings.Contains(u, h) {
				seen[h]++
			}
		}
	}
	if seen["hierarchy: junior"] < 4 || seen["hierarchy: senior"] < 4 {
		t.Errorf("persona in the prompts: %v, want each in 2 situation + 2 violation prompts", seen)
	}
	// The same flags give the same records (ids, personas).
	if code, again, stderr := seedRun(t, srv, nil, args...); code != 0 || !sameIDsPersonas(readJSONL(t, again), recs) {
		t.Errorf("rerun: exit %d %s: other ids or personas", code, stderr)
	}

	// Without --vary the ids are those of a run without personas.
	plainArgs := []string{"--culture", "korean", "--limit", "1", "--per-norm", "2"}
	_, plain, _ := seedRun(t, srv, nil, plainArgs...)
	_, withP, stderr := seedRun(t, srv, nil, append(plainArgs, "--personas", pf)...)
	p, w := readJSONL(t, plain), readJSONL(t, withP)
	if len(p) != 2 || len(w) != 2 {
		t.Fatalf("%d and %d seeds: %s", len(p), len(w), stderr)
	}
	for i := range p {
		if p[i].ID != w[i].ID || p[i].Persona != nil || len(w[i].Persona) != 3 || w[i].VariantOf != "" {
			t.Errorf("seed %d: %s %v / %s %v %q", i, p[i].ID, p[i].Persona, w[i].ID, w[i].Persona, w[i].VariantOf)
		}
	}
}

func sameIDsPersonas(a, b []*record.Record) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].ID != b[i].ID || a[i].VariantOf != b[i].VariantOf || !maps.Equal(a[i].Persona, b[i].Persona) {
			return false
		}
	}
	return true
}

// ngstats --by: counts and every table per value of the attribute, records
// without it as (none), in JSON, text and Markdown.
func TestNgstatsByPersona(t *testing.T) {
	turns := func(texts ...string) []record.Turn {
		var ts []record.Turn
		for i, x := range texts {
			ts = append(ts, record.Turn{Index: i, Speaker: []string{"Anna", "Ben"}[i%2], Text: x})
		}
		return ts
	}
	recs := []record.Record{
		{ID: "a", Culture: "american", Lang: "en", DialogueType: "adherence", Persona: map[string]string{"age": "young", "gender": "f"},
			Turns: turns("Thank you so much for the lovely dinner tonight.", "You are very welcome, it was a pleasure.")},
		{ID: "b", Culture: "american", Lang: "en", DialogueType: "violation", Persona: map[string]string{"age": "young", "gender": "m"},
			Turns: turns("Could you pass me the salt, please?", "Sure, here you go.", "Thanks a lot, that is kind of you.")},
		{ID: "c", Culture: "american", Lang: "en", DialogueType: "adherence", Persona: map[string]string{"age": "young"},
			Checks: &record.Checks{Defects: []string{record.DefectFailedGeneration}}},
		{ID: "d", Culture: "american", Lang: "en", DialogueType: "v2r", Persona: map[string]string{"age": "old", "gender": "f"},
			Turns: turns("I am sorry I missed your call yesterday evening.", "No problem at all, we can talk now.")},
		{ID: "e", Culture: "american", Lang: "en", DialogueType: "adherence",
			Turns: turns("Good morning, how are you doing today?", "Very well, thank you for asking.")},
	}
	var in strings.Builder
	for i := range recs {
		b, _ := recs[i].MarshalJSON()
		in.Write(append(b, '\n'))
	}
	code, out, stderr := run(t, Ngstats, in.String(), "--by", "age", "--by", "gender", "--json", "--min-turns", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r stats.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	type want struct {
		records, dialogues, turns, defects int64
		types                              string
	}
	wants := map[[2]string]want{
		{"age", "old"}:   {1, 1, 2, 0, "v2r"},
		{"age", "young"}: {3, 2, 5, 1, "adherence,violation"},
		{"age", ""}:      {1, 1, 2, 0, "adherence"},
		{"gender", "f"}:  {2, 2, 4, 0, "adherence,v2r"},
		{"gender", "m"}:  {1, 1, 3, 0, "violation"},
		{"gender", ""}:   {2, 1, 2, 1, "adherence"},
	}
	order := []string{"age=old", "age=young", "age=", "gender=f", "gender=m", "gender="}
	if len(r.ByPersona) != len(order) {
		t.Fatalf("%d groups, want %d", len(r.ByPersona), len(order))
	}
	for i, g := range r.ByPersona {
		if g.Attr+"="+g.Value != order[i] {
			t.Errorf("group %d is %s=%s, want %s", i, g.Attr, g.Value, order[i])
		}
		w := wants[[2]string{g.Attr, g.Value}]
		var types []string
		for _, c := range g.Report.Counts.ByType {
			types = append(types, c.Key)
		}
		got := want{g.Report.Records, g.Report.Dialogues, g.Report.Turns, g.Report.RecordsWithDefects, strings.Join(types, ",")}
		if got != w {
			t.Errorf("%s=%s: %+v, want %+v", g.Attr, g.Value, got, w)
		}
	}
	young := r.ByPersona[1].Report
	if young.TurnsPerDialogue.Mean != 2.5 || young.TurnsPerDialogue.Max != 3 || len(young.Defects) != 1 || young.Defects[0].Name != record.DefectFailedGeneration {
		t.Errorf("age=young: turns %+v, defects %+v", young.TurnsPerDialogue, young.Defects)
	}
	if r.Records != 5 || r.ByPersona[0].Report.ByPersona != nil {
		t.Errorf("main report: %d records; groups nest: %v", r.Records, r.ByPersona[0].Report.ByPersona != nil)
	}

	code, text, stderr := run(t, Ngstats, in.String(), "--by", "age", "--min-turns", "2")
	if code != 0 {
		t.Fatalf("text: exit %d: %s", code, stderr)
	}
	for _, s := range []string{"By persona age\nage     records   share  dialogues  turns  with defects\nold           1  20.00%          1      2             0\nyoung         3  60.00%          2      5             1\n(none)        1  20.00%          1      2             0\n",
		"persona age=young: Totals\n", "persona age=(none): Dialogues\n"} {
		if !strings.Contains(text, s) {
			t.Errorf("text report lacks %q:\n%s", s, text)
		}
	}
	if strings.Contains(text, "gender") {
		t.Error("text report shows an attribute not asked for")
	}
	code, md, _ := run(t, Ngstats, in.String(), "--by", "age", "--markdown")
	if code != 0 || !strings.Contains(md, "## By persona age\n\n| age | records | share |") || !strings.Contains(md, "## persona age=old: Totals") {
		t.Errorf("markdown: exit %d\n%s", code, md)
	}
	// Without --by the report is as before: no by_persona key.
	_, plain, _ := run(t, Ngstats, in.String(), "--json")
	if strings.Contains(plain, "by_persona") {
		t.Error("by_persona without --by")
	}
}
