package dedup

import (
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
)

// TestIndexUnderSoftLimit: an index kept while it grows past the process'
// soft memory limit (a streaming program's, pkg/memlimit) does not keep
// the garbage collector running: it reserves what it holds. 100,000
// signatures under a limit 16 MiB above what the process held took 1,625
// GC cycles without the reservation, 30 with it.
func TestIndexUnderSoftLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 40 MB index")
	}
	t.Setenv("GOMEMLIMIT", "")
	// 16 MiB above what the process holds already (other tests' data),
	// its free memory returned to the system first: free pages count
	// toward the limit, and the data would grow into them.
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(int64(ms.Sys-ms.HeapReleased) + 16<<20))
	defer debug.SetGCPercent(debug.SetGCPercent(200))
	cycles := func() uint64 {
		s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
		metrics.Read(s)
		return s[0].Value.Uint64()
	}
	before := cycles()
	ix := NewIndex(0.8)
	rng := rand.New(rand.NewPCG(3, 4))
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
	if n := cycles() - before; n > 100 {
		t.Errorf("%d GC cycles building the index under a 16 MiB soft limit, want at most 100", n)
	} else {
		t.Logf("%d GC cycles", n)
	}
}
