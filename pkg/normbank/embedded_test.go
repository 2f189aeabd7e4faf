package normbank

import (
	"bytes"
	"os"
	"testing"
)

// The embedded .zst files hold exactly the .jsonl files beside them (the
// reviewed text): internal/normbankgen writes both.
func TestEmbeddedDataMatchesJSONL(t *testing.T) {
	for name, zst := range map[string][]byte{"norms.jsonl": normsZst, "exemplars.jsonl": exemplarsZst} {
		want, err := os.ReadFile("data/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if got := unzstd(name, zst); !bytes.Equal(got, want) {
			t.Errorf("data/%s.zst does not hold data/%s (%d against %d bytes): run go run ./internal/normbankgen", name, name, len(got), len(want))
		}
	}
}
