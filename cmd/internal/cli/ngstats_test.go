package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/internal/golden"

	"github.com/ngkit/ngkit/filters/stats"
	"go.yaml.in/yaml/v3"
)

// sampleJSONL imports the release sample once per test into a JSONL file.
func sampleJSONL(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sample.jsonl")
	if code, _, stderr := run(t, Ngcat, "", append([]string{"--from", "normgenesis", "-o", path}, sampleFiles(t)...)...); code != 0 {
		t.Fatalf("ngcat: exit %d: %s", code, stderr)
	}
	return path
}

// TestNgstatsGoldenReports checks the text, JSON and Markdown reports of the
// release sample against golden files.
func TestNgstatsGoldenReports(t *testing.T) {
	in := sampleJSONL(t)
	for _, f := range []struct{ flag, file string }{{"", "sample.txt"}, {"--json", "sample.json"}, {"--markdown", "sample.md"}} {
		args := []string{in, "-j", "2"}
		if f.flag != "" {
			args = append(args, f.flag)
		}
		code, out, stderr := run(t, Ngstats, "", args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		golden.Check(t, filepath.Join("../../../testdata/ngstats", f.file), out)
	}
}

func TestNgstatsJSONReportOfSample(t *testing.T) {
	code, out, stderr := run(t, Ngstats, "", sampleJSONL(t), "--json", "--ids", "0")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r stats.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.Version != stats.Version || r.Records != 135 || len(r.Counts.ByCulture) != 3 {
		t.Fatalf("records %d cultures %+v", r.Records, r.Counts.ByCulture)
	}
	var failed, empty *stats.Defect
	for i, d := range r.Defects {
		switch d.Name {
		case "failed_generation":
			failed = &r.Defects[i]
		case "empty_dialogue":
			empty = &r.Defects[i]
		}
		if int64(len(d.IDs)) != d.Count || d.More != 0 {
			t.Errorf("--ids 0 should list every id: %+v", d)
		}
	}
	if failed == nil || empty == nil || failed.Count == 0 || empty.Count < failed.Count {
		t.Fatalf("the sample's failed generations are not reported: %+v %+v", failed, empty)
	}
}

func TestNgstatsFailOnWritesReportThenFails(t *testing.T) {
	in := sampleJSONL(t)
	out := filepath.Join(t.TempDir(), "report.json")
	code, _, stderr := run(t, Ngstats, "", in, "-o", out, "--fail-on", "empty_dialogue=0.001,any=100%")
	if code != 1 || !strings.Contains(stderr, "--fail-on: empty_dialogue rate") || strings.Contains(stderr, "any rate") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var r stats.Report
	data, err := os.ReadFile(out)
	if err != nil || json.Unmarshal(data, &r) != nil {
		t.Fatalf("the report (JSON by the .json extension) was not written: %v %s", err, data)
	}
	if len(r.FailOn) != 2 || !r.FailOn[0].Exceeded || r.FailOn[1].Exceeded {
		t.Fatalf("fail_on %+v", r.FailOn)
	}
	if code, _, stderr := run(t, Ngstats, "", in, "--fail-on", "any=1"); code != 0 {
		t.Fatalf("a threshold not exceeded: exit %d %s", code, stderr)
	}
}

func TestNgstatsOutputFormatFromExtension(t *testing.T) {
	in := sampleJSONL(t)
	dir := t.TempDir()
	for ext, prefix := range map[string]string{".md": "## Totals", ".html": "<!DOCTYPE html>", ".txt": "Totals"} {
		out := filepath.Join(dir, "r"+ext)
		if code, _, stderr := run(t, Ngstats, "", in, "-o", out); code != 0 {
			t.Fatalf("%s: exit %d %s", ext, code, stderr)
		}
		data, _ := os.ReadFile(out)
		if !strings.HasPrefix(strings.TrimSpace(string(data)), prefix) {
			t.Errorf("-o r%s starts %.40q, want %q", ext, data, prefix)
		}
	}
}

func TestNgstatsCard(t *testing.T) {
	code, out, stderr := run(t, Ngstats, "", sampleJSONL(t), "--card", "--pretty-name", "Sample", "--license", "cc-by-sa-4.0", "--split-name", "test")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	front, body, ok := strings.Cut(strings.TrimPrefix(out, "---\n"), "\n---\n")
	if !strings.HasPrefix(out, "---\n") || !ok {
		t.Fatalf("no YAML front matter:\n%.300s", out)
	}
	var meta struct {
		PrettyName string   `yaml:"pretty_name"`
		License    string   `yaml:"license"`
		Language   []string `yaml:"language"`
		Configs    []struct {
			DataFiles []struct{ Split, Path string } `yaml:"data_files"`
		} `yaml:"configs"`
		DatasetInfo struct {
			Splits []struct {
				Name        string `yaml:"name"`
				NumExamples int64  `yaml:"num_examples"`
			} `yaml:"splits"`
		} `yaml:"dataset_info"`
	}
	if err := yaml.Unmarshal([]byte(front), &meta); err != nil {
		t.Fatalf("card YAML: %v", err)
	}
	if meta.PrettyName != "Sample" || meta.License != "cc-by-sa-4.0" || strings.Join(meta.Language, ",") != "en,ko,zh" {
		t.Errorf("card meta %+v", meta)
	}
	if len(meta.DatasetInfo.Splits) != 1 || meta.DatasetInfo.Splits[0].Name != "test" || meta.DatasetInfo.Splits[0].NumExamples != 135 ||
		len(meta.Configs) != 1 || meta.Configs[0].DataFiles[0].Path != "data/test-*" {
		t.Errorf("card splits %+v configs %+v", meta.DatasetInfo.Splits, meta.Configs)
	}
	for _, want := range []string{"## Statistics", "### Defects", "| failed_generation |"} {
		if !strings.Contains(body, want) {
			t.Errorf("card body lacks %q", want)
		}
	}
	if code, _, _ := run(t, Ngstats, "", "--license", "mit"); code != 2 {
		t.Errorf("--license without --card: exit %d, want 2", code)
	}
	if code, _, _ := run(t, Ngstats, "", "--card", "--json"); code != 2 {
		t.Errorf("--card --json: exit %d, want 2", code)
	}
}

// TestNgcatHFCardHasStatistics: the card of ngcat --hf ends with the ngstats
// report of the records exported.
func TestNgcatHFCardHasStatistics(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "hf")
	if code, _, stderr := run(t, Ngcat, "", append([]string{"--from", "normgenesis", "--hf", dir}, sampleFiles(t)...)...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	card, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil || !strings.Contains(string(card), "## Statistics") || !strings.Contains(string(card), "| american | 54 |") {
		t.Fatalf("card without statistics (%v):\n%s", err, card)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "data", "*.parquet")); len(files) != 1 {
		t.Fatalf("data files %v", files)
	}
}
