package lang

import (
	"archive/zip"
	"bytes"
	"embed"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"strings"
	"sync"
	"unicode"
	"unsafe"

	"github.com/cespare/xxhash/v2"
	"github.com/klauspost/compress/flate"
	"github.com/pemistahl/lingua-go"
)

// lingua keeps its models (zipped protobuf embedded in the binary) in
// process-wide maps, one Go map per language and n-gram length, which it
// fills from the files the first time a detector needs them: 1.3 million
// n-grams for the four Latin languages of the default set, 86 MB of maps
// that every later GC cycle marks again. Yet lingua only ever looks up the
// n-grams of the text it is given, and on the release only 616 of 92,313
// turns reach it (the function-word vote decides the rest).
//
// So lingua's maps hold only what it will read. The model files are
// decoded, on a text's first need, into a flat index each (the protobuf
// itself plus one open-addressed table of offsets: no pointers for the GC,
// 44 MB for the default set); before lingua scores a text, askLingua puts
// every n-gram of the text's words that a candidate's model holds, with the
// model's probability, into lingua's map. Each map is then a subset of the
// full model holding every key lingua looks up for that text, so lingua's
// answer is the one it gives with the full models (TestLinguaAnswersAsWithFullModels).
// Go maps cannot be read while written, so the maps are written under
// linguaMu's write lock and lingua runs under its read lock.
//
// The maps and the embedded files are lingua's unexported variables,
// reached by linkname (pinned by go.mod to lingua v1.4.0; the tests fail
// if a new version renames them). Nothing else in the process may use
// lingua directly: it would see the partial maps (TestOnlyPkgLangUsesLingua).

//go:linkname linguaModelFiles github.com/pemistahl/lingua-go.languageModels
var linguaModelFiles embed.FS

//go:linkname linguaUnigrams github.com/pemistahl/lingua-go.unigramModels
var linguaUnigrams sync.Map

//go:linkname linguaBigrams github.com/pemistahl/lingua-go.bigramModels
var linguaBigrams sync.Map

//go:linkname linguaTrigrams github.com/pemistahl/lingua-go.trigramModels
var linguaTrigrams sync.Map

//go:linkname linguaQuadrigrams github.com/pemistahl/lingua-go.quadrigramModels
var linguaQuadrigrams sync.Map

//go:linkname linguaFivegrams github.com/pemistahl/lingua-go.fivegramModels
var linguaFivegrams sync.Map

// ngramModels are lingua's maps by n-gram length - 1, with the names of
// its files.
var ngramModels = [5]struct {
	m    *sync.Map
	name string
}{
	{&linguaUnigrams, "unigrams"}, {&linguaBigrams, "bigrams"}, {&linguaTrigrams, "trigrams"},
	{&linguaQuadrigrams, "quadrigrams"}, {&linguaFivegrams, "fivegrams"},
}

// linguaMu guards every map in ngramModels: written under its lock, read
// by lingua under its read lock.
var linguaMu sync.RWMutex

// langModels are one language's model files as indexes, decoded once, and
// the maps lingua reads for it.
type langModels struct {
	once sync.Once
	idx  [5]*ngramIndex
	err  error
	maps [5]map[string]float64 // lingua's maps of this language; linguaMu
}

var (
	modelsMu sync.Mutex
	models   = map[lingua.Language]*langModels{}
)

// modelsOf returns the models of l, putting an empty map for each n-gram
// length into lingua's maps the first time, so that lingua never loads
// the files itself.
func modelsOf(l lingua.Language) *langModels {
	modelsMu.Lock()
	defer modelsMu.Unlock()
	if m := models[l]; m != nil {
		return m
	}
	m := &langModels{}
	linguaMu.Lock()
	for n := range ngramModels {
		m.maps[n] = map[string]float64{}
		ngramModels[n].m.Store(l, m.maps[n])
	}
	linguaMu.Unlock()
	models[l] = m
	return m
}

// modelLoad is a detector's decoding of its models, once.
type modelLoad struct {
	once sync.Once
	err  error
}

// loadIndexes decodes the five model files of each language of ls (whose
// models are ms) not yet decoded, the files in parallel.
func loadIndexes(ls []lingua.Language, ms []*langModels) error {
	var wg sync.WaitGroup
	for i, m := range ms {
		wg.Go(func() {
			m.once.Do(func() {
				var inner sync.WaitGroup
				errs := make([]error, 5)
				for n := 4; n >= 0; n-- {
					inner.Go(func() { m.idx[n], errs[n] = decodeModel(ls[i], n+1) })
				}
				inner.Wait()
				m.err = errors.Join(errs...)
			})
		})
	}
	wg.Wait()
	for _, m := range ms {
		if m.err != nil {
			return m.err
		}
	}
	return nil
}

// askLingua returns lingua's confidence values for text among d's Latin
// candidates, after putting into lingua's maps every n-gram of text's
// words that their models hold. Every n-gram lingua looks up is one of
// those: a substring of at most 5 letters of a word of
// strings.ToLower(text), a word being a run of letters (lingua's
// `\p{L}+`; its one-character Han, Hangul and kana words are substrings of
// such runs too); trigrams only when the words have 120 letters or more,
// as lingua does.
func (d *Detector) askLingua(text string) []lingua.ConfidenceValue {
	d.load.once.Do(func() { d.load.err = loadIndexes(d.ll, d.lms) })
	if d.load.err != nil {
		panic(d.load.err) // the embedded files: every one of them is tested
	}
	type hit struct {
		m *langModels
		n int
		g string
		p float64
	}
	var hits []hit
	lower := strings.ToLower(text)
	letters := 0
	for _, r := range lower {
		if unicode.IsLetter(r) {
			letters++
		}
	}
	lo, hi := 1, 5
	if letters >= 120 {
		lo, hi = 3, 3
	}
	var starts []int // byte offsets of the current word's runes, then its end
	word := func() {
		k := len(starts) - 1 // runes in the word
		for i := range k {
			for n := lo; n <= hi && i+n <= k; n++ {
				g := lower[starts[i]:starts[i+n]]
				for _, m := range d.lms {
					if p, ok := m.idx[n-1].lookup(g); ok {
						hits = append(hits, hit{m, n - 1, g, p})
					}
				}
			}
		}
		starts = starts[:0]
	}
	for i, r := range lower {
		if unicode.IsLetter(r) {
			starts = append(starts, i)
		} else if len(starts) > 0 {
			starts = append(starts, i)
			word()
		}
	}
	if len(starts) > 0 {
		starts = append(starts, len(lower))
		word()
	}
	missing := func() bool {
		for _, h := range hits {
			if _, ok := h.m.maps[h.n][h.g]; !ok {
				return true
			}
		}
		return false
	}
	linguaMu.RLock()
	if missing() {
		linguaMu.RUnlock()
		linguaMu.Lock()
		for _, h := range hits {
			if _, ok := h.m.maps[h.n][h.g]; !ok {
				h.m.maps[h.n][strings.Clone(h.g)] = h.p
			}
		}
		linguaMu.Unlock()
		linguaMu.RLock()
	}
	defer linguaMu.RUnlock()
	return d.ld.ComputeLanguageConfidenceValues(text)
}

// ngramIndex is one decoded model file: the protobuf itself and an
// open-addressed table of its n-grams, placed by xxhash (the same in every
// process: the table is kept on disk, modelcache.go). A slot is 0 when empty, else the
// n-gram's offset in buf (32 bits), its length in bytes (8) and the index
// of its n-gram set (24), whose probability is in probs.
type ngramIndex struct {
	buf   []byte
	slots []uint64
	probs []float64
}

func (x *ngramIndex) lookup(g string) (float64, bool) {
	mask := uint64(len(x.slots) - 1)
	for i := xxhash.Sum64String(g) & mask; ; i = (i + 1) & mask {
		s := x.slots[i]
		if s == 0 {
			return 0, false
		}
		off, n := s>>32, s>>24&0xff
		if n == uint64(len(g)) && string(x.buf[off:off+n]) == g {
			return x.probs[s&0xffffff], true
		}
	}
}

// each calls f with every n-gram of x and its probability.
func (x *ngramIndex) each(f func(g string, p float64)) {
	for _, s := range x.slots {
		if s != 0 {
			off, n := s>>32, s>>24&0xff
			f(string(x.buf[off:off+n]), x.probs[s&0xffffff])
		}
	}
}

// decodeModel reads one model file as lingua's loadLanguageModels does,
// into an index: from the cache folder when it holds the file's index
// (modelcache.go), else decoded and stored there.
func decodeModel(l lingua.Language, n int) (*ngramIndex, error) {
	path := fmt.Sprintf("language-models/%s/%s.pb.bin.zip", strings.ToLower(l.IsoCode639_1().String()), ngramModels[n-1].name)
	zipped, err := linguaModelFiles.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return indexModel(nil) // lingua has no such file for some languages (Tamil's bigrams): it reads no n-gram then
	}
	if err != nil {
		return nil, err
	}
	zr, err := zip.NewReader(bytes.NewReader(zipped), int64(len(zipped)))
	if err != nil || len(zr.File) != 1 || zr.File[0].Method != zip.Deflate {
		return nil, fmt.Errorf("lang: %s: not a one-file deflated zip: %v", path, err)
	}
	dir, cached := cacheDir() // modelcache.go
	name := indexFileName(strings.ToLower(l.IsoCode639_1().String()), n, zr.File[0].CRC32, zr.File[0].UncompressedSize64)
	if cached {
		if x, err := readIndex(dir, name); err == nil {
			return x, nil
		}
	}
	// The raw stream from a bytes.Reader: flate reads it without a bufio
	// layer. The CRC is not checked: the files are the binary's own, and
	// TestDecodeModelAsLingua compares every entry with lingua's decoding.
	raw, err := zr.File[0].OpenRaw()
	if err != nil {
		return nil, err
	}
	compressed, err := io.ReadAll(raw)
	if err != nil {
		return nil, err
	}
	buf := make([]byte, zr.File[0].UncompressedSize64)
	f := flate.NewReader(bytes.NewReader(compressed))
	defer f.Close()
	if _, err := io.ReadFull(f, buf); err != nil {
		return nil, fmt.Errorf("lang: %s: %w", path, err)
	}
	x, err := indexModel(buf)
	if err != nil {
		return nil, fmt.Errorf("lang: %s: %w", path, err)
	}
	if cached {
		_ = writeIndex(dir, name, x) // a cache: the index is good without it
	}
	return x, nil
}

// indexModel indexes a SerializableLanguageModel (lingua's model.proto):
// field 3 total_ngrams (varint), 4 ngram_sets (repeated message of 1
// probability, fixed64, and 2 ngrams, repeated string).
func indexModel(buf []byte) (*ngramIndex, error) {
	if len(buf) >= 1<<32 {
		return nil, fmt.Errorf("model of %d bytes", len(buf))
	}
	x := &ngramIndex{buf: buf}
	// One pass for the n-grams (offset, length and set, as a slot), one
	// over them to fill the table.
	var grams []uint64
	base := uintptr(unsafe.Pointer(unsafe.SliceData(buf)))
	err := fields(buf, func(num int, v uint64, b []byte) error {
		if num == 3 && grams == nil && v < 1<<26 {
			grams = make([]uint64, 0, v) // a hint: counted anyway
		}
		if num != 4 {
			return nil
		}
		p, set := math.NaN(), uint64(len(x.probs))
		if set > 0xffffff {
			return fmt.Errorf("more than %d n-gram sets", 0xffffff)
		}
		err := fields(b, func(num int, v uint64, g []byte) error {
			switch num {
			case 1:
				p = math.Float64frombits(v)
			case 2:
				if len(g) == 0 || len(g) > 0xff {
					return fmt.Errorf("bad n-gram %q", g)
				}
				off := uint64(uintptr(unsafe.Pointer(unsafe.SliceData(g))) - base)
				grams = append(grams, off<<32|uint64(len(g))<<24|set)
			}
			return nil
		})
		if err != nil {
			return err
		}
		if math.IsNaN(p) {
			return fmt.Errorf("n-gram set without a probability")
		}
		x.probs = append(x.probs, p)
		return nil
	})
	if err != nil {
		return nil, err
	}
	size := 1
	for size < len(grams)+len(grams)/2+1 {
		size <<= 1
	}
	x.slots = make([]uint64, size)
	mask := uint64(size - 1)
	for _, slot := range grams {
		off, n := slot>>32, slot>>24&0xff
		g := buf[off : off+n]
		for i := xxhash.Sum64(g) & mask; ; i = (i + 1) & mask {
			s := x.slots[i]
			if s == 0 {
				x.slots[i] = slot
				break
			}
			if o, m := s>>32, s>>24&0xff; m == n && bytes.Equal(buf[o:o+m], g) {
				x.slots[i] = slot // repeated: the later set's, as lingua's map assignment
				break
			}
		}
	}
	return x, nil
}

// fields calls f with each field of a protobuf message: its number, its
// value (varint, fixed64) or its bytes (length-delimited).
func fields(buf []byte, f func(num int, v uint64, b []byte) error) error {
	for len(buf) > 0 {
		key, k := binary.Uvarint(buf)
		if k <= 0 {
			return fmt.Errorf("lang: bad model field key")
		}
		buf = buf[k:]
		var v uint64
		var b []byte
		switch key & 7 {
		case 0:
			v, k = binary.Uvarint(buf)
			if k <= 0 {
				return fmt.Errorf("lang: bad model varint")
			}
			buf = buf[k:]
		case 1:
			if len(buf) < 8 {
				return fmt.Errorf("lang: short model fixed64")
			}
			v, buf = binary.LittleEndian.Uint64(buf), buf[8:]
		case 2:
			n, k := binary.Uvarint(buf)
			if k <= 0 || n > uint64(len(buf)-k) {
				return fmt.Errorf("lang: bad model length")
			}
			b, buf = buf[k:k+int(n)], buf[k+int(n):]
		default:
			return fmt.Errorf("lang: unexpected model wire type %d", key&7)
		}
		if err := f(int(key>>3), v, b); err != nil {
			return err
		}
	}
	return nil
}
