package refine

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/filters/imports"
	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/record"
)

var updateFixture = flag.Bool("update-fixture", false, "rebuild testdata/refine/release.jsonl from the NormGenesis release ($NG_RELEASE_DIR or ../shared/data/normgenesis)")

const fixturePath = "../../testdata/refine/release.jsonl"

// Fixture kinds (the "fixture" field of testdata/refine/release.jsonl).
const (
	kindClean  = "clean"  // passes the exemplar audit: a seed as ngseed should write it, or a rewrite
	kindFlawed = "flawed" // breaks it (wrong language, situation too long): must be rewritten
)

// buildFixture picks release records for the tests, by a fixed rule, so
// that the fake model's rewrites are real Korean, Chinese and English
// text: for each culture, category and dialogue type, the 2 records with
// the smallest record.Unit(id) among those that pass the exemplar audit,
// are not built-in exemplars and have distinct norms; and for each
// culture, the 2 smallest that fail the audit only because the scenario
// or the situation is in English, and the 2 smallest that fail it only on the
// situation's length (6-7 sentences).
func buildFixture(dir string) ([]byte, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*_*.json"))
	if err != nil || len(names) == 0 {
		return nil, errors.Join(err, errors.New(dir+": no release files"))
	}
	sort.Strings(names)
	src, err := imports.NewNormGenesis(names, imports.NormGenesisOptions{})
	if err != nil {
		return nil, err
	}
	defer src.Close()
	isExemplar := map[string]bool{}
	for _, e := range normbank.BuiltinExemplars() {
		isExemplar[e.ID] = true
	}
	type cand struct {
		rec  *record.Record
		unit float64
	}
	clean := map[string][]cand{}
	flawed := map[string][]cand{} // culture + "/lang" or "/length"
	for {
		it, err := src.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		rec, err := it.Decode(it.Raw)
		if err != nil {
			return nil, err
		}
		if isExemplar[rec.ID] || rec.Scenario == "" || rec.Situation == "" {
			continue
		}
		cu, err := normbank.BuiltinProfile(rec.Culture)
		if err != nil {
			return nil, err
		}
		det, err := detectorFor(cu.ScenarioLang)
		if err != nil {
			return nil, err
		}
		e := normbank.Exemplar{Culture: rec.Culture, Scenario: rec.Scenario, Situation: rec.Situation}
		probs := normbank.AuditExemplar(&e, cu, det)
		c := cand{seedOf(rec), record.Unit(rec.ID)}
		switch {
		case len(probs) == 0:
			k := rec.Culture + "/" + rec.Category + "/" + rec.DialogueType
			clean[k] = append(clean[k], c)
		case allEnglish(probs) && rec.Culture != "american":
			flawed[rec.Culture+"/lang"] = append(flawed[rec.Culture+"/lang"], c)
		case len(probs) == 1 && (strings.HasPrefix(probs[0], "situation has 6 sentences") || strings.HasPrefix(probs[0], "situation has 7 sentences")):
			flawed[rec.Culture+"/length"] = append(flawed[rec.Culture+"/length"], c)
		}
	}
	var out []*record.Record
	take := func(m map[string][]cand, kind string, n int) {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			cs := m[k]
			sort.Slice(cs, func(i, j int) bool { return cs[i].unit < cs[j].unit })
			norms, scenarios, got := map[string]bool{}, map[string]bool{}, 0
			for _, c := range cs {
				if got == n {
					break
				}
				if norms[c.rec.NormID] || scenarios[c.rec.Scenario] {
					continue
				}
				norms[c.rec.NormID], scenarios[c.rec.Scenario] = true, true
				c.rec.SetExtra("fixture", kind)
				out = append(out, c.rec)
				got++
			}
		}
	}
	take(clean, kindClean, 2)
	take(flawed, kindFlawed, 2)
	var b bytes.Buffer
	for _, r := range out {
		line, err := r.AppendJSON(nil)
		if err != nil {
			return nil, err
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.Bytes(), nil
}

// allEnglish: the only problems are texts in English.
func allEnglish(probs []string) bool {
	for _, p := range probs {
		if !strings.Contains(p, " is in en ") {
			return false
		}
	}
	return len(probs) > 0
}

// seedOf keeps what a seed has of a release record.
func seedOf(r *record.Record) *record.Record {
	s := &record.Record{ID: r.ID, Culture: r.Culture, Lang: r.Lang, Category: r.Category, NormID: r.NormID, Norm: r.Norm,
		DialogueType: r.DialogueType, Scenario: r.Scenario, Situation: r.Situation}
	for _, k := range []string{"source_file", "source_index"} {
		if v, ok := r.Extra[k]; ok {
			if s.Extra == nil {
				s.Extra = map[string]json.RawMessage{}
			}
			s.Extra[k] = v
		}
	}
	return s
}

func releaseDir() string {
	if d := os.Getenv("NG_RELEASE_DIR"); d != "" {
		return d
	}
	return "../../../shared/data/normgenesis"
}

// The fixture is what buildFixture makes of the release (-update-fixture
// rewrites it; the check reads the whole release, so not with -short or
// -race), and its kinds are right under today's audit.
func TestFixture(t *testing.T) {
	if *updateFixture || !testing.Short() && !raceEnabled {
		if _, err := os.Stat(releaseDir()); err == nil {
			b, err := buildFixture(releaseDir())
			if err != nil {
				t.Fatal(err)
			}
			if *updateFixture {
				if err := os.WriteFile(fixturePath, b, 0o644); err != nil {
					t.Fatal(err)
				}
			} else if old, _ := os.ReadFile(fixturePath); !bytes.Equal(old, b) {
				t.Errorf("%s is out of date: go test ./filters/refine -run TestFixture -update-fixture", fixturePath)
			}
		} else if *updateFixture {
			t.Fatalf("no release at %s (set NG_RELEASE_DIR)", releaseDir())
		}
	}
	counts := map[string]int{}
	for _, r := range fixture(t) {
		kind, _ := r.ExtraString("fixture")
		cu, _ := normbank.BuiltinProfile(r.Culture)
		det, _ := detectorFor(cu.ScenarioLang)
		e := normbank.Exemplar{Culture: r.Culture, Scenario: r.Scenario, Situation: r.Situation}
		if probs := normbank.AuditExemplar(&e, cu, det); (len(probs) == 0) != (kind == kindClean) {
			t.Errorf("%s (%s): audit %v", r.ID, kind, probs)
		}
		counts[r.Culture+"/"+kind]++
	}
	// 12 categories x 3 types (2 for korean: no V2R in the release) x 2.
	want := map[string]int{"american/clean": 72, "chinese/clean": 72, "korean/clean": 48}
	for k, n := range want {
		if counts[k] != n {
			t.Errorf("%s: %d records, want %d (%v)", k, counts[k], n, counts)
		}
	}
	if counts["korean/flawed"] < 4 || counts["chinese/flawed"] < 2 || counts["american/flawed"] < 2 {
		t.Errorf("flawed seeds: %v", counts)
	}
}
