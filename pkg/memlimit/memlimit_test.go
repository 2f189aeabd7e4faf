package memlimit

import (
	"math"
	"runtime/debug"
	"testing"
)

func TestReserve(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	for _, c := range []struct {
		name     string
		env      string
		limit, n int64
		want     int64
	}{
		{"raised", "", 64 << 20, 1 << 20, 65 << 20},
		{"no limit set: none set", "", math.MaxInt64, 1 << 20, math.MaxInt64},
		{"the user's GOMEMLIMIT wins", "100MiB", 64 << 20, 1 << 20, 64 << 20},
		{"nothing to reserve", "", 64 << 20, -5, 64 << 20},
		{"no overflow into no limit", "", math.MaxInt64 - 10, 100, math.MaxInt64 - 1},
	} {
		t.Setenv("GOMEMLIMIT", c.env)
		debug.SetMemoryLimit(c.limit)
		Reserve(c.n)
		if got := debug.SetMemoryLimit(-1); got != c.want {
			t.Errorf("%s: limit %d after Reserve(%d) from %d, want %d", c.name, got, c.n, c.limit, c.want)
		}
	}
}
