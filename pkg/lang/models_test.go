package lang

import (
	"archive/zip"
	"bytes"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pemistahl/lingua-go"
	"github.com/pemistahl/lingua-go/serialization"
	"google.golang.org/protobuf/proto"
)

// TestDecodeModelAsLingua: every model of the default set's Latin
// languages indexes to what lingua's own loader makes of it (protobuf by
// reflection, stdlib flate): the same n-grams, each with its probability.
func TestDecodeModelAsLingua(t *testing.T) {
	for _, l := range []lingua.Language{lingua.English, lingua.French, lingua.Spanish, lingua.German} {
		for n := 1; n <= 5; n++ {
			x, err := decodeModel(l, n)
			if err != nil {
				t.Fatal(err)
			}
			want := linguaDecode(t, l, n)
			got := 0
			x.each(func(string, float64) { got++ })
			if got != len(want) || got == 0 {
				t.Fatalf("%v %d-grams: %d n-grams, lingua %d", l, n, got, len(want))
			}
			for k, v := range want {
				if p, ok := x.lookup(k); !ok || p != v {
					t.Fatalf("%v %d-grams: %q = %v (%v), lingua %v", l, n, k, p, ok, v)
				}
			}
			for _, g := range []string{"", "zzzzq", "\xff", "日本"} {
				if p, ok := x.lookup(g); ok && want[g] != p {
					t.Fatalf("%v %d-grams: %q found (%v), lingua has not", l, n, g, p)
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

// TestModelsLoadedForLingua: once a detector is built, lingua's maps of
// its Latin languages are ours (so that lingua never loads a file itself),
// and hold only the n-grams of the texts asked about.
func TestModelsLoadedForLingua(t *testing.T) {
	d := Default()
	d.askLingua("Gracias por todo, amigo")
	for n, nm := range ngramModels {
		v, ok := nm.m.Load(lingua.French)
		if !ok {
			t.Fatalf("%d-grams of French not in lingua's maps", n+1)
		}
		if m := v.(map[string]float64); len(m) > 100000 {
			t.Errorf("%d-grams of French: %d n-grams in lingua's map, want only those asked about", n+1, len(m))
		}
	}
	if _, ok := modelsOf(lingua.Spanish).maps[1]["ra"]; !ok {
		t.Errorf("the bigram \"ra\" of a Spanish text asked about is not in lingua's map")
	}
}

// TestLinguaAnswersAsWithFullModels: for texts that reach lingua (the
// release's, and generated ones: short and long, mixed languages and
// scripts, diacritics, upper case), lingua's values with the maps holding
// only what askLingua put there are those it gives once the maps hold
// every n-gram of every model. (lingua sums a text's n-grams in map order,
// so two of its own runs can differ in the last bits: 1e-9.)
func TestLinguaAnswersAsWithFullModels(t *testing.T) {
	d, err := For("vi", "id", "ms", "tl") // the default set and four more Latin languages
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"", "a", "Ok", "Ciao, Maria!", "Maria Garcia", "ÉCOLE", "straße", "¿Qué?", "Tôi cảm ơn bạn",
		"Terima kasih banyak", "Salamat po", "Merci 谢谢 beaucoup", "naïve café", "ÀÉÎÕÜ ß ñ",
		strings.Repeat("Il pleut sur la ville comme il pleut sur mon coeur. ", 5),
		strings.Repeat("Das ist gut, wir gehen nach Hause. ", 6)}
	words := strings.Fields("the and of le la des und der die el los que ng sa ang dan yang tidak không của và " +
		"über schön garçon niño ação façade Ärger élève ĳ Œuvre ÿ Ångström Dvořák Łódź 你 こんにちは 한국")
	rng := rand.New(rand.NewPCG(1, 2))
	for range 400 {
		var b strings.Builder
		for range 1 + rng.IntN(40) {
			w := words[rng.IntN(len(words))]
			if rng.IntN(5) == 0 {
				w = strings.ToUpper(w)
			}
			b.WriteString(w)
			b.WriteString([]string{" ", ", ", "-", "'", "1", ". "}[rng.IntN(6)])
		}
		texts = append(texts, b.String())
	}
	if files := loadRelease(t); files != nil {
		for _, f := range files {
			for _, s := range f.turns {
				if r := d.Detect(s); r.Method == ByLingua {
					texts = append(texts, latinOnly(StripForDetection(s), census(StripForDetection(s))))
				}
			}
		}
	}
	ours := make([][]lingua.ConfidenceValue, len(texts))
	for i, s := range texts {
		ours[i] = d.askLingua(s)
	}
	fillModels(t, d.ll...)
	linguaMu.RLock()
	defer linguaMu.RUnlock()
	for i, s := range texts {
		full := d.ld.ComputeLanguageConfidenceValues(s)
		vals := map[lingua.Language]float64{}
		for _, v := range full {
			vals[v.Language()] = v.Value()
		}
		for _, v := range ours[i] {
			if math.Abs(v.Value()-vals[v.Language()]) > 1e-9 {
				t.Fatalf("%q: %v %v with the maps askLingua filled, %v with the full models", s, v.Language(), v.Value(), vals[v.Language()])
			}
		}
	}
	t.Logf("%d texts agree", len(texts))
}

// BenchmarkDecodeModel: the four Latin models of the default set, by
// decodeModel without the cache folder (inflated and indexed), with it
// (read back: modelcache.go) and by lingua's own decoder.
func BenchmarkDecodeModel(b *testing.B) {
	langs := []lingua.Language{lingua.English, lingua.French, lingua.Spanish, lingua.German}
	decodeAll := func(b *testing.B) {
		for range b.N {
			for _, l := range langs {
				for n := 1; n <= 5; n++ {
					if _, err := decodeModel(l, n); err != nil {
						b.Fatal(err)
					}
				}
			}
		}
	}
	b.Run("ours", func(b *testing.B) {
		old := modelCacheDir
		modelCacheDir = func() string { return "" }
		defer func() { modelCacheDir = old }()
		decodeAll(b)
	})
	b.Run("ours-cached", decodeAll)
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

// fillModels puts every n-gram of the models of ls into lingua's maps, as
// lingua's own loader would: until the test ends, lingua answers with the
// full models for those languages, in any detector. Then the maps are
// emptied (askLingua fills them again as texts need), so that tests that
// check what askLingua puts there do not depend on the order tests run in.
func fillModels(t testing.TB, ls ...lingua.Language) {
	t.Helper()
	var ms []*langModels
	for _, l := range ls {
		ms = append(ms, modelsOf(l))
	}
	if err := loadIndexes(ls, ms); err != nil {
		t.Fatal(err)
	}
	linguaMu.Lock()
	defer linguaMu.Unlock()
	for _, m := range ms {
		for n := range m.idx {
			m.idx[n].each(func(g string, p float64) { m.maps[n][g] = p })
		}
	}
	t.Cleanup(func() {
		linguaMu.Lock()
		defer linguaMu.Unlock()
		for _, m := range ms {
			for n := range m.maps {
				clear(m.maps[n])
			}
		}
	})
}

// TestOnlyPkgLangUsesLingua: lingua's maps hold only what askLingua put
// there, so a detector built anywhere else in the process would answer from
// partial models. No Go file of the module outside pkg/lang imports lingua.
func TestOnlyPkgLangUsesLingua(t *testing.T) {
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() && (e.Name() == "node_modules" || strings.HasPrefix(e.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if e.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		if rel, _ := filepath.Rel(root, path); filepath.Dir(rel) == filepath.Join("pkg", "lang") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			if strings.Contains(imp.Path.Value, "pemistahl/lingua-go") {
				t.Errorf("%s imports lingua: only pkg/lang may (models.go)", path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
