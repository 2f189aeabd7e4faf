package stats

import (
	"github.com/ngkit/ngkit/pkg/memlimit"
	"github.com/ngkit/ngkit/pkg/record"
)

// u64set is a set of 64-bit hashes with open addressing: several times
// faster than map[uint64]struct{} for the million n-gram inserts of a
// release, at 8 bytes a slot and at most 50% load.
type u64set struct {
	slots []uint64 // 0 = empty; the value 0 is stored as zeroKey
	n     int
	zero  bool // 0 itself is in the set
}

// add inserts h and reports whether it was new.
func (s *u64set) add(h uint64) bool {
	if h == 0 {
		had := s.zero
		s.zero = true
		if !had {
			s.n++
		}
		return !had
	}
	if 2*(s.n+1) > len(s.slots) {
		s.grow()
	}
	mask := uint64(len(s.slots) - 1)
	for i := record.Mix64(h) & mask; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case h:
			return false
		case 0:
			s.slots[i] = h
			s.n++
			return true
		}
	}
}

func (s *u64set) grow() {
	old := s.slots
	s.slots = make([]uint64, max(2*len(old), 1024))
	memlimit.Reserve(8 * int64(len(s.slots)-len(old))) // kept to the end, grows with the corpus
	mask := uint64(len(s.slots) - 1)
	for _, h := range old {
		if h == 0 {
			continue
		}
		i := record.Mix64(h) & mask
		for s.slots[i] != 0 {
			i = (i + 1) & mask
		}
		s.slots[i] = h
	}
}

func (s *u64set) len() int { return s.n }
