package app

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ngkit/ngkit/pkg/llm/llmtest"
)

const testKey = "sk-ngkit-TEST-7f3a9c1e5b2d"

// The API key never appears in output, errors, logs, cache files, usage,
// Batch files, records or --help — even when the server quotes it back
// in an error message.
func TestSecretsNeverWritten(t *testing.T) {
	dir := t.TempDir()
	in := writeRecords(t, dir, 40)
	good := llmtest.New(llmtest.Options{APIKey: testKey, Reply: koReply, FaultRate: 0.3, RetryAfter: time.Millisecond})
	defer good.Close()
	// This one wants another key and quotes the one it got in its 401.
	picky := llmtest.New(llmtest.Options{APIKey: "sk-other", Reply: koReply})
	defer picky.Close()

	var streams bytes.Buffer
	runWith := func(vars map[string]string, args ...string) int {
		code, stdout, stderr := run(t, vars, args...)
		streams.WriteString(stdout + stderr)
		return code
	}
	common := []string{"--concurrency", "4", "--backoff", "1ms", "--timeout", "2s", "--cache", filepath.Join(dir, "cache")}
	vars := map[string]string{"NG_BASE_URL": good.URL, "NG_MODEL": "fake", "NG_API_KEY": testKey, "OPENAI_API_KEY": testKey}
	if code := runWith(vars, append(common, "-o", filepath.Join(dir, "out.jsonl"), "--errors", filepath.Join(dir, "e1.jsonl"),
		"--usage-json", filepath.Join(dir, "usage.json"), in)...); code != 0 {
		t.Fatalf("run with the right key: exit %d: %s", code, streams.String())
	}
	if code := runWith(vars, append(common, "--emit-requests", filepath.Join(dir, "batch.jsonl"), "--no-cache", "-o", filepath.Join(dir, "none.jsonl"), in)...); code != 0 {
		t.Fatalf("emit: exit %d", code)
	}
	vars["NG_BASE_URL"] = picky.URL
	if code := runWith(vars, append(common, "-o", filepath.Join(dir, "out2.jsonl"), "--errors", filepath.Join(dir, "e2.jsonl"), in)...); code != 1 {
		t.Fatalf("run against the picky server: exit %d, want 1", code)
	}
	if !strings.Contains(streams.String(), "e2.jsonl") {
		t.Errorf("the errors file is not named: %s", streams.String())
	}
	runWith(vars, "--help")
	// A Config printed by mistake shows no key either.
	var f LLMFlags
	cfg, _ := f.Config(func(k string) string { return vars[k] })
	fmt.Fprintf(&streams, "%v %+v %#v %s", cfg, cfg, cfg, cfg.APIKey)

	// The key was really used...
	if h := good.Requests()[0].Header.Get("Authorization"); h != "Bearer "+testKey {
		t.Fatalf("Authorization header %q", h)
	}
	// ...and is nowhere in what the runs wrote.
	files := 0
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(testKey)) {
			t.Errorf("%s contains the API key", path)
		}
		return nil
	})
	if strings.Contains(streams.String(), testKey) {
		t.Errorf("stdout/stderr contain the API key")
	}
	e2, _ := os.ReadFile(filepath.Join(dir, "e2.jsonl"))
	if !bytes.Contains(e2, []byte("Incorrect API key provided: [redacted]")) {
		t.Errorf("errors file: %.300s", e2)
	}
	for _, name := range []string{"out.jsonl", "usage.json", "batch.jsonl", "e2.jsonl"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Error(err)
		}
	}
	if buckets, _ := filepath.Glob(filepath.Join(dir, "cache", "*.log")); len(buckets) == 0 || files < 6+len(buckets) {
		t.Errorf("%d files, %d cache buckets", files, len(buckets))
	}
}
