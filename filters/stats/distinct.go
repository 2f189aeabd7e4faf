package stats

import (
	"math"
	"math/bits"
)

// DistinctExactLimit is the number of distinct n-grams per language and n
// that are counted exactly; past it distinct-n is estimated (HyperLogLog,
// standard error about 0.8%) and the exact set is dropped to bound memory.
const DistinctExactLimit = 1 << 19

// distinct counts distinct 64-bit n-gram hashes: exactly while the set is
// small, by HyperLogLog always (so the switch loses nothing).
type distinct struct {
	set   *u64set // nil once past DistinctExactLimit
	hll   hll
	total int64
}

func newDistinct() *distinct {
	return &distinct{set: &u64set{}}
}

func (d *distinct) add(h uint64) {
	d.total++
	d.hll.add(h)
	if d.set != nil {
		d.set.add(h)
		if d.set.len() > DistinctExactLimit {
			d.set = nil
		}
	}
}

// ratio is distinct / total, and whether it is an estimate.
func (d *distinct) ratio() (float64, bool) {
	if d.total == 0 {
		return 0, false
	}
	if d.set != nil {
		return float64(d.set.len()) / float64(d.total), false
	}
	return math.Min(d.hll.estimate()/float64(d.total), 1), true
}

// hll is a HyperLogLog sketch with 2^14 registers.
type hll struct {
	reg []uint8
}

const hllP = 14

func (h *hll) add(x uint64) {
	if h.reg == nil {
		h.reg = make([]uint8, 1<<hllP)
	}
	idx := x >> (64 - hllP)
	rank := uint8(bits.LeadingZeros64(x<<hllP|1<<(hllP-1)) + 1)
	if rank > h.reg[idx] {
		h.reg[idx] = rank
	}
}

func (h *hll) estimate() float64 {
	m := float64(len(h.reg))
	if m == 0 {
		return 0
	}
	var sum float64
	zeros := 0
	for _, r := range h.reg {
		sum += math.Ldexp(1, -int(r))
		if r == 0 {
			zeros++
		}
	}
	e := 0.7213 / (1 + 1.079/m) * m * m / sum
	if e <= 2.5*m && zeros > 0 {
		e = m * math.Log(m/float64(zeros)) // linear counting for small sets
	}
	return e
}
