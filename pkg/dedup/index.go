package dedup

import (
	"encoding/binary"
	"math"
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
type Index struct {
	threshold   float64
	bands, rows int
	sigs        []Signature
	cluster     []int32              // the cluster (first member) of each signature
	buckets     []map[uint64][]int32 // per band: band hash -> signatures
	cand        map[int32]struct{}
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
	ix := &Index{threshold: threshold, bands: bands, rows: rows, buckets: make([]map[uint64][]int32, bands), cand: map[int32]struct{}{}}
	for i := range ix.buckets {
		ix.buckets[i] = map[uint64][]int32{}
	}
	return ix
}

// Threshold is the index's similarity threshold.
func (ix *Index) Threshold() float64 { return ix.threshold }

// Len is the number of signatures added.
func (ix *Index) Len() int { return len(ix.sigs) }

func (ix *Index) bandKey(sig *Signature, b int) uint64 {
	var buf [2 * K]byte
	n := 0
	for _, v := range sig[b*ix.rows : (b+1)*ix.rows] {
		binary.LittleEndian.PutUint16(buf[n:], v)
		n += 2
	}
	return hashBytes(buf[:n])
}

// Add files sig as the n-th signature (n = Len() before the call) and
// returns the cluster it joined — the number of its first signature, n
// itself for a new cluster — and the similarity to the earlier signature
// that put it there (1 for a new cluster).
func (ix *Index) Add(sig Signature) (cluster int, sim float64) {
	clear(ix.cand)
	keys := make([]uint64, ix.bands)
	for b := range keys {
		keys[b] = ix.bandKey(&sig, b)
		for _, j := range ix.buckets[b][keys[b]] {
			ix.cand[j] = struct{}{}
		}
	}
	n := int32(len(ix.sigs))
	cl, best := n, 1.0
	first := int32(-1)
	for j := range ix.cand {
		if first >= 0 && j > first {
			continue // a later match cannot win
		}
		if s := Similarity(&sig, &ix.sigs[j]); s >= ix.threshold {
			first, best = j, s
		}
	}
	if first >= 0 {
		cl = ix.cluster[first]
	}
	ix.sigs = append(ix.sigs, sig)
	ix.cluster = append(ix.cluster, cl)
	for b, k := range keys {
		ix.buckets[b][k] = append(ix.buckets[b][k], n)
	}
	return int(cl), best
}
