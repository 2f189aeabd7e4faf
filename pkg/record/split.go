package record

// Splits of a dataset by record id ("train=0.9,test=0.1"): ngcat --split and
// the Hugging Face folder of ngcat --hf share them.

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
)

// Split is one named part of a --split spec.
type Split struct {
	Name  string
	Share float64
}

// ParseSplits parses "train=0.9,test=0.1"; shares must be positive and sum
// to 1 (within rounding).
func ParseSplits(spec string) ([]Split, error) {
	var out []Split
	sum := 0.0
	seen := map[string]bool{}
	for _, part := range strings.Split(spec, ",") {
		name, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		share, err := strconv.ParseFloat(v, 64)
		if !ok || err != nil || share <= 0 || name == "" {
			return nil, fmt.Errorf("--split %q: want NAME=SHARE,... with shares > 0, e.g. train=0.9,test=0.1", spec)
		}
		if seen[name] {
			return nil, fmt.Errorf("--split %q: %s named twice", spec, name)
		}
		seen[name] = true
		out = append(out, Split{name, share})
		sum += share
	}
	if sum < 0.999 || sum > 1.001 {
		return nil, fmt.Errorf("--split %q: shares sum to %g, want 1", spec, sum)
	}
	return out, nil
}

// AssignSplit picks the split of an id: deterministic, independent of input
// order and of --shard, and stable when shares change little.
func AssignSplit(splits []Split, id string) string {
	u := splitUnit(id)
	acc := 0.0
	for _, s := range splits {
		acc += s.Share
		if u < acc {
			return s.Name
		}
	}
	return splits[len(splits)-1].Name
}

// splitUnit maps an id to [0,1) for AssignSplit. FNV-1a alone (Unit) leaves
// its top bits poorly mixed for ids that differ in their last characters,
// the commonest shape (row-1 .. row-N went 70/30 at train=0.9,test=0.1):
// splitmix64's finalizer spreads every bit of the hash before the top 53
// are taken.
func splitUnit(id string) float64 {
	h := fnv.New64a()
	h.Write([]byte("split:"))
	h.Write([]byte(id))
	return float64(Mix64(h.Sum64())>>11) / float64(1<<53)
}
