package recio

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ReadAll returns every record in order, and a bad line's error naming
// the file and line.
func TestReadAll(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.jsonl")
	if err := os.WriteFile(good, []byte("{\"id\":\"a\"}\n{\"id\":\"b\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	recs, err := ReadAll(good)
	if err != nil || len(recs) != 2 || recs[0].ID != "a" || recs[1].ID != "b" {
		t.Fatalf("%v, %v", recs, err)
	}
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{\"id\":\"a\"}\n{oops\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadAll(bad); err == nil || !strings.Contains(err.Error(), "bad.jsonl:line 2:") {
		t.Fatalf("bad line: %v", err)
	}
}
