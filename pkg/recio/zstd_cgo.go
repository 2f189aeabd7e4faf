//go:build cgo

package recio

import (
	"fmt"
	"sync"

	ddzstd "github.com/DataDog/zstd"
)

// ZstdEncoder names the zstd encoder of Parquet output in this build;
// zstdInGoHeap says whether its state is Go heap (for the memory test).
const (
	ZstdEncoder  = "libzstd (cgo)"
	zstdInGoHeap = false
)

// zstdCtxs are the idle libzstd contexts (a context serves one goroutine
// at a time; reusing one saves allocating its tables). A free list, not a
// sync.Pool: the pool is emptied at every GC, and the C memory of the
// contexts it dropped, freed only by their finalizers later, raised the
// release import's peak RSS by 30 MiB. There are as many as pages were
// ever compressed at once: one per encoding goroutine.
var zstdCtxs struct {
	sync.Mutex
	idle []ddzstd.Ctx
}

func getZstdCtx() ddzstd.Ctx {
	zstdCtxs.Lock()
	defer zstdCtxs.Unlock()
	if n := len(zstdCtxs.idle); n > 0 {
		c := zstdCtxs.idle[n-1]
		zstdCtxs.idle = zstdCtxs.idle[:n-1]
		return c
	}
	return ddzstd.NewCtx()
}

func putZstdCtx(c ddzstd.Ctx) {
	zstdCtxs.Lock()
	zstdCtxs.idle = append(zstdCtxs.idle, c)
	zstdCtxs.Unlock()
}

// encodeZstd is one zstd frame of src at level, in dst's storage when its
// capacity reaches zstd's bound.
func encodeZstd(dst, src []byte, level int) []byte {
	ctx := getZstdCtx()
	defer putZstdCtx(ctx)
	out, err := ctx.CompressLevel(dst, src, level)
	if err != nil {
		// Only a level outside zstd's range or an allocation failure
		// get here; the writer's recover turns this into an error.
		panic(fmt.Sprintf("zstd level %d: %v", level, err))
	}
	return out
}
