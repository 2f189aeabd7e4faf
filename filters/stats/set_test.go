package stats

import (
	"testing"

	"github.com/ngkit/ngkit/internal/memtest"
)

// TestSetUnderSoftLimit: a hash set kept while it grows past the process'
// soft memory limit reserves what it holds (pkg/memlimit), so the garbage
// collector does not run without pause: 2 million hashes under a limit 16
// MiB above what the process held took 111-189 GC cycles without the
// reservation, 25-28 with it.
func TestSetUnderSoftLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 32 MB set")
	}
	var s u64set
	n := memtest.GCCycles(t, 16<<20, func() {
		var garbage []byte
		for i := range uint64(2_000_000) {
			if !s.add(i*0x9e3779b97f4a7c15 + 1) {
				t.Fatalf("hash %d reported as seen", i)
			}
			if i%8 == 0 {
				garbage = make([]byte, 1024)
			}
		}
		_ = garbage
	})
	if s.n != 2_000_000 {
		t.Fatalf("%d in the set, want 2000000", s.n)
	}
	if n > 60 {
		t.Errorf("%d GC cycles building the set under a 16 MiB soft limit, want at most 60", n)
	} else {
		t.Logf("%d GC cycles", n)
	}
}
