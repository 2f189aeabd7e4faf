package lang

import (
	"archive/zip"
	"bytes"
	"embed"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"unsafe"

	"github.com/klauspost/compress/flate"
	"github.com/pemistahl/lingua-go"
)

// lingua decodes its models (zipped protobuf embedded in the binary) into
// process-wide maps, one per n-gram length, the first time a detector needs
// them. Its decoder spends about 0.5 s of CPU on the four Latin models of
// the default set (flate, reflective protobuf, a string allocated per
// n-gram: millions of small objects that every later GC cycle marks again),
// most of ngstats' start. loadModels fills the same maps first, with the
// same content (tested against lingua's decoder): a faster flate, a
// hand-written parse of the two message types, and the n-grams as strings
// into one buffer per model. lingua then finds them loaded and keeps its
// own loader idle. The maps and the embedded files are lingua's unexported
// variables, reached by linkname (pinned by go.mod to lingua v1.4.0; the
// test fails if a new version renames them).

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

// loadModels decodes every n-gram model of langs into lingua's maps, the
// files in parallel (the largest first, so that the last to finish is
// small).
func loadModels(langs []lingua.Language) {
	var wg sync.WaitGroup
	for n := 4; n >= 0; n-- {
		for _, l := range langs {
			wg.Go(func() {
				if _, ok := ngramModels[n].m.Load(l); ok {
					return
				}
				m, err := decodeModel(l, n+1)
				if err != nil {
					return // lingua's own loader will try (and say)
				}
				ngramModels[n].m.LoadOrStore(l, m)
			})
		}
	}
	wg.Wait()
}

// decodeModel reads one model file as lingua's loadLanguageModels does.
func decodeModel(l lingua.Language, n int) (map[string]float64, error) {
	path := fmt.Sprintf("language-models/%s/%s.pb.bin.zip", strings.ToLower(l.IsoCode639_1().String()), ngramModels[n-1].name)
	zipped, err := linguaModelFiles.ReadFile(path)
	if err != nil {
		return nil, err
	}
	zr, err := zip.NewReader(bytes.NewReader(zipped), int64(len(zipped)))
	if err != nil || len(zr.File) != 1 {
		return nil, fmt.Errorf("lang: %s: not a one-file zip: %v", path, err)
	}
	zr.RegisterDecompressor(zip.Deflate, func(r io.Reader) io.ReadCloser { return flate.NewReader(r) })
	f, err := zr.File[0].Open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, zr.File[0].UncompressedSize64)
	if _, err := io.ReadFull(f, buf); err != nil {
		return nil, err
	}
	return parseModel(buf)
}

// parseModel decodes a SerializableLanguageModel (lingua's model.proto):
// field 3 total_ngrams (varint), 4 ngram_sets (repeated message of 1
// probability, fixed64, and 2 ngrams, repeated string); the strings point
// into buf.
func parseModel(buf []byte) (map[string]float64, error) {
	var m map[string]float64
	total := 0
	err := fields(buf, func(num int, v uint64, b []byte) error {
		switch num {
		case 3:
			total = int(v)
		case 4:
			if m == nil {
				m = make(map[string]float64, total)
			}
			// Two passes: the probability, then the n-grams under it.
			var p float64
			if err := fields(b, func(num int, v uint64, _ []byte) error {
				if num == 1 {
					p = math.Float64frombits(v)
				}
				return nil
			}); err != nil {
				return err
			}
			return fields(b, func(num int, _ uint64, g []byte) error {
				if num == 2 {
					m[unsafe.String(unsafe.SliceData(g), len(g))] = p
				}
				return nil
			})
		}
		return nil
	})
	if m == nil {
		m = map[string]float64{}
	}
	return m, err
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
