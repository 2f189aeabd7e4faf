package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestDataUpToDate regenerates the data from the release, when it is here
// ($NG_RELEASE_DIR or ../shared/data/normgenesis beside the repository),
// and checks that the committed files are what the generator writes.
func TestDataUpToDate(t *testing.T) {
	if testing.Short() {
		t.Skip("reads the whole release")
	}
	root := moduleRoot()
	dir := DefaultReleaseDir(root)
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("no release at %s (set NG_RELEASE_DIR)", dir)
	}
	files, err := Generate(dir, DefaultK, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		p := filepath.Join(root, "pkg", "normbank", "data", name)
		got, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is out of date: run go run ./internal/normbankgen", p)
		}
	}
}

// Two runs give the same bytes.
func TestGenerateDeterministic(t *testing.T) {
	dir := filepath.Join(moduleRoot(), "testdata", "normgenesis")
	a, err := Generate(dir, DefaultK, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Generate(dir, DefaultK, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != 5 {
		t.Fatalf("%d files", len(a))
	}
	for name := range a {
		if !bytes.Equal(a[name], b[name]) {
			t.Errorf("%s differs between runs", name)
		}
		if len(a[name]) == 0 {
			t.Errorf("%s is empty", name)
		}
	}
}
