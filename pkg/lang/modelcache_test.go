package lang

import (
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/pemistahl/lingua-go"
)

// TestMain keeps this package's model indexes in a folder of its own (a
// new one per run, or NG_LANG_TEST_CACHE), not the user's cache.
func TestMain(m *testing.M) {
	if dir := os.Getenv("NG_LANG_TEST_CACHE"); dir != "" { // BenchmarkDetectorLoad's child
		modelCacheDir = func() string { return dir }
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "ngkit-lang-test-")
	if err != nil {
		panic(err)
	}
	modelCacheDir = func() string { return dir }
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// indexEntries is every n-gram of x with its probability.
func indexEntries(x *ngramIndex) map[string]float64 {
	m := map[string]float64{}
	x.each(func(g string, p float64) { m[g] = p })
	return m
}

func sameIndex(t *testing.T, what string, got, want *ngramIndex) {
	t.Helper()
	g, w := indexEntries(got), indexEntries(want)
	if len(g) != len(w) {
		t.Fatalf("%s: %d n-grams, want %d", what, len(g), len(w))
	}
	for k, p := range w {
		if q, ok := g[k]; !ok || q != p {
			t.Fatalf("%s: %q = %v, %v; want %v", what, k, q, ok, p)
		}
		if q, ok := got.lookup(k); !ok || q != p {
			t.Fatalf("%s: lookup(%q) = %v, %v; want %v", what, k, q, ok, p)
		}
	}
}

// TestModelCache: a decoded model is stored in the cache folder and read
// back from it as the same index; a file that fails a check is decoded
// again and replaced; a link is not followed, and a folder others may
// write is not used.
func TestModelCache(t *testing.T) {
	dir := t.TempDir()
	old := modelCacheDir
	modelCacheDir = func() string { return dir }
	defer func() { modelCacheDir = old }()

	fresh, err := decodeModel(lingua.English, 3) // decoded, and stored
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "en-3-*.idx"))
	if len(files) != 1 {
		t.Fatalf("cache files %q, want one en-3-*.idx", files)
	}
	path := files[0]
	name := filepath.Base(path)
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("cache file mode %04o, want 0600", st.Mode().Perm())
	}
	x, err := readIndex(dir, name)
	if err != nil {
		t.Fatal(err)
	}
	sameIndex(t, "read back", x, fresh)
	// And by another process, which hashes alike.
	cmd := exec.Command(os.Args[0], "-test.run=^TestModelCacheChild$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "NG_LANG_CACHE_CHILD="+path)
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "CHILD READ THE INDEX") {
		t.Fatalf("another process reading the index: %v\n%s", err, out)
	}

	// decodeModel reads the cache: a valid index of other n-grams under
	// the model's name is what it returns.
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	other, err := decodeModel(lingua.English, 2)
	if err != nil {
		t.Fatal(err)
	}
	if err := writeIndex(dir, name, other); err != nil {
		t.Fatal(err)
	}
	if x, err := decodeModel(lingua.English, 3); err != nil {
		t.Fatal(err)
	} else {
		sameIndex(t, "from the cache", x, other)
	}

	// Bad files: each is refused, decoded again and replaced.
	resum := func(b []byte) []byte {
		binary.LittleEndian.PutUint64(b[40:], xxhash.Sum64(b[indexHeader:]))
		return b
	}
	nbuf := binary.LittleEndian.Uint64(good[16:])
	slots := indexHeader + int(pad8(nbuf))
	firstSlot := func(b []byte, full bool) int { // offset of the first used (or, full: empty) slot
		for i := slots; ; i += 8 {
			if s := binary.LittleEndian.Uint64(b[i:]); (s == 0) == full {
				return i
			}
		}
	}
	for _, c := range []struct {
		name string
		bad  func([]byte) []byte
	}{
		{"a flipped byte", func(b []byte) []byte { b[len(b)/2] ^= 1; return b }},
		{"cut short", func(b []byte) []byte { return b[:len(b)-8] }},
		{"empty", func(b []byte) []byte { return b[:0] }},
		{"another layout", func(b []byte) []byte { b[14] = '9'; return b }},
		{"a slot past the protobuf, checksum right", func(b []byte) []byte {
			i := firstSlot(b, false)
			binary.LittleEndian.PutUint64(b[i:], binary.LittleEndian.Uint64(b[i:])|uint64(nbuf)<<32)
			return resum(b)
		}},
		{"a slot past the probabilities, checksum right", func(b []byte) []byte {
			i := firstSlot(b, false)
			binary.LittleEndian.PutUint64(b[i:], binary.LittleEndian.Uint64(b[i:])|0xffffff)
			return resum(b)
		}},
		{"a full table, checksum right", func(b []byte) []byte {
			for i := slots; i < slots+8*int(binary.LittleEndian.Uint64(b[24:])); i += 8 {
				if binary.LittleEndian.Uint64(b[i:]) == 0 {
					copy(b[i:i+8], b[firstSlot(b, false):])
				}
			}
			return resum(b)
		}},
	} {
		if err := os.WriteFile(path, c.bad(append([]byte(nil), good...)), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := readIndex(dir, name); err == nil {
			t.Errorf("%s: read as an index", c.name)
		}
		x, err := decodeModel(lingua.English, 3)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		sameIndex(t, c.name+": decoded", x, fresh)
		if x, err := readIndex(dir, name); err != nil {
			t.Errorf("%s: not replaced: %v", c.name, err)
		} else {
			sameIndex(t, c.name+": replaced", x, fresh)
		}
	}

	// A link is not read, even to a good index.
	elsewhere := filepath.Join(t.TempDir(), "index")
	if err := os.WriteFile(elsewhere, good, 0o600); err != nil {
		t.Fatal(err)
	}
	os.Remove(path)
	if err := os.Symlink(elsewhere, path); err != nil {
		t.Fatal(err)
	}
	if _, err := readIndex(dir, name); err == nil {
		t.Error("an index read through a link")
	}

	// A folder others may write is not used.
	shared := filepath.Join(t.TempDir(), "shared")
	if err := os.Mkdir(shared, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(shared, 0o777)
	modelCacheDir = func() string { return shared }
	if _, ok := cacheDir(); ok {
		t.Error("a folder others may write used as the cache")
	}
	if _, err := decodeModel(lingua.English, 3); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(shared); len(ents) != 0 {
		t.Errorf("wrote %d files into a folder others may write", len(ents))
	}
	if !strings.HasPrefix(name, "en-3-") {
		t.Errorf("cache file name %q", name)
	}
}

// TestModelCacheChild is TestModelCache's other process: it reads the
// index file NG_LANG_CACHE_CHILD and checks it against the model decoded.
func TestModelCacheChild(t *testing.T) {
	path := os.Getenv("NG_LANG_CACHE_CHILD")
	if path == "" {
		t.Skip("run by TestModelCache")
	}
	x, err := readIndex(filepath.Dir(path), filepath.Base(path))
	if err != nil {
		t.Fatal(err)
	}
	old := modelCacheDir
	modelCacheDir = func() string { return "" }
	defer func() { modelCacheDir = old }()
	fresh, err := decodeModel(lingua.English, 3)
	if err != nil {
		t.Fatal(err)
	}
	sameIndex(t, "in another process", x, fresh)
	fmt.Println("CHILD READ THE INDEX")
}

// FuzzParseIndex: whatever a cache file holds, even with a right checksum,
// parseIndex does not panic, and an index it accepts answers every lookup
// (no slot points outside the file, every probe ends at an empty slot).
func FuzzParseIndex(f *testing.F) {
	dir := f.TempDir()
	for _, l := range []lingua.Language{lingua.German, lingua.Spanish} { // unigrams: small seeds, fast runs
		x, err := decodeModel(l, 1)
		if err != nil {
			f.Fatal(err)
		}
		if err := writeIndex(dir, "seed", x); err != nil {
			f.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, "seed"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(indexMagic))
	f.Fuzz(func(t *testing.T, b []byte) {
		data := make([]byte, len(b)) // the aligned buffer readIndex reads into
		copy(data, b)
		if len(data) >= indexHeader { // a right checksum: the checks behind it are the ones to fuzz
			binary.LittleEndian.PutUint64(data[40:], xxhash.Sum64(data[indexHeader:]))
		}
		x, err := parseIndex(data)
		if err != nil {
			return
		}
		x.each(func(g string, p float64) {
			x.lookup(g)
			x.lookup(g + "x")
		})
		for _, g := range []string{"", "a", "ab", "sch", "ß", string(b[:min(len(b), 5)])} {
			x.lookup(g)
		}
	})
}
