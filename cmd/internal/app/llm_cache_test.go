package app

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ngkit/ngkit/pkg/llm/llmtest"
)

// The programs of one pipeline share the cache at once: several
// processes calling the same requests concurrently all succeed with the
// same replies, and the cache holds whole entries only.
func TestCacheSharedByProcesses(t *testing.T) {
	const n, procs = 60, 3
	srv := llmtest.New(llmtest.Options{Reply: koReply})
	defer srv.Close()
	dir := t.TempDir()
	in := writeRecords(t, dir, n)
	cache := filepath.Join(dir, "cache")
	var wg sync.WaitGroup
	errs := make([]error, procs)
	for i := 0; i < procs; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "--concurrency", "8", "--cache", cache, "-o", filepath.Join(dir, fmt.Sprintf("out%d.jsonl", i)), in)
			cmd.Env = append(os.Environ(), "NGKIT_TEST_ROLE=koecho", "NG_BASE_URL="+srv.URL, "NG_MODEL=fake")
			if out, err := cmd.CombinedOutput(); err != nil {
				errs[i] = fmt.Errorf("%v: %s", err, out)
			}
		}(i)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	want := readRecords(t, filepath.Join(dir, "out0.jsonl"))
	for i := 1; i < procs; i++ {
		got := readRecords(t, filepath.Join(dir, fmt.Sprintf("out%d.jsonl", i)))
		for j := range want {
			if got[j].ID != want[j].ID || got[j].Situation != want[j].Situation {
				t.Fatalf("process %d record %d differs", i, j)
			}
		}
	}
	keys := map[string]bool{}
	filepath.WalkDir(cache, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, _ := os.ReadFile(path)
		for _, line := range strings.Split(strings.TrimPrefix(string(b), "\n"), "\n") {
			key, entry, _ := strings.Cut(line, "\t")
			var e struct{ Content string }
			if len(key) != 64 || json.Unmarshal([]byte(entry), &e) != nil || e.Content == "" {
				t.Errorf("cache entry in %s: %q", path, line)
			}
			keys[key] = true
		}
		return nil
	})
	if len(keys) != n || srv.Count() > procs*n {
		t.Errorf("%d cache keys, %d requests for %d records in %d processes", len(keys), srv.Count(), n, procs)
	}
	// A fourth run pays nothing.
	before := srv.Count()
	if code, _, stderr := run(t, map[string]string{"NG_BASE_URL": srv.URL, "NG_MODEL": "fake"}, "--cache", cache, "-o", filepath.Join(dir, "again.jsonl"), in); code != 0 || srv.Count() != before {
		t.Errorf("rerun: exit %d, %d requests: %s", code, srv.Count()-before, stderr)
	}
}
