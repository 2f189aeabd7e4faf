package persona

import (
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/pkg/record"
)

const goodFile = `# who is talking
age: [18-29, 30-49, 50-64, 65+]
gender: {female: 1, male: 1}
hierarchy:
  junior: 3
  peer: 1
`

func mustParse(t testing.TB, src string) *Set {
	t.Helper()
	s, err := Parse("p.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestParse(t *testing.T) {
	s := mustParse(t, goodFile)
	got := fmt.Sprint(s.Attrs)
	want := "[{age [{18-29 1} {30-49 1} {50-64 1} {65+ 1}]} {gender [{female 1} {male 1}]} {hierarchy [{junior 3} {peer 1}]}]"
	if got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}

// TestSampleDeterministic: the persona is a function of seed and id only.
func TestSampleDeterministic(t *testing.T) {
	set := mustParse(t, goodFile)
	a, _ := NewSampler(set, nil, 7)
	b, _ := NewSampler(mustParse(t, goodFile), nil, 7)
	other, _ := NewSampler(set, nil, 8)
	differ := 0
	for i := range 200 {
		id := fmt.Sprintf("id-%d", i)
		p := a.Sample(id)
		if !maps.Equal(p, b.Sample(id)) || !maps.Equal(p, a.Sample(id)) {
			t.Fatalf("%s: persona changed between calls: %v, %v", id, p, b.Sample(id))
		}
		if !maps.Equal(p, other.Sample(id)) {
			differ++
		}
	}
	if differ < 100 {
		t.Errorf("another --seed changed only %d of 200 personas", differ)
	}
}

// TestSampleShares: over many ids each value's share is its weight's.
func TestSampleShares(t *testing.T) {
	s, _ := NewSampler(mustParse(t, goodFile), nil, 1)
	const n = 40000
	counts := map[string]map[string]int{}
	for i := range n {
		for k, v := range s.Sample(record.NewID("seed", fmt.Sprint(i))) {
			if counts[k] == nil {
				counts[k] = map[string]int{}
			}
			counts[k][v]++
		}
	}
	want := map[string]map[string]float64{
		"age":       {"18-29": .25, "30-49": .25, "50-64": .25, "65+": .25},
		"gender":    {"female": .5, "male": .5},
		"hierarchy": {"junior": .75, "peer": .25},
	}
	for attr, vals := range want {
		for v, share := range vals {
			got := float64(counts[attr][v]) / n
			sd := math.Sqrt(share * (1 - share) / n)
			if math.Abs(got-share) > 4*sd {
				t.Errorf("%s=%s: share %.4f, want %.2f ± %.4f", attr, v, got, share, 4*sd)
			}
		}
	}
	// Attributes are drawn independently: age does not follow hierarchy.
	both := 0
	for i := range n {
		p := s.Sample(record.NewID("seed", fmt.Sprint(i)))
		if p["hierarchy"] == "junior" && p["age"] == "18-29" {
			both++
		}
	}
	if got := float64(both) / n; math.Abs(got-.75*.25) > 0.01 {
		t.Errorf("junior and 18-29 together: %.4f, want %.4f", got, .75*.25)
	}
}

func TestVary(t *testing.T) {
	set := mustParse(t, goodFile)
	v1, _ := ParseVary("age=20s, 60s")
	v2, _ := ParseVary("gender=female,male,nonbinary")
	s, err := NewSampler(set, []Vary{v1, v2}, 3)
	if err != nil {
		t.Fatal(err)
	}
	in := &record.Record{ID: "seed-1", Scenario: "At dinner.", Gen: []record.Gen{{Stage: "ngseed"}}}
	out := s.Apply(in)
	if len(out) != 6 {
		t.Fatalf("%d variants, want 2 x 3", len(out))
	}
	base := s.Sample("seed-1")
	ids := map[string]bool{}
	for _, r := range out {
		if r.VariantOf != "seed-1" || r.Scenario != in.Scenario || len(r.Gen) != 1 {
			t.Errorf("variant %s: variant_of %q, scenario %q, gen %v", r.ID, r.VariantOf, r.Scenario, r.Gen)
		}
		if r.ID == "seed-1" || ids[r.ID] {
			t.Errorf("variant id %s reused", r.ID)
		}
		ids[r.ID] = true
		// The unvaried attributes are the sampled ones.
		if r.Persona["hierarchy"] != base["hierarchy"] {
			t.Errorf("%s: hierarchy %q, want the sampled %q", r.ID, r.Persona["hierarchy"], base["hierarchy"])
		}
	}
	// Every combination, once, in flag and value order.
	var combos []string
	for _, r := range out {
		combos = append(combos, r.Persona["age"]+"/"+r.Persona["gender"])
	}
	if got := strings.Join(combos, " "); got != "20s/female 20s/male 20s/nonbinary 60s/female 60s/male 60s/nonbinary" {
		t.Errorf("combinations %s", got)
	}
	// Two variants one value apart differ in that attribute only.
	if diff := differing(out[0].Persona, out[1].Persona); diff != "gender" {
		t.Errorf("variants 0 and 1 differ in %q, want gender", diff)
	}
	if diff := differing(out[0].Persona, out[3].Persona); diff != "age" {
		t.Errorf("variants 0 and 3 differ in %q, want age", diff)
	}
	// Variant ids are a function of the base id and the varied values.
	again := s.Apply(&record.Record{ID: "seed-1"})
	for i := range out {
		if again[i].ID != out[i].ID {
			t.Errorf("variant %d: id %s then %s", i, out[i].ID, again[i].ID)
		}
	}
	// Changing one variant does not touch another.
	out[0].Gen[0].Stage = "changed"
	out[0].Persona["hierarchy"] = "changed"
	if out[1].Gen[0].Stage != "ngseed" || out[1].Persona["hierarchy"] == "changed" || in.Gen[0].Stage != "ngseed" {
		t.Error("variants share gen or persona")
	}
}

func differing(a, b map[string]string) string {
	var d []string
	for k := range a {
		if a[k] != b[k] {
			d = append(d, k)
		}
	}
	return strings.Join(d, ",")
}

// TestVaryKeepsGivenPersona: a record that came with a persona keeps it;
// --vary overrides only the varied attribute.
func TestVaryKeepsGivenPersona(t *testing.T) {
	v, _ := ParseVary("age=20s,60s")
	s, _ := NewSampler(mustParse(t, goodFile), []Vary{v}, 1)
	in := &record.Record{ID: "x", Persona: map[string]string{"age": "30s", "setting": "office"}}
	out := s.Apply(in)
	if len(out) != 2 || out[0].Persona["setting"] != "office" || out[0].Persona["age"] != "20s" || out[1].Persona["age"] != "60s" {
		t.Errorf("got %v, %v", out[0].Persona, out[1].Persona)
	}
	if _, ok := out[0].Persona["gender"]; ok {
		t.Error("a given persona was resampled")
	}
	one, _ := NewSampler(mustParse(t, goodFile), nil, 1)
	got := one.Apply(&record.Record{ID: "y"})
	if len(got) != 1 || got[0].ID != "y" || got[0].VariantOf != "" || len(got[0].Persona) != 3 {
		t.Errorf("without --vary: %+v", got[0])
	}
	var none *Sampler
	if r := none.Apply(&record.Record{ID: "z"}); len(r) != 1 || r[0].Persona != nil {
		t.Errorf("nil sampler: %+v", r[0])
	}
}

func TestParseVaryErrors(t *testing.T) {
	for _, bad := range []string{"age", "=a,b", "age=", "age=a,,b", "age=a,a"} {
		if _, err := ParseVary(bad); err == nil || !strings.Contains(err.Error(), "--vary") {
			t.Errorf("ParseVary(%q): %v", bad, err)
		}
	}
	a, _ := ParseVary("age=a,b")
	if _, err := NewSampler(nil, []Vary{a, a}, 0); err == nil {
		t.Error("the same attribute varied twice: no error")
	}
}

// TestBadFiles: every problem is one line naming the file and its line.
func TestBadFiles(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"", "p.yaml:line 1: empty personas file"},
		{"- age\n- gender\n", "p.yaml:line 1: want a map of attribute"},
		{"age: [a, b]\ngender: female\n", `p.yaml:line 2: attribute gender: want a list of values or a map of value to weight, got "female"`},
		{"age: [a, b]\nage: [c]\n", `p.yaml:line 2: attribute "age" given twice`},
		{"age:\n  - a\n  - b\n  - a\n", `p.yaml:line 4: attribute age: value "a" given twice`},
		{"age: []\n", "p.yaml:line 1: attribute age: no value"},
		{"age: {}\n", "p.yaml:line 1: attribute age: no value"},
		{"age:\n  young: 2\n  old: -1\n", `p.yaml:line 3: attribute age, value old: weight "-1": want a number > 0`},
		{"age:\n  young: 0\n", `p.yaml:line 2: attribute age, value young: weight "0"`},
		{"age:\n  young: many\n", `p.yaml:line 2: attribute age, value young: weight "many"`},
		{"age:\n  young: .nan\n", `p.yaml:line 2: attribute age, value young: weight ".nan"`},
		{"age:\n  young: [1]\n", `p.yaml:line 2: attribute age, value young: weight: want a number > 0, got a list`},
		{"age: [a, [b]]\n", "p.yaml:line 1: value of age: want a plain word, got a list"},
		{"age: [a, '']\n", "p.yaml:line 1: value of age is empty"},
		{"age: ['a,b']\n", `p.yaml:line 1: value of age "a,b": must not hold ","`},
		{"a=b: [x]\n", `p.yaml:line 1: attribute name "a=b": must not hold "=,"`},
		{"ok: [x]\n? [1, 2]\n: [y]\n", "p.yaml:line 2: attribute name: want a plain word, got a list"},
		{"age: [a, b\ngender: [c]\n", "p.yaml:line 1: did not find expected ',' or ']'"}, // where the [ opened
		{"age: x: y\n", "p.yaml:line 1: mapping values are not allowed"},
		{"age: [a]\ngender: x: y\n", "p.yaml:line 2: mapping values are not allowed"},
	} {
		_, err := Parse("p.yaml", []byte(c.src))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error %v, want one line starting %q", c.src, err, c.want)
		}
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.yaml")); err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Errorf("missing file: %v", err)
	}
}

func TestLoad(t *testing.T) {
	f := filepath.Join(t.TempDir(), "personas.yaml")
	os.WriteFile(f, []byte(goodFile), 0o644)
	s, err := Load(f)
	if err != nil || len(s.Attrs) != 3 {
		t.Fatalf("Load: %v, %v", s, err)
	}
}

func TestLines(t *testing.T) {
	got := Lines(map[string]string{"relationship": "friends", "age_band": "30-49"})
	if strings.Join(got, "; ") != "age band: 30-49; relationship: friends" {
		t.Errorf("Lines: %q", got)
	}
	if Lines(nil) != nil {
		t.Error("Lines(nil) not empty")
	}
}

// FuzzParse keeps Parse's invariant (see Parse): no panic; a Set or an
// error, never both; every error one line that names the file; a Set
// valid, and sampling from it gives one of its values per attribute.
func FuzzParse(f *testing.F) {
	for _, s := range []string{goodFile, "", "age: [a, b]\nage: [c]\n", "a: {x: 1e308, y: 1e308}\n",
		"a: &v [x]\nb: *v\n", "<<: {a: [x]}\n", "a: !!binary aGVsbG8=\n", "a: [x, y]\n---\nb: [z]\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		set, err := Parse("f.yaml", b)
		if (set == nil) == (err == nil) {
			t.Fatalf("set %v and error %v", set, err)
		}
		if err != nil {
			msg := err.Error()
			if !strings.HasPrefix(msg, "f.yaml:line ") || strings.Contains(msg, "\n") {
				t.Fatalf("error %q: not one line naming the file", msg)
			}
			return
		}
		if len(set.Attrs) == 0 {
			t.Fatal("a set without attributes")
		}
		names := map[string]bool{}
		for _, a := range set.Attrs {
			if a.Name == "" || strings.ContainsAny(a.Name, "=,\n") || names[a.Name] || len(a.Values) == 0 {
				t.Fatalf("bad attribute %+v", a)
			}
			names[a.Name] = true
			vals := map[string]bool{}
			for _, v := range a.Values {
				if v.Name == "" || strings.ContainsAny(v.Name, ",\n") || vals[v.Name] || !(v.Weight > 0) || math.IsInf(v.Weight, 0) {
					t.Fatalf("attribute %s: bad value %+v", a.Name, v)
				}
				vals[v.Name] = true
			}
		}
		s, _ := NewSampler(set, nil, 1)
		p := s.Sample("x")
		for _, a := range set.Attrs {
			found := false
			for _, v := range a.Values {
				found = found || v.Name == p[a.Name]
			}
			if !found {
				t.Fatalf("sampled %s=%q, not a value", a.Name, p[a.Name])
			}
		}
	})
}
