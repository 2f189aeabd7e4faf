// Command gen builds the data of pkg/normbank from the NormGenesis release:
// data/norms.jsonl (the deduplicated norms), data/exemplars.jsonl (the
// exemplars for refinement, chosen by the rule in the package doc), their
// zstd-compressed copies data/*.jsonl.zst (what the programs embed) and
// data/README.md (attribution, counts, what was found). Run it from the
// repository root after a change to the rule or the release:
//
//	go run ./internal/normbankgen [-release DIR] [-out DIR] [-k 3]
//
// The release directory defaults to $NG_RELEASE_DIR, else
// ../shared/data/normgenesis beside the repository. The output is
// deterministic: the same release gives the same bytes, and a test checks
// that the committed files are up to date.
//
// Unlike pkg/normbank itself, this program may use filters/imports (the
// release importer, which finds defects) and filters/stats (ngstats' turn
// audit): the exemplars must pass what ngcat and ngstats check.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/template"

	"github.com/klauspost/compress/zstd"
	"github.com/ngkit/ngkit/filters/imports"
	"github.com/ngkit/ngkit/pkg/audit"
	"github.com/ngkit/ngkit/pkg/lang"
	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/record"
)

func main() {
	root := moduleRoot()
	release := flag.String("release", DefaultReleaseDir(root), "directory of the release's <culture>_<type>.json files")
	out := flag.String("out", filepath.Join(root, "pkg", "normbank", "data"), "output directory")
	k := flag.Int("k", DefaultK, "exemplars per culture, category and dialogue type")
	flag.Parse()
	files, err := Generate(*release, *k, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	for _, name := range sortedKeys(files) {
		p := filepath.Join(*out, name)
		if err := os.WriteFile(p, files[name], 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
		fmt.Fprintf(os.Stderr, "wrote %s (%d bytes)\n", p, len(files[name]))
	}
}

// DefaultK is the number of exemplars per culture, category and type.
const DefaultK = 3

// DefaultReleaseDir is $NG_RELEASE_DIR, else ../shared/data/normgenesis
// beside the repository root.
func DefaultReleaseDir(root string) string {
	if d := os.Getenv("NG_RELEASE_DIR"); d != "" {
		return d
	}
	return filepath.Join(root, "..", "shared", "data", "normgenesis")
}

// moduleRoot is the nearest directory above the working one with a go.mod.
func moduleRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return "."
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return dir
		}
	}
}

// Generate reads the release in dir and returns the data files by name.
// Findings (repeated norms, ...) are logged to log.
func Generate(dir string, k int, log io.Writer) (map[string][]byte, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*_*.json"))
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	if len(names) == 0 {
		return nil, fmt.Errorf("%s: no <culture>_<type>.json release files", dir)
	}
	recs, err := readRelease(names)
	if err != nil {
		return nil, err
	}
	g := &gen{recs: recs, k: k, log: log, det: lang.Default()}
	norms := g.norms()
	g.languages()
	exemplars, err := g.exemplars()
	if err != nil {
		return nil, err
	}
	var nb, eb bytes.Buffer
	for _, n := range norms {
		r := &record.Record{ID: n.ID, Culture: n.Culture, Category: n.Category, NormID: n.ID, Norm: n.Text}
		file, idx, _ := strings.Cut(n.Source, "#")
		i, _ := strconv.Atoi(idx)
		r.SetExtra("source_file", file)
		r.SetExtra("source_index", i)
		if err := appendLine(&nb, r); err != nil {
			return nil, err
		}
	}
	for _, c := range exemplars {
		r := c.ex.Record()
		r.SetExtra("source_file", c.file)
		r.SetExtra("source_index", c.index)
		if err := appendLine(&eb, r); err != nil {
			return nil, err
		}
	}
	readme, err := g.readme(norms, exemplars)
	if err != nil {
		return nil, err
	}
	return map[string][]byte{
		"norms.jsonl": nb.Bytes(), "exemplars.jsonl": eb.Bytes(), "README.md": readme,
		"norms.jsonl.zst": compress(nb.Bytes()), "exemplars.jsonl.zst": compress(eb.Bytes()),
	}, nil
}

// compress is what pkg/normbank embeds of a data file: the programs carry
// the data zstd-compressed (900 KB of JSONL is 250 KB; every program of
// the one binary pays for it) and pkg/normbank decompresses it once, when
// first used. The .jsonl files stay beside them for review and diffs; a
// test in pkg/normbank checks that both hold the same bytes.
func compress(b []byte) []byte {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBestCompression), zstd.WithEncoderConcurrency(1))
	if err != nil {
		panic(err) // only for bad options
	}
	defer enc.Close()
	return enc.EncodeAll(b, nil)
}

func appendLine(b *bytes.Buffer, r *record.Record) error {
	line, err := r.AppendJSON(nil)
	if err != nil {
		return err
	}
	b.Write(line)
	b.WriteByte('\n')
	return nil
}

// releaseRecord is one decoded release record and where it came from.
type releaseRecord struct {
	rec   *record.Record
	file  string // base name
	index int    // 0-based position in the file
}

// readRelease decodes the release files with ngcat's importer, which parses
// each dialogue and notes its defects in checks.defects.
func readRelease(names []string) ([]releaseRecord, error) {
	recs, err := imports.ReadNormGenesis(names)
	if err != nil {
		return nil, err
	}
	var out []releaseRecord
	counts := map[string]int{}
	for _, rec := range recs {
		file, _ := rec.ExtraString("source_file") // the base name
		out = append(out, releaseRecord{rec: rec, file: file, index: counts[file]})
		counts[file]++
	}
	return out, nil
}

type gen struct {
	recs []releaseRecord
	k    int
	log  io.Writer
	det  *lang.Detector

	// findings for the README
	repeated   []string // norms repeated within a file
	partial    []string // norms found in some but not all files of a culture
	langTable  []langRow
	rejections map[string]int // reason -> records
	candidates map[string]int // culture -> records that passed
}

type langRow struct {
	File                string
	Scenario, Situation string // "1180 zh, 5 en, 15 none"
}

// norms collects the distinct norms, in order of first appearance
// (files in name order, records in file order), then sorts them by
// culture and category.
func (g *gen) norms() []normbank.Norm {
	var out []normbank.Norm
	first := map[string]int{}              // norm id -> index in out
	files := map[string]map[string]bool{}  // culture -> files
	inFile := map[string]map[string]bool{} // norm id -> files it occurs in
	type block struct {
		file  string
		start int
	}
	blocks := map[string][]block{} // norm id -> runs of consecutive records
	var prev string
	for _, r := range g.recs {
		rec := r.rec
		if strings.TrimSpace(rec.Norm) == "" {
			continue
		}
		id := record.NormID(rec.Culture, rec.Category, rec.Norm)
		if files[rec.Culture] == nil {
			files[rec.Culture] = map[string]bool{}
		}
		files[rec.Culture][r.file] = true
		if inFile[id] == nil {
			inFile[id] = map[string]bool{}
		}
		inFile[id][r.file] = true
		if cur := r.file + "\x00" + id; cur != prev {
			blocks[id] = append(blocks[id], block{r.file, r.index})
			prev = cur
		}
		if _, ok := first[id]; ok {
			continue
		}
		first[id] = len(out)
		n, err := normbank.NormFromRecord(rec)
		if err != nil {
			continue // cannot happen: the norm is not empty
		}
		n.ID = id
		n.Source = r.file + "#" + strconv.Itoa(r.index)
		out = append(out, n)
	}
	for _, n := range out {
		perFile := map[string]int{}
		for _, b := range blocks[n.ID] {
			perFile[b.file]++
		}
		for _, f := range sortedKeys(perFile) {
			if perFile[f] > 1 {
				var at []string
				for _, b := range blocks[n.ID] {
					if b.file == f {
						at = append(at, strconv.Itoa(b.start))
					}
				}
				g.repeated = append(g.repeated, fmt.Sprintf("%s %s: %q is the norm of %d blocks of records in %s (from index %s); kept once",
					n.Culture, n.Category, n.Text, perFile[f], f, strings.Join(at, ", ")))
			}
		}
		if len(inFile[n.ID]) < len(files[n.Culture]) {
			g.partial = append(g.partial, fmt.Sprintf("%s %s: %q occurs only in %s",
				n.Culture, n.Category, n.Text, strings.Join(sortedKeys(inFile[n.ID]), ", ")))
		}
	}
	sort.SliceStable(out, func(a, b int) bool {
		if out[a].Culture != out[b].Culture {
			return out[a].Culture < out[b].Culture
		}
		return out[a].Category < out[b].Category
	})
	for _, s := range g.repeated {
		fmt.Fprintln(g.log, "repeated norm:", s)
	}
	for _, s := range g.partial {
		fmt.Fprintln(g.log, "norm not in every file:", s)
	}
	return out
}

// languages tabulates the detected language of scenarios and situations
// per file: which language a culture profile's scenario_lang should say.
func (g *gen) languages() {
	type counts map[string]int
	scen, sit := map[string]counts{}, map[string]counts{}
	var files []string
	for _, r := range g.recs {
		if scen[r.file] == nil {
			scen[r.file], sit[r.file] = counts{}, counts{}
			files = append(files, r.file)
		}
		scen[r.file][g.langOf(r.rec.Scenario)]++
		sit[r.file][g.langOf(r.rec.Situation)]++
	}
	format := func(c counts) string {
		ls := sortedKeys(c)
		sort.SliceStable(ls, func(a, b int) bool { return c[ls[a]] > c[ls[b]] })
		var parts []string
		for _, l := range ls {
			parts = append(parts, fmt.Sprintf("%d %s", c[l], l))
		}
		return strings.Join(parts, ", ")
	}
	for _, f := range files {
		g.langTable = append(g.langTable, langRow{File: f, Scenario: format(scen[f]), Situation: format(sit[f])})
	}
}

func (g *gen) langOf(s string) string {
	if strings.TrimSpace(s) == "" {
		return "empty"
	}
	r := g.det.Detect(s)
	if r.Lang == "" || r.Confidence < lang.MinConfidence {
		return "unclear"
	}
	return r.Lang
}

// candidate is a release record that passed every check.
type candidate struct {
	ex    normbank.Exemplar
	file  string
	index int
	rank  rankKey
}

// rankKey orders candidates: dialogues without narration lines first,
// then situations nearest 4 sentences, dialogues nearest 8 turns, then a
// hash of the id (a fixed pseudo-random order, so that no part of the
// release is favoured).
type rankKey struct {
	narration, sentences, turns int
	hash                        float64
}

func (a rankKey) less(b rankKey) bool {
	if a.narration != b.narration {
		return a.narration < b.narration
	}
	if a.sentences != b.sentences {
		return a.sentences < b.sentences
	}
	if a.turns != b.turns {
		return a.turns < b.turns
	}
	return a.hash < b.hash
}

// Rejection reasons, in the order they are checked.
const (
	rejImport   = "the import found defects (failed generation, empty dialogue, markers, unplaced lines, several dialogues)"
	rejNgstats  = "ngstats' audit found defects (turn count outside 5-15, one speaker, empty turn, markers in turns, a turn not in the culture's language)"
	rejDupScen  = "its scenario occurs more than once in its file"
	rejExemplar = "normbank.AuditExemplar found problems (sentences, markers or language of scenario/situation)"
)

// exemplars audits every release record and picks, for each culture,
// category and dialogue type, the k best-ranked ones with distinct norms.
func (g *gen) exemplars() ([]candidate, error) {
	g.rejections = map[string]int{}
	g.candidates = map[string]int{}
	scenarios := map[string]int{}
	for _, r := range g.recs {
		scenarios[r.file+"\x00"+strings.TrimSpace(r.rec.Scenario)]++
	}
	profiles := map[string]*normbank.Culture{}
	aud := &audit.Audit{Detector: g.det, MinTurns: normbank.MinTurns, MaxTurns: normbank.MaxTurns, MinLangShare: 1}
	groups := map[string][]candidate{}
	for _, r := range g.recs {
		rec := r.rec
		if rec.Category != "" {
			// every culture, category and type of the release has a group,
			// so that one without any exemplar is reported
			key := rec.Culture + "\x00" + rec.Category + "\x00" + rec.DialogueType
			if _, ok := groups[key]; !ok {
				groups[key] = nil
			}
		}
		c := profiles[rec.Culture]
		if c == nil {
			var err error
			if c, err = normbank.BuiltinProfile(rec.Culture); err != nil {
				return nil, err
			}
			profiles[rec.Culture] = c
		}
		if rec.Checks != nil && (len(rec.Checks.Defects) > 0 || len(rec.Checks.Unplaced) > 0) {
			g.rejections[rejImport]++
			continue
		}
		aud.Record(rec)
		if rec.Checks != nil && len(rec.Checks.Defects) > 0 {
			g.rejections[rejNgstats]++
			continue
		}
		if scenarios[r.file+"\x00"+strings.TrimSpace(rec.Scenario)] > 1 {
			g.rejections[rejDupScen]++
			continue
		}
		for i := range rec.Turns {
			rec.Turns[i].Lang = "" // written by the audit; not part of the exemplar
		}
		rec.Checks = nil
		ex, err := normbank.ExemplarFromRecord(rec)
		if err != nil {
			g.rejections[rejExemplar]++
			continue
		}
		if probs := normbank.AuditExemplar(&ex, c, g.det); len(probs) > 0 {
			g.rejections[rejExemplar]++
			continue
		}
		ex.Lang = c.Lang // the profile's, not the importer's table
		ex.Source = r.file + "#" + strconv.Itoa(r.index)
		g.candidates[ex.Culture]++
		key := ex.Culture + "\x00" + ex.Category + "\x00" + ex.DialogueType
		groups[key] = append(groups[key], candidate{ex: ex, file: r.file, index: r.index, rank: rankKey{
			narration: min(len(ex.Narration), 1),
			sentences: abs(normbank.Sentences(ex.Situation) - 4),
			turns:     abs(len(ex.Turns) - 8),
			hash:      record.Unit(ex.ID),
		}})
	}
	var out []candidate
	for _, key := range sortedKeys(groups) {
		cs := groups[key]
		sort.SliceStable(cs, func(a, b int) bool { return cs[a].rank.less(cs[b].rank) })
		used := map[string]bool{}
		var picked []candidate
		for _, c := range cs {
			if len(picked) == g.k {
				break
			}
			if used[c.ex.NormID] {
				continue
			}
			used[c.ex.NormID] = true
			picked = append(picked, c)
		}
		if len(picked) < g.k {
			fmt.Fprintf(g.log, "only %d exemplars for %s\n", len(picked), strings.ReplaceAll(key, "\x00", "/"))
		}
		out = append(out, picked...)
	}
	typeOrder := func(t string) int { return slices.Index(record.DialogueTypes, t) }
	sort.SliceStable(out, func(a, b int) bool {
		x, y := out[a].ex, out[b].ex
		if x.Culture != y.Culture {
			return x.Culture < y.Culture
		}
		if x.Category != y.Category {
			return x.Category < y.Category
		}
		return typeOrder(x.DialogueType) < typeOrder(y.DialogueType)
	})
	return out, nil
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// readme renders data/README.md.
func (g *gen) readme(norms []normbank.Norm, exemplars []candidate) ([]byte, error) {
	type row struct {
		Culture string
		Cells   []int
		Total   int
	}
	cats := record.Categories
	table := func(count func(culture, category string) int) []row {
		var rows []row
		var cultures []string
		for _, n := range norms {
			if !slices.Contains(cultures, n.Culture) {
				cultures = append(cultures, n.Culture)
			}
		}
		for _, c := range cultures {
			r := row{Culture: c}
			for _, cat := range cats {
				v := count(c, cat)
				r.Cells = append(r.Cells, v)
				r.Total += v
			}
			rows = append(rows, r)
		}
		return rows
	}
	normRows := table(func(c, cat string) int {
		n := 0
		for _, x := range norms {
			if x.Culture == c && x.Category == cat {
				n++
			}
		}
		return n
	})
	exRows := table(func(c, cat string) int {
		n := 0
		for _, x := range exemplars {
			if x.ex.Culture == c && x.ex.Category == cat {
				n++
			}
		}
		return n
	})
	var types []string
	for _, c := range sortedCultures(exemplars) {
		var ts []string
		for _, t := range record.DialogueTypes {
			if slices.ContainsFunc(exemplars, func(x candidate) bool { return x.ex.Culture == c && x.ex.DialogueType == t }) {
				ts = append(ts, t)
			}
		}
		types = append(types, c+": "+strings.Join(ts, ", "))
	}
	var rejections []string
	for _, r := range []string{rejImport, rejNgstats, rejDupScen, rejExemplar} {
		rejections = append(rejections, fmt.Sprintf("%d: %s", g.rejections[r], r))
	}
	var candidates []string
	for _, c := range sortedKeys(g.candidates) {
		candidates = append(candidates, fmt.Sprintf("%s %d", c, g.candidates[c]))
	}
	var files []string
	seen := map[string]bool{}
	for _, r := range g.recs {
		if !seen[r.file] {
			seen[r.file] = true
			files = append(files, r.file)
		}
	}
	data := map[string]any{
		"Categories": cats, "NormRows": normRows, "ExRows": exRows, "Norms": len(norms),
		"Exemplars": len(exemplars), "Types": types, "K": g.k, "Records": len(g.recs), "Files": files,
		"Repeated": g.repeated, "Partial": g.partial, "Langs": g.langTable,
		"Rejections": rejections, "Candidates": strings.Join(candidates, ", "),
	}
	var b bytes.Buffer
	if err := readmeTemplate.Execute(&b, data); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func sortedCultures(cs []candidate) []string {
	m := map[string]bool{}
	for _, c := range cs {
		m[c.ex.Culture] = true
	}
	return sortedKeys(m)
}

var readmeTemplate = template.Must(template.New("readme").Funcs(template.FuncMap{"join": strings.Join}).Parse(readmeText))
