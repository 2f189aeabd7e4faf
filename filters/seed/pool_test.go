package seed

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/ngkit/ngkit/filters/imports"
	"github.com/ngkit/ngkit/filters/seed/seedtest"
	"github.com/ngkit/ngkit/pkg/lang"
	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/record"
)

var updatePool = flag.Bool("update-pool", false, "rebuild "+seedtest.PoolFile+" from the release in $NG_RELEASE_DIR or ../shared/data/normgenesis")

// Pairs per culture, category and type in the fixture: enough adherence
// scenarios for --per-norm 10 with replacements, a few of the others.
var poolK = map[string]int{record.TypeAdherence: 12, record.TypeViolation: 3, record.TypeV2R: 3}

// TestReleasePool checks the fake model's fixture: every pair passes
// ngseed's own checks (so a test failure is ngseed's, not the fixture's),
// and every culture and category has its pairs. With -update-pool it
// first rebuilds the fixture from the release: per culture, category and
// type, the records whose scenario and situation pass checkScenario and
// checkSituation, without near-duplicate scenarios, ranked by
// record.Unit(id), the first poolK.
func TestReleasePool(t *testing.T) {
	if *updatePool {
		dir := os.Getenv("NG_RELEASE_DIR")
		if dir == "" {
			dir = filepath.Join("..", "..", "..", "shared", "data", "normgenesis")
		}
		pairs, err := buildPool(dir)
		if err != nil {
			t.Fatal(err)
		}
		if err := seedtest.Write(seedtest.Path(), pairs); err != nil {
			t.Fatal(err)
		}
	}
	pool, err := seedtest.Load("")
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, x := range pool.All() {
		c, det := culture(t, x.Culture)
		if err := checkScenario(det, c, x.Scenario); err != nil {
			t.Errorf("%s: %v", x.ID, err)
		}
		if err := checkSituation(det, c, x.Situation); err != nil {
			t.Errorf("%s: %v", x.ID, err)
		}
		counts[x.Culture+" "+x.Type]++
	}
	for _, c := range normbank.NormCultures() {
		for _, cat := range normbank.Categories() {
			if n := len(pool.Pairs(c, cat, record.TypeAdherence)); n < 10 {
				t.Errorf("%s %s: %d adherence pairs, want >= 10", c, cat, n)
			}
			for _, typ := range []string{record.TypeViolation, record.TypeV2R} {
				if len(pool.Pairs(c, cat, typ)) == 0 {
					t.Errorf("%s %s: no %s pairs", c, cat, typ)
				}
			}
		}
	}
	t.Logf("pairs: %v", counts)
}

func culture(t testing.TB, name string) (*normbank.Culture, *lang.Detector) {
	t.Helper()
	c, err := normbank.BuiltinProfile(name)
	if err != nil {
		t.Fatal(err)
	}
	det, err := detectorFor(c)
	if err != nil {
		t.Fatal(err)
	}
	return c, det
}

func buildPool(dir string) ([]seedtest.Pair, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*_*.json"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no release files in %s (set NG_RELEASE_DIR)", dir)
	}
	sort.Strings(files)
	var out []seedtest.Pair
	for _, f := range files {
		src, err := imports.NewNormGenesis([]string{f}, imports.NormGenesisOptions{})
		if err != nil {
			return nil, err
		}
		groups := map[string][]seedtest.Pair{}
		var keys []string
		for {
			it, err := src.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, err
			}
			rec := it.Rec
			if rec == nil {
				if rec, err = it.Decode(it.Raw); err != nil {
					return nil, err
				}
			}
			c, err := normbank.BuiltinProfile(rec.Culture)
			if err != nil {
				return nil, err
			}
			det, err := detectorFor(c)
			if err != nil {
				return nil, err
			}
			if checkScenario(det, c, rec.Scenario) != nil || checkSituation(det, c, rec.Situation) != nil {
				continue
			}
			if _, ok := groups[rec.Category]; !ok {
				keys = append(keys, rec.Category)
			}
			groups[rec.Category] = append(groups[rec.Category], seedtest.Pair{ID: rec.ID, Culture: rec.Culture,
				Category: rec.Category, Type: rec.DialogueType, Scenario: rec.Scenario, Situation: rec.Situation})
		}
		src.Close()
		sort.Strings(keys)
		for _, k := range keys {
			g := groups[k]
			sort.Slice(g, func(i, j int) bool { return record.Unit(g[i].ID) < record.Unit(g[j].ID) })
			var d dedup
			n := 0
			for _, x := range g {
				if n == poolK[x.Type] {
					break
				}
				if d.add(x.Scenario) {
					out = append(out, x)
					n++
				}
			}
		}
	}
	return out, nil
}
