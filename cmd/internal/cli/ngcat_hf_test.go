package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/parquet-go/parquet-go"
	"go.yaml.in/yaml/v3"
)

// hfIDs reads the ids of every file of an export, by split.
func hfIDs(t *testing.T, dir string) map[string][]string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "data", "*.parquet"))
	name := regexp.MustCompile(`^(\w+)-\d{5}-of-\d{5}\.parquet$`)
	out := map[string][]string{}
	for _, f := range files {
		m := name.FindStringSubmatch(filepath.Base(f))
		if m == nil {
			t.Fatalf("file name %s", f)
		}
		rows, err := parquet.ReadFile[struct {
			ID string `parquet:"id"`
		}](f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, r := range rows {
			out[m[1]] = append(out[m[1]], r.ID)
		}
	}
	return out
}

func TestNgcatHF(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "normgenesis-hf")
	args := append([]string{"--from", "normgenesis", "--split", "train=0.8,test=0.2", "--hf", dir,
		"--pretty-name", "NormGenesis sample", "--license", "cc-by-sa-4.0", "--shard-mb", "0.1"}, sampleFiles(t)...)
	code, out, stderr := run(t, Ngcat, "", args...)
	if code != 0 || out != "" {
		t.Fatalf("exit %d, stdout %q: %s", code, out, stderr)
	}
	_, jsonl, _ := run(t, Ngcat, "", append([]string{"--from", "normgenesis"}, sampleFiles(t)...)...)
	var want []string
	for _, r := range readJSONL(t, jsonl) {
		want = append(want, r.ID)
	}
	byID := hfIDs(t, dir)
	var got []string
	for _, ids := range byID {
		got = append(got, ids...)
	}
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, ",") != strings.Join(want, ",") || len(got) != 135 {
		t.Errorf("%d ids in the export, want the 135 of the import", len(got))
	}
	files, _ := filepath.Glob(filepath.Join(dir, "data", "train-*"))
	if len(files) < 2 {
		t.Errorf("--shard-mb 0.1: train in %v", files)
	}

	b, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	front, _, _ := strings.Cut(strings.TrimPrefix(string(b), "---\n"), "\n---\n")
	var c struct {
		PrettyName  string   `yaml:"pretty_name"`
		License     string   `yaml:"license"`
		Language    []string `yaml:"language"`
		DatasetInfo struct {
			Splits []struct {
				Name        string `yaml:"name"`
				NumExamples int    `yaml:"num_examples"`
			} `yaml:"splits"`
		} `yaml:"dataset_info"`
	}
	if err := yaml.Unmarshal([]byte(front), &c); err != nil {
		t.Fatal(err)
	}
	if c.PrettyName != "NormGenesis sample" || c.License != "cc-by-sa-4.0" || strings.Join(c.Language, ",") != "en,ko,zh" {
		t.Errorf("card: %+v", c)
	}
	for _, s := range c.DatasetInfo.Splits {
		if s.NumExamples != len(byID[s.Name]) {
			t.Errorf("split %s: num_examples %d, %d rows", s.Name, s.NumExamples, len(byID[s.Name]))
		}
	}

	// An existing export is refused, and nothing is left behind.
	code, _, stderr = run(t, Ngcat, "", append([]string{"--from", "normgenesis", "--hf", dir}, sampleFiles(t)...)...)
	if code != 2 || !strings.Contains(stderr, "--force") {
		t.Errorf("existing export: exit %d, %q", code, stderr)
	}
	// --force replaces it; --head applies.
	code, _, stderr = run(t, Ngcat, "", append([]string{"--from", "normgenesis", "--hf", dir, "--force", "--head", "5"}, sampleFiles(t)...)...)
	if code != 0 {
		t.Fatalf("--force: exit %d: %s", code, stderr)
	}
	if ids := hfIDs(t, dir); len(ids) != 1 || len(ids["train"]) != 5 {
		t.Errorf("--force --head 5: %v", ids)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(dir), ".*")); len(left) > 0 {
		t.Errorf("temporary folders left: %v", left)
	}
}

// Ctrl-C during an export: nothing is visible under DIR until the end,
// then the folder holds what was read, whole (the -o rule), exit 130.
func TestNgcatHFInterrupt(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ds")
	interruptNgcat(t, dir, 50, "--hf", dir)
	if ids := hfIDs(t, dir); len(ids["train"]) != 50 {
		t.Errorf("%d rows after Ctrl-C, want 50", len(ids["train"]))
	}
	b, _ := os.ReadFile(filepath.Join(dir, "README.md"))
	if !strings.Contains(string(b), "num_examples: 50") || !strings.Contains(string(b), "- ko") {
		t.Errorf("card after Ctrl-C:\n%s", b)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(dir), ".*")); len(left) > 0 {
		t.Errorf("temporary folders left: %v", left)
	}
}

// TestNgcatHFShardsOfN: three runs at once, each with --shard K/3 and its
// own folder (three machines), name their files <split>-0000K-of-00003;
// their data/ folders copied together hold every record once, and ngstats
// writes the card of the whole dataset from them. A truncated copy of a
// shard is an error naming it.
func TestNgcatHFShardsOfN(t *testing.T) {
	_, jsonl, _ := run(t, Ngcat, "", append([]string{"--from", "normgenesis"}, sampleFiles(t)...)...)
	in := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(in, []byte(jsonl), 0o644); err != nil {
		t.Fatal(err)
	}
	base := t.TempDir()
	merged := filepath.Join(base, "merged", "data")
	if err := os.MkdirAll(merged, 0o755); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]string, 3)
	for k := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dir := filepath.Join(base, fmt.Sprintf("m%d", k))
			code, _, stderr := run(t, Ngcat, "", in, "--split", "train=0.8,test=0.2", "--shard", fmt.Sprintf("%d/3", k),
				"--hf", dir, "--license", "cc-by-sa-4.0")
			if code != 0 {
				errs[k] = fmt.Sprintf("shard %d: exit %d: %s", k, code, stderr)
			}
		}()
	}
	wg.Wait()
	for _, e := range errs {
		if e != "" {
			t.Fatal(e)
		}
	}
	for k := range 3 {
		files, _ := filepath.Glob(filepath.Join(base, fmt.Sprintf("m%d", k), "data", "*"))
		var names []string
		for _, f := range files {
			names = append(names, filepath.Base(f))
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(merged, filepath.Base(f)), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want := fmt.Sprintf("test-%05d-of-00003.parquet,train-%05d-of-00003.parquet", k, k)
		if strings.Join(names, ",") != want {
			t.Errorf("machine %d wrote %v, want %s", k, names, want)
		}
	}
	byID := hfIDs(t, filepath.Dir(merged))
	n := len(byID["train"]) + len(byID["test"])
	seen := map[string]bool{}
	for _, ids := range byID {
		for _, id := range ids {
			seen[id] = true
		}
	}
	if n != 135 || len(seen) != 135 {
		t.Errorf("%d rows, %d distinct ids in the merged folder, want 135", n, len(seen))
	}
	shards, _ := filepath.Glob(filepath.Join(merged, "*.parquet"))
	code, card, stderr := run(t, Ngstats, "", append([]string{"--card", "--license", "cc-by-sa-4.0"}, shards...)...)
	if code != 0 {
		t.Fatalf("ngstats --card: exit %d: %s", code, stderr)
	}
	var front struct {
		Language    []string `yaml:"language"`
		DatasetInfo struct {
			Splits []struct {
				Name        string `yaml:"name"`
				NumExamples int    `yaml:"num_examples"`
			} `yaml:"splits"`
			DownloadSize int64 `yaml:"download_size"`
		} `yaml:"dataset_info"`
	}
	fm, _, _ := strings.Cut(strings.TrimPrefix(card, "---\n"), "\n---\n")
	if err := yaml.Unmarshal([]byte(fm), &front); err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, s := range front.DatasetInfo.Splits {
		counts[s.Name] = s.NumExamples
	}
	if counts["train"] != len(byID["train"]) || counts["test"] != len(byID["test"]) || front.DatasetInfo.DownloadSize == 0 {
		t.Errorf("card splits %+v, download_size %d; files hold train %d, test %d", front.DatasetInfo.Splits,
			front.DatasetInfo.DownloadSize, len(byID["train"]), len(byID["test"]))
	}
	if strings.Join(front.Language, ",") != "en,ko,zh" {
		t.Errorf("card languages %v", front.Language)
	}

	// A shard cut short: an error that names it.
	cut := filepath.Join(merged, "train-00001-of-00003.parquet")
	b, _ := os.ReadFile(cut)
	if err := os.WriteFile(cut, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = run(t, Ngstats, "", append([]string{"--card"}, shards...)...)
	if code == 0 || !strings.Contains(stderr, "train-00001-of-00003.parquet") {
		t.Errorf("truncated shard: exit %d: %s", code, stderr)
	}
	// A missing one too.
	os.Remove(cut)
	rest, _ := filepath.Glob(filepath.Join(merged, "*.parquet"))
	code, _, stderr = run(t, Ngstats, "", append([]string{"--card"}, rest...)...)
	if code == 0 || !strings.Contains(stderr, "train-00001-of-00003.parquet is missing") {
		t.Errorf("missing shard: exit %d: %s", code, stderr)
	}
}
