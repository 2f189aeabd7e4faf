// Package cat holds what ngcat does to a record stream besides converting
// it: --head, --sample and --split as pipeline sinks that wrap the sink
// that writes the output, --dedup as one, and --where and --drop-defects
// as a stage (Drop).
package cat

import (
	"container/heap"
	"hash/fnv"
	"sort"
	"strconv"

	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/record"
)

// Head passes the first N records, then stops the run.
type Head struct {
	pipeline.Sink
	N, n int
}

// Write implements pipeline.Sink.
func (h *Head) Write(r *record.Record) error {
	h.n++
	if err := h.Sink.Write(r); err != nil {
		return err
	}
	if h.n >= h.N {
		return pipeline.ErrStop
	}
	return nil
}

// Sample keeps N records chosen by a seeded hash of their ids — the same
// records whatever the input order, format or sharding — and writes them
// in input order when the input ends. Memory: N records.
type Sample struct {
	pipeline.Sink
	N    int
	Seed int64
	seq  int64
	h    sampleHeap
}

type sampled struct {
	key uint64
	seq int64
	rec *record.Record
}

// sampleHeap is a max-heap on key: the root is the first to evict.
type sampleHeap []sampled

func (h sampleHeap) Len() int           { return len(h) }
func (h sampleHeap) Less(i, j int) bool { return h[i].key > h[j].key }
func (h sampleHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *sampleHeap) Push(x any)        { *h = append(*h, x.(sampled)) }
func (h *sampleHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func sampleKey(seed int64, id string) uint64 {
	f := fnv.New64a()
	f.Write([]byte(strconv.FormatInt(seed, 10)))
	f.Write([]byte{0})
	f.Write([]byte(id))
	// FNV's low bits mix poorly for short inputs: finish with a 64-bit mixer.
	x := f.Sum64()
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return x
}

// Write implements pipeline.Sink.
func (s *Sample) Write(r *record.Record) error {
	it := sampled{key: sampleKey(s.Seed, r.ID), seq: s.seq, rec: r}
	s.seq++
	switch {
	case s.N <= 0:
	case len(s.h) < s.N:
		heap.Push(&s.h, it)
	case it.key < s.h[0].key:
		s.h[0] = it
		heap.Fix(&s.h, 0)
	}
	return nil
}

// Close writes the sample in input order, then closes the output.
func (s *Sample) Close() error {
	items := []sampled(s.h)
	sort.Slice(items, func(i, j int) bool { return items[i].seq < items[j].seq })
	for _, it := range items {
		if err := s.Sink.Write(it.rec); err != nil {
			s.Sink.Abort()
			return err
		}
	}
	return s.Sink.Close()
}

// SplitFiles routes each record to the sink of its split.
type SplitFiles struct {
	Splits []record.Split
	Sinks  map[string]pipeline.Sink
}

// Write implements pipeline.Sink.
func (s *SplitFiles) Write(r *record.Record) error {
	return s.Sinks[record.AssignSplit(s.Splits, r.ID)].Write(r)
}

// Close implements pipeline.Sink: every split file is committed, even an
// empty one, so scripts find all the files they asked for.
func (s *SplitFiles) Close() error {
	var first error
	for _, sp := range s.Splits {
		if err := s.Sinks[sp.Name].Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Abort implements pipeline.Sink.
func (s *SplitFiles) Abort() {
	for _, k := range s.Sinks {
		k.Abort()
	}
}

// SplitField tags each record with its split in the extra field "split",
// for a single output.
type SplitField struct {
	pipeline.Sink
	Splits []record.Split
}

// Write implements pipeline.Sink.
func (s *SplitField) Write(r *record.Record) error {
	r.SetExtra("split", record.AssignSplit(s.Splits, r.ID))
	return s.Sink.Write(r)
}
