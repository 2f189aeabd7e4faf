package lang

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/pemistahl/lingua-go"
	"github.com/pemistahl/lingua-go/serialization"
	"google.golang.org/protobuf/proto"
)

// TestDecodeModelAsLingua: every model of two languages decodes to what
// lingua's own loader makes of it (protobuf by reflection, stdlib flate).
func TestDecodeModelAsLingua(t *testing.T) {
	for _, l := range []lingua.Language{lingua.English, lingua.German} {
		for n := 1; n <= 5; n++ {
			got, err := decodeModel(l, n)
			if err != nil {
				t.Fatal(err)
			}
			want := linguaDecode(t, l, n)
			if len(got) != len(want) || len(got) == 0 {
				t.Fatalf("%v %d-grams: %d n-grams, lingua %d", l, n, len(got), len(want))
			}
			for k, v := range want {
				if got[k] != v {
					t.Fatalf("%v %d-grams: %q = %v, lingua %v", l, n, k, got[k], v)
				}
			}
		}
	}
}

func linguaDecode(t testing.TB, l lingua.Language, n int) map[string]float64 {
	path := fmt.Sprintf("language-models/%s/%s.pb.bin.zip", strings.ToLower(l.IsoCode639_1().String()), ngramModels[n-1].name)
	zipped, err := linguaModelFiles.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(zipped), int64(len(zipped)))
	if err != nil {
		t.Fatal(err)
	}
	f, _ := zr.File[0].Open()
	data, _ := io.ReadAll(f)
	var model serialization.SerializableLanguageModel
	if err := proto.Unmarshal(data, &model); err != nil {
		t.Fatal(err)
	}
	m := map[string]float64{}
	for _, set := range model.NgramSets {
		for _, g := range set.Ngrams {
			m[g] = set.Probability
		}
	}
	return m
}

// TestModelsLoadedForLingua: a detector's models are in lingua's maps
// once built (so that lingua's loader found them there).
func TestModelsLoadedForLingua(t *testing.T) {
	Default()
	for n, nm := range ngramModels {
		if _, ok := nm.m.Load(lingua.French); !ok {
			t.Errorf("%d-grams of French not loaded", n+1)
		}
	}
}

// BenchmarkDecodeModel: the four Latin models of the default set, by
// decodeModel and by lingua's own decoder.
func BenchmarkDecodeModel(b *testing.B) {
	langs := []lingua.Language{lingua.English, lingua.French, lingua.Spanish, lingua.German}
	b.Run("ours", func(b *testing.B) {
		for range b.N {
			for _, l := range langs {
				for n := 1; n <= 5; n++ {
					if _, err := decodeModel(l, n); err != nil {
						b.Fatal(err)
					}
				}
			}
		}
	})
	b.Run("lingua", func(b *testing.B) {
		for range b.N {
			for _, l := range langs {
				for n := 1; n <= 5; n++ {
					linguaDecode(b, l, n)
				}
			}
		}
	})
}
