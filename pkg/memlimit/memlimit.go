// Package memlimit keeps the process' soft memory limit above the data that
// lives until the process ends.
//
// A streaming program sets a soft limit sized for its buffers (cmd/internal/app's
// tuneGC: 80 MiB), which keeps its peak RSS flat on corpora of any size.
// Data that grows with the corpus and is kept (ngstats' near-duplicate
// index, its sets of hashes, lingua's models) would sit under that limit
// once it passes it, and the garbage collector would then run without
// pause: ngstats on 8x the release ran 1,279 GC cycles and took 15.8x the
// CPU of 1x. The owners of such data Reserve what it takes as it grows, so
// the limit bounds the garbage, as it was chosen to, and not the kept data.
package memlimit

import (
	"math"
	"os"
	"runtime/debug"
	"sync"
)

var mu sync.Mutex

// Reserve raises the soft memory limit by n bytes, when a limit is set and
// not by the user's GOMEMLIMIT (which wins). It is never lowered again:
// Reserve is for data kept until the process ends.
func Reserve(n int64) {
	if n <= 0 || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	mu.Lock()
	defer mu.Unlock()
	if cur := debug.SetMemoryLimit(-1); cur != math.MaxInt64 {
		debug.SetMemoryLimit(cur + min(n, math.MaxInt64-1-cur)) // not MaxInt64: that reads as "no limit set"
	}
}
