package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
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

func TestNgcatHFUsage(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"--hf", dir, "-o", "x.parquet"},
		{"--hf", dir, "--format", "parquet"},
		{"--hf", dir, "--explode", "turns"},
		{"--license", "mit"},
		{"--pretty-name", "x"},
		{"--force"},
		{"--hf", dir, "--shard-mb", "0"},
		{"--hf", dir, "--split", "train-a=0.5,test=0.5"},
	} {
		code, _, stderr := run(t, Ngcat, `{"id":"a"}`, args...)
		if code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.HasPrefix(stderr, "ngcat: ") {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("usage errors left files: %v", ents)
	}
	code, out, _ := run(t, Ngcat, "", "--help")
	if code != 0 || !strings.Contains(out, "--hf") || !strings.Contains(out, "huggingface-cli upload") {
		t.Errorf("--help says nothing of --hf")
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
