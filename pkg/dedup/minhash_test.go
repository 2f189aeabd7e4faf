package dedup

import (
	"fmt"
	"math"
	"math/rand"
	"slices"
	"strings"
	"testing"
)

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"Hello, World!":       "hello world",
		"  a\n\n b,c  ":       "a b c",
		"你好，世界。":              "你好 世界",
		"안녕하세요?  네!":          "안녕하세요 네",
		"...":                 "",
		"Ünïcode — ÄÖ":        "ünïcode äö",
		"**Sarah**: [END] hi": "sarah end hi",
	} {
		if got := string(Normalize(in)); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
	if Width(Normalize("部长您好")) != WidthCJK || Width(Normalize("안녕하세요 부장님")) != WidthCJK || Width(Normalize("hello 你")) != WidthAlpha {
		t.Error("Width picks the wrong script")
	}
}

// words makes a random text of n words from a small vocabulary.
func words(rng *rand.Rand, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("w%dx%d", rng.Intn(500), rng.Intn(7))
	}
	return out
}

// The signature's estimate is within a few standard errors of the exact
// Jaccard similarity, over pairs from unrelated to identical, in English,
// Korean and Chinese.
func TestSimilarityEstimates(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	hangul := func(w string) string { // a word in Hangul syllables
		var b strings.Builder
		for _, r := range w {
			b.WriteRune(0xAC00 + r*37%11172)
		}
		return b.String()
	}
	han := func(w string) string {
		var b strings.Builder
		for _, r := range w {
			b.WriteRune(0x4E00 + r*113%20000)
		}
		return b.String()
	}
	var sumErr float64
	n := 0
	for _, script := range []func(string) string{func(s string) string { return s }, hangul, han} {
		for trial := 0; trial < 60; trial++ {
			a := words(rng, 80)
			b := append([]string(nil), a...)
			for i := range b { // change a share of the words
				if rng.Float64() < float64(trial)/60 {
					b[i] = words(rng, 1)[0]
				}
			}
			var ta, tb []string
			for i := range a {
				ta, tb = append(ta, script(a[i])), append(tb, script(b[i]))
			}
			A, B := strings.Join(ta, " "), strings.Join(tb, " ")
			sa, _ := Sign(A)
			sb, _ := Sign(B)
			j, est := Jaccard(A, B), Similarity(&sa, &sb)
			se := math.Sqrt(j*(1-j)/K) + 0.01
			if math.Abs(est-j) > 4*se {
				t.Errorf("estimate %.3f, exact %.3f (4 standard errors: %.3f)", est, j, 4*se)
			}
			sumErr += math.Abs(est - j)
			n++
		}
	}
	if mean := sumErr / float64(n); mean > 0.04 {
		t.Errorf("mean error %.3f", mean)
	}
}

// The fast path of Sign normalizes as Normalize does.
func TestNormalizeFast(t *testing.T) {
	for _, s := range []string{"Hello, World!", "  a\n\n b,c  ", "你好，世界。", "x\x00y\xffz", "ÄÖ — Ünï", "...", "", "**Sarah**: [END] hi "} {
		var nt normText
		nt.normalize(s)
		if want := string(Normalize(s)); string(nt.b) != want || len(nt.off) != len([]rune(want))+1 {
			t.Errorf("normalize(%q) = %q, Normalize: %q", s, nt.b, want)
		}
	}
}

func TestSignEmpty(t *testing.T) {
	if _, ok := Sign(" ... !! "); ok {
		t.Error("a text of punctuation has a signature")
	}
	a, ok1 := Sign("ab")
	b, ok2 := Sign("AB!")
	if !ok1 || !ok2 || Similarity(&a, &b) != 1 {
		t.Error("short texts")
	}
}

// The index puts near-duplicates in the cluster of the first similar
// text, finds them across scripts and leaves different texts apart.
func TestIndexClusters(t *testing.T) {
	texts := []string{
		"Hi Sarah. I just wanted to say I'm really sorry for your loss. Thank you, Mike. That means a lot to me.",
		"민수는 부장님께 보고서를 드리며 늦어서 죄송하다고 정중하게 사과한다. 부장님은 괜찮다며 웃으신다.",
		"Hi Emily. I just wanted to say I'm really sorry for your loss. Thank you, Mike. That means a lot to me.",
		"小王在会议上向陈经理道歉，说自己没有按时完成报告，陈经理表示理解并鼓励他。",
		"A completely different conversation about the weather, the train and the price of coffee today.",
		"민수는 부장님께 보고서를 드리며 늦어서 죄송하다고 정중히 사과한다. 부장님은 괜찮다며 웃으신다.",
		"小李在会议上向陈经理道歉，说自己没有按时完成报告，陈经理表示理解并鼓励他。",
		"hi emily i just wanted to say im really sorry for your loss thank you mike that means a lot to me",
	}
	ix := NewIndex(0.5)
	var got []int
	for _, s := range texts {
		sig, _ := Sign(s)
		c, sim := ix.Add(sig)
		got = append(got, c)
		if c != len(got)-1 && (sim < 0.5 || sim > 1) {
			t.Errorf("%q: similarity %v", s, sim)
		}
	}
	want := []int{0, 1, 0, 3, 4, 1, 3, 0}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("clusters %v, want %v", got, want)
	}
}

// Memory: what the index holds per text, as the package doc says.
func BenchmarkIndexAdd(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	sigs := make([]Signature, 20000)
	for i := range sigs {
		sigs[i], _ = Sign(strings.Join(words(rng, 150), " "))
	}
	b.ReportAllocs()
	ix := NewIndex(0.7)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ix.Add(sigs[i%len(sigs)])
	}
}

func BenchmarkSign(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	text := strings.Join(words(rng, 150), " ") // about a dialogue
	b.SetBytes(int64(len(text)))
	for i := 0; i < b.N; i++ {
		Sign(text)
	}
}

// FuzzSign: for any text, its signature is identical to itself and the
// estimate against another text stays in [0, 1]; Sign fails exactly when
// the normalized text is empty.
func FuzzSign(f *testing.F) {
	for _, s := range []string{"Hello, World!", "부장님, 안녕하십니까?", "陈经理，报告晚交了。", "", "...", "a", "ab cd"} {
		f.Add(s, "other text")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		var nt normText
		nt.normalize(a)
		if want := string(Normalize(a)); string(nt.b) != want || len(nt.off) != len([]rune(want))+1 {
			t.Fatalf("normalize(%q) = %q (%d offsets), Normalize: %q", a, nt.b, len(nt.off), want)
		}
		sa, ok := Sign(a)
		if ok != (len(Normalize(a)) > 0) {
			t.Fatalf("Sign(%q) ok=%v, normalized %q", a, ok, string(Normalize(a)))
		}
		if !ok {
			return
		}
		if s := Similarity(&sa, &sa); s != 1 {
			t.Fatalf("self-similarity %v", s)
		}
		if sb, ok := Sign(b); ok {
			if s := Similarity(&sa, &sb); s < 0 || s > 1 {
				t.Fatalf("similarity %v", s)
			}
		}
		if j := Jaccard(a, a); j != 1 {
			t.Fatalf("Jaccard(a, a) = %v", j)
		}
	})
}

// The index returns what a brute-force LSH does: the cluster of the first
// earlier signature that shares a band and is similar enough, through the
// table's growth and long chains (near copies of few texts), and with the
// exact copies it does not file.
func TestIndexMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for _, th := range []float64{0.5, 0.6, 0.8} {
		ix := NewIndex(th)
		var sigs []Signature
		var cluster []int
		for n := range 1200 {
			var s Signature
			if n > 0 && rng.Intn(3) > 0 { // a copy of an earlier one: exact, or near
				s = sigs[rng.Intn(len(sigs))]
				for range rng.Intn(K) * rng.Intn(2) {
					s[rng.Intn(K)] = uint16(rng.Intn(1 << 16))
				}
			} else {
				for i := range s {
					s[i] = uint16(rng.Intn(1 << 16))
				}
			}
			want, wantSim := n, 1.0
			for j, e := range sigs {
				band := false
				for b := 0; b < ix.bands && !band; b++ {
					band = slices.Equal(s[b*ix.rows:(b+1)*ix.rows], e[b*ix.rows:(b+1)*ix.rows])
				}
				if sim := Similarity(&s, &e); band && sim >= th {
					want, wantSim = cluster[j], sim
					break
				}
			}
			got, sim := ix.Add(s)
			if got != want || sim != wantSim {
				t.Fatalf("threshold %v, signature %d: cluster %d (%.3f), brute force %d (%.3f)", th, n, got, sim, want, wantSim)
			}
			sigs, cluster = append(sigs, s), append(cluster, got)
		}
	}
}
