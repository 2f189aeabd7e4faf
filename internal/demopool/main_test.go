package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestDemoPoolFresh: the committed testdata/demo/release.parquet is what
// this program makes of the release (skipped without the release).
func TestDemoPoolFresh(t *testing.T) {
	if testing.Short() {
		t.Skip("reads the whole release")
	}
	dir := os.Getenv("NG_RELEASE_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "data", "normgenesis")
	}
	if _, err := os.Stat(filepath.Join(dir, "american_v2r.json")); err != nil {
		t.Skipf("no NormGenesis release in %s (set NG_RELEASE_DIR)", dir)
	}
	out := filepath.Join(t.TempDir(), "release.parquet")
	if err := run(dir, out, defaultK); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join("..", "..", "testdata", "demo", "release.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("testdata/demo/release.parquet is stale: run go run ./internal/demopool from the repository root")
	}
}
