// Package golden compares what a test produced with a golden file under
// testdata; `go test ./pkg -update` rewrites the files instead (then review
// the diff before committing it).
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files instead of comparing with them")

// Check compares got with the file at path, or writes it there with
// -update. On a difference it fails the test and keeps got in a temporary
// file to diff against.
func Check(t testing.TB, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	if got != string(want) {
		out := filepath.Join(t.TempDir(), filepath.Base(path))
		if err := os.WriteFile(out, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Errorf("%s differs from what the test produced, kept in %s: diff them; go test -update rewrites the golden file", path, out)
	}
}
