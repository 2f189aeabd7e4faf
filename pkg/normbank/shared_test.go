package normbank

import "testing"

// SharedProfile reads a culture once per user culture folder: the same
// profile comes back, and an unknown culture's error too.
func TestSharedProfile(t *testing.T) {
	t.Setenv("NG_CULTURES_DIR", t.TempDir())
	a, err := SharedProfile("korean")
	if err != nil {
		t.Fatal(err)
	}
	b, err := SharedProfile(" Korean ")
	if err != nil || a != b || a.Lang != "ko" {
		t.Errorf("second read: %p %v, first %p (lang %q)", b, err, a, a.Lang)
	}
	if _, err := SharedProfile("nowhere"); err == nil {
		t.Error("unknown culture: no error")
	}
	if _, err := SharedProfile("nowhere"); err == nil {
		t.Error("unknown culture, cached: no error")
	}
	t.Setenv("NG_CULTURES_DIR", t.TempDir())
	if c, err := SharedProfile("korean"); err != nil || c == a {
		t.Errorf("another user folder gave the cached profile (%v)", err)
	}
}
