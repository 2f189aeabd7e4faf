// Command demopool builds testdata/demo/release.parquet, the release text
// the built-in demo model answers with (cmd/internal/demo): for each
// culture, category and dialogue type of the NormGenesis release, the
// first -k records (in file order) whose scenario and situation pass
// ngseed's checks and whose dialogue passes ngv2r's default rules, with
// no defect. Each record gives the demo's ngseed a scenario and
// situation and its ngv2r the dialogue of that same record, so that a
// demo run of a few norms gives every seed its own dialogue: no
// duplicate for ngstats to find. Run it from the repository root:
//
//	go run ./internal/demopool [-release DIR] [-o FILE] [-k 20]
//
// The release directory defaults to $NG_RELEASE_DIR, else
// ../shared/data/normgenesis beside the repository. The output is
// deterministic: the same release gives the same records.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ngkit/ngkit/filters/imports"
	"github.com/ngkit/ngkit/filters/seed"
	"github.com/ngkit/ngkit/filters/v2r"
	"github.com/ngkit/ngkit/filters/v2r/v2rtest"
	"github.com/ngkit/ngkit/internal/fakeng"
	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/recio"
	"github.com/ngkit/ngkit/pkg/record"
)

// defaultK is how many records of each culture, category and type the
// demo keeps: more than a run of two norms of a category asks for
// (2 x --per-norm 10) where the release has them.
const defaultK = 20

// poolZstdLevel is the zstd level of the pool's pages.
const poolZstdLevel = 19

func main() {
	dir := os.Getenv("NG_RELEASE_DIR")
	if dir == "" {
		dir = filepath.Join("..", "shared", "data", "normgenesis")
	}
	release := flag.String("release", dir, "the NormGenesis release `DIR`")
	out := flag.String("o", filepath.Join("testdata", "demo", "release.parquet"), "output `FILE`")
	k := flag.Int("k", defaultK, "records per culture, category and dialogue type")
	flag.Parse()
	if err := run(*release, *out, *k); err != nil {
		fmt.Fprintln(os.Stderr, "demopool:", err)
		os.Exit(1)
	}
}

func run(dir, out string, k int) error {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		return fmt.Errorf("%s: no release files (-release DIR)", dir)
	}
	recs, err := imports.ReadNormGenesis(files)
	if err != nil {
		return err
	}
	check := func(turns []record.Turn, narration []string, typ, lang string) error {
		_, err := fakeng.Rules.Check(&v2r.Dialogue{Turns: turns, Narration: narration}, typ, lang)
		return err
	}
	seedChecks := map[string]func(scenario, situation string) error{}
	taken := map[[3]string]int{}
	var kept []*record.Record
	for _, r := range recs {
		key := [3]string{r.Culture, r.Category, r.DialogueType}
		if taken[key] >= k {
			continue
		}
		ck, ok := seedChecks[r.Culture]
		if !ok {
			c, err := normbank.BuiltinProfile(r.Culture)
			if err != nil {
				return err
			}
			if ck, err = seed.SeedCheck(c); err != nil {
				return err
			}
			seedChecks[r.Culture] = ck
		}
		// the seed passes ngseed's checks, its dialogue ngv2r's
		if ck(r.Scenario, r.Situation) != nil || len(v2rtest.Pairs([]*record.Record{r}, r.Culture, r.DialogueType, check)) == 0 {
			continue
		}
		taken[key]++
		// What the demo needs; the source keeps the attribution.
		x := &record.Record{ID: r.ID, Culture: r.Culture, Lang: r.Lang, Category: r.Category, NormID: r.NormID,
			Norm: r.Norm, DialogueType: r.DialogueType, Scenario: r.Scenario, Situation: r.Situation,
			Turns: r.Turns, Narration: r.Narration, NarrationAt: r.NarrationAt}
		for _, f := range []string{"source_file", "source_index"} {
			if v, ok := r.Extra[f]; ok {
				if x.Extra == nil {
					x.Extra = map[string]json.RawMessage{}
				}
				x.Extra[f] = v
			}
		}
		kept = append(kept, x)
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	// zstd level 19, not the default 3: the pool is embedded in every
	// program (see demodata.go), where it is 16% smaller so; the records
	// read back are the same.
	w, err := recio.NewParquetWriter[record.Record](f, recio.WriteOptions{ZstdLevel: poolZstdLevel})
	if err != nil {
		return err
	}
	for _, r := range kept {
		if err := w.Write(r); err != nil {
			return err
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "demopool: %d records of %d release records to %s\n", len(kept), len(recs), out)
	return f.Close()
}
