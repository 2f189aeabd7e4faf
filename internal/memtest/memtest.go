// Package memtest runs test code under a soft memory limit and counts the
// garbage collector's cycles: the check that data kept while it grows
// reserves what it holds (pkg/memlimit).
package memtest

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
)

// GCCycles runs f under a soft memory limit headroom bytes above what the
// process holds (other tests' data; its free memory returned to the system
// first, since free pages count toward the limit and the data would grow
// into them), with GOGC at 200 as the programs run, and returns the GC
// cycles that f took.
func GCCycles(t testing.TB, headroom int64, f func()) uint64 {
	t.Helper()
	t.Setenv("GOMEMLIMIT", "") // pkg/memlimit leaves a limit of the user's alone
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(int64(ms.Sys-ms.HeapReleased) + headroom))
	defer debug.SetGCPercent(debug.SetGCPercent(200))
	before := cycles()
	f()
	return cycles() - before
}

func cycles() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
