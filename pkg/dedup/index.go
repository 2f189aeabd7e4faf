package dedup

import (
	"math"
	"slices"
	"unsafe"

	"github.com/ngkit/ngkit/pkg/memlimit"
)

// Index clusters signatures as they come: a signature joins the cluster of
// the first earlier signature it is similar to (estimated Jaccard at least
// Threshold), or starts a cluster of its own. So the first text of each
// cluster is the one a deduplication keeps, and a streaming run decides
// each text when it sees it.
//
// Candidates are found by LSH: the signature is cut into bands of rows; two
// signatures that agree on all the rows of some band are compared. The
// band width is picked from the threshold so that pairs at the threshold
// are found with probability above 99.9%.
//
// The buckets of all bands are one open-addressed table (no map, no slice
// per bucket): a band's key leads to the last signature filed under it,
// and each signature links, per band, to the one filed before it under the
// same key.
type Index struct {
	threshold   float64
	bands, rows int
	sigs        []Signature
	cluster     []int32 // the cluster (first member) of each signature
	keys        []uint64
	heads       []int32 // by slot: 1 + the last signature filed under keys[slot]; 0 empty
	used        int     // slots taken
	next        []int32 // [n*bands+b]: 1 + the signature before n under n's key of band b; 0 none
	seen        []int32 // by signature: 1 + the last Add that took it as a candidate
	cand        []int32
	bkeys       []uint64 // of the signature being added, by band
	reserved    int64    // bytes of the arrays above reserved with pkg/memlimit
}

// NewIndex returns an empty index for a similarity threshold in (0, 1].
func NewIndex(threshold float64) *Index {
	// Rows per band: the most (fewest false candidates) for which a pair
	// at the threshold shares a band with probability 1-(1-t^r)^b >= 99.9%.
	rows := 1
	for r := 16; r > 1; r-- {
		if 1-math.Pow(1-math.Pow(threshold, float64(r)), float64(K/r)) >= 0.999 {
			rows = r
			break
		}
	}
	bands := K / rows
	return &Index{threshold: threshold, bands: bands, rows: rows,
		keys: make([]uint64, 1024), heads: make([]int32, 1024),
		bkeys: make([]uint64, bands)}
}

// Threshold is the index's similarity threshold.
func (ix *Index) Threshold() float64 { return ix.threshold }

// Len is the number of signatures added.
func (ix *Index) Len() int { return len(ix.sigs) }

// bandKey hashes band b's rows with b (one table holds every band).
func (ix *Index) bandKey(sig *Signature, b int) uint64 {
	h := uint64(b+1) * 0x9e3779b97f4a7c15
	for _, v := range sig[b*ix.rows : (b+1)*ix.rows] {
		h = (h ^ uint64(v)) * 0x100000001b3 // FNV-1a over 16-bit values
	}
	h = (h ^ h>>30) * 0xbf58476d1ce4e5b9 // and a finalizer: the table uses the low bits
	h = (h ^ h>>27) * 0x94d049bb133111eb
	return h ^ h>>31
}

// slot is where key is in the table, or the empty slot it would take.
func (ix *Index) slot(key uint64) int {
	mask := len(ix.keys) - 1
	for i := int(key) & mask; ; i = (i + 1) & mask {
		if ix.heads[i] == 0 || ix.keys[i] == key {
			return i
		}
	}
}

// grow doubles the table when adding a signature's keys could fill more
// than three quarters of it.
func (ix *Index) grow() {
	if (ix.used+ix.bands)*4 <= len(ix.keys)*3 {
		return
	}
	keys, heads := ix.keys, ix.heads
	ix.keys, ix.heads = make([]uint64, 2*len(keys)), make([]int32, 2*len(keys))
	for i, h := range heads {
		if h != 0 {
			s := ix.slot(keys[i])
			ix.keys[s], ix.heads[s] = keys[i], h
		}
	}
}

// Add files sig as the n-th signature (n = Len() before the call) and
// returns the cluster it joined — the number of its first signature, n
// itself for a new cluster — and the similarity to the earlier signature
// that put it there (1 for a new cluster).
func (ix *Index) Add(sig Signature) (cluster int, sim float64) {
	ix.grow()
	n := int32(len(ix.sigs))
	ix.cand = ix.cand[:0]
	for b := range ix.bands {
		ix.bkeys[b] = ix.bandKey(&sig, b)
		for j := ix.heads[ix.slot(ix.bkeys[b])]; j != 0; j = ix.next[int(j-1)*ix.bands+b] {
			if ix.seen[j-1] != n+1 {
				ix.seen[j-1] = n + 1
				ix.cand = append(ix.cand, j-1)
			}
		}
	}
	// The first similar candidate wins.
	slices.Sort(ix.cand)
	cl, best, win := n, 1.0, int32(-1)
	for _, j := range ix.cand {
		if s := Similarity(&sig, &ix.sigs[j]); s >= ix.threshold {
			cl, best, win = ix.cluster[j], s, j
			break
		}
	}
	ix.sigs = append(ix.sigs, sig)
	ix.cluster = append(ix.cluster, cl)
	ix.seen = append(ix.seen, 0)
	if win >= 0 && ix.sigs[win] == sig {
		// An exact copy is not filed: a later signature similar to it is
		// as similar to the earlier one, which comes first and wins. So
		// the chains of a corpus of copies stay as long as of one copy
		// (on 8 copies of the release Add took 0.77 s of CPU, 1.78 filing them).
		ix.next = append(ix.next, make([]int32, ix.bands)...)
		ix.reserve()
		return int(cl), best
	}
	for _, k := range ix.bkeys {
		s := ix.slot(k) // again: an earlier band may have taken the empty slot found
		switch ix.heads[s] {
		case 0:
			ix.keys[s] = k
			ix.used++
		case n + 1:
			// Two bands' keys the same (a 64-bit collision): filed once,
			// so that every link leads to an earlier signature.
			ix.next = append(ix.next, 0)
			continue
		}
		ix.next = append(ix.next, ix.heads[s])
		ix.heads[s] = n + 1
	}
	ix.reserve()
	return int(cl), best
}

// reserve raises the soft memory limit by what the index's arrays grew by
// (pkg/memlimit): the index is kept to the end and grows with the corpus.
func (ix *Index) reserve() {
	n := int64(cap(ix.sigs))*int64(unsafe.Sizeof(Signature{})) + 8*int64(cap(ix.keys)) +
		4*int64(cap(ix.heads)+cap(ix.cluster)+cap(ix.next)+cap(ix.seen))
	if n > ix.reserved {
		memlimit.Reserve(n - ix.reserved)
		ix.reserved = n
	}
}
