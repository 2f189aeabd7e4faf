package stats

import (
	"math"
	"math/bits"
	"sort"
)

// exactBelow is the value under which hist counts every value exactly.
const exactBelow = 4096

// hist counts non-negative integers in bounded memory: one counter per value
// below exactBelow (grown as values appear), and above that one counter per
// 1/64 of a power of two, so a quantile there is off by at most 1/64 of
// the value. Lengths of turns and dialogues are almost always exact.
type hist struct {
	small         []int64
	big           map[uint32]int64 // bucket -> count, for values >= exactBelow
	n, sum        int64
	min, max      int64
	sumOverflowed bool
}

func (h *hist) add(v int64) {
	if v < 0 {
		v = 0
	}
	if h.n == 0 || v < h.min {
		h.min = v
	}
	if v > h.max {
		h.max = v
	}
	h.n++
	if s := h.sum + v; s >= h.sum {
		h.sum = s
	} else {
		h.sumOverflowed = true
	}
	if v < exactBelow {
		if int(v) >= len(h.small) {
			n := max(int(v)+1, 2*len(h.small))
			h.small = append(h.small, make([]int64, min(n, exactBelow)-len(h.small))...)
		}
		h.small[v]++
		return
	}
	if h.big == nil {
		h.big = map[uint32]int64{}
	}
	h.big[bucketOf(v)]++
}

// bucketOf maps v >= exactBelow to a log-linear bucket: the power of two
// and the top 6 bits below its leading one.
func bucketOf(v int64) uint32 {
	e := 63 - bits.LeadingZeros64(uint64(v))
	return uint32(e)<<6 | uint32((uint64(v)>>(e-6))&63)
}

// bucketMid is the middle of a bucket's value range.
func bucketMid(b uint32) int64 {
	e := int(b >> 6)
	lo := int64(1)<<e | int64(b&63)<<(e-6)
	return lo + int64(1)<<(e-6)/2
}

// quantile returns the nearest-rank q-quantile.
func (h *hist) quantile(q float64) float64 {
	if h.n == 0 {
		return 0
	}
	rank := int64(math.Ceil(q * float64(h.n)))
	rank = max(rank, 1)
	var seen int64
	for v, c := range h.small {
		if seen += c; seen >= rank {
			return float64(v)
		}
	}
	for _, b := range h.bigKeys() {
		if seen += h.big[b]; seen >= rank {
			return float64(min(bucketMid(b), h.max))
		}
	}
	return float64(h.max)
}

func (h *hist) bigKeys() []uint32 {
	keys := make([]uint32, 0, len(h.big))
	for b := range h.big {
		keys = append(keys, b)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	return keys
}

// MaxBins bounds the histogram bins of a Summary; a chart sizes its bars for it.
const MaxBins = 30

// summary describes the distribution. The chart bins have equal width over
// Min..P99 (integer widths); the last bin also takes everything above, so a
// long tail does not squash the body of the distribution into one bin.
func (h *hist) summary() Summary {
	s := Summary{N: h.n, Min: h.min, Max: h.max, Hist: []Bin{}}
	if h.n == 0 {
		return s
	}
	s.Mean = float64(h.sum) / float64(h.n)
	if h.sumOverflowed {
		s.Mean = math.NaN()
	}
	s.Median = h.quantile(0.5)
	s.P95 = h.quantile(0.95)
	top := int64(h.quantile(0.99))
	width := max((top-h.min+1+MaxBins-1)/MaxBins, 1)
	nbins := (top-h.min)/width + 1
	bins := make([]Bin, nbins)
	for i := range bins {
		bins[i] = Bin{Lo: h.min + int64(i)*width, Hi: h.min + int64(i+1)*width - 1}
	}
	bins[len(bins)-1].Hi = h.max
	put := func(v, c int64) {
		i := min((v-h.min)/width, nbins-1)
		bins[i].Count += c
	}
	for v, c := range h.small {
		if c > 0 {
			put(int64(v), c)
		}
	}
	for b, c := range h.big {
		put(min(bucketMid(b), h.max), c)
	}
	s.Hist = bins
	return s
}
