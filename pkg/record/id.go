package record

import (
	"crypto/sha256"
	"encoding/hex"
	"hash/fnv"
	"strings"
)

// NewID derives a stable id from the parts a record was derived from: the
// same parts always give the same id, so reruns are reproducible and
// --resume can match them. It is 16 hex digits (64 bits) of SHA-256.
func NewID(parts ...string) string {
	h := sha256.New()
	for i, p := range parts {
		if i > 0 {
			h.Write([]byte{0x1f}) // unit separator: ("ab","c") != ("a","bc")
		}
		h.Write([]byte(p))
	}
	var sum [sha256.Size]byte
	return hex.EncodeToString(h.Sum(sum[:0])[:8])
}

// NormID is the stable id of a norm: its culture, category and text, with
// surrounding space and letter case ignored.
func NormID(culture, category, norm string) string {
	return "n" + NewID(strings.ToLower(culture), strings.ToLower(category), strings.TrimSpace(norm))[:12]
}

// Bucket maps an id to one of n buckets (FNV-1a), the same on every machine:
// it is what --shard K/N and deterministic splits use.
func Bucket(id string, n int) int {
	if n <= 1 {
		return 0
	}
	h := fnv.New64a()
	h.Write([]byte(id))
	return int(h.Sum64() % uint64(n))
}

// Unit maps an id to a number in [0,1), uniformly and deterministically.
func Unit(id string) float64 {
	h := fnv.New64a()
	h.Write([]byte("unit:"))
	h.Write([]byte(id))
	return float64(h.Sum64()>>11) / float64(1<<53)
}

// ContentID is the id of a record that came without one: a hash of its
// content (its JSON encoding, keys in a fixed order), so the same input
// gets the same id on every run and machine.
func ContentID(r *Record) string {
	b, err := r.AppendJSON(nil)
	if err != nil {
		b = []byte(r.Scenario + "\x1f" + r.Situation + "\x1f" + r.Norm)
	}
	return NewID("content", string(b))
}

// Mix64 is splitmix64's finalizer: it spreads the bits of a hash (the low
// bits of an FNV hash alone are poorly mixed) for draws made from ids.
func Mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}
