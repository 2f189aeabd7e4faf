package dedup

import (
	"math/rand/v2"
	"testing"

	"github.com/ngkit/ngkit/internal/memtest"
)

// TestIndexUnderSoftLimit: an index kept while it grows past the process'
// soft memory limit (a streaming program's, pkg/memlimit) does not keep
// the garbage collector running: it reserves what it holds. 100,000
// signatures under a limit 16 MiB above what the process held took
// 111-1,625 GC cycles without the reservation (fewer on a busy machine),
// 29-35 with it.
func TestIndexUnderSoftLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 40 MB index")
	}
	ix := NewIndex(0.8)
	rng := rand.New(rand.NewPCG(3, 4))
	n := memtest.GCCycles(t, 16<<20, func() {
		var garbage []byte
		for range 100_000 {
			var sig Signature
			for k := range sig {
				sig[k] = uint16(rng.Uint32())
			}
			ix.Add(sig)
			garbage = make([]byte, 1024) // a record's worth of short-lived work
		}
		_ = garbage
	})
	if n > 60 {
		t.Errorf("%d GC cycles building the index under a 16 MiB soft limit, want at most 60", n)
	} else {
		t.Logf("%d GC cycles", n)
	}
}
