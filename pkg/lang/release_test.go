package lang

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"
)

// The NormGenesis release is not in the repository (CI has only the repo);
// tests that need it skip when it is absent.

func releaseDir() string {
	if d := os.Getenv("NG_RELEASE_DIR"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "..", "shared", "data", "normgenesis")
}

type releaseFile struct {
	name     string // e.g. "korean_violation"
	expected string // "en", "zh", "ko"
	turns    []string
}

var (
	releaseOnce  sync.Once
	releaseFiles []releaseFile
	releaseErr   error
)

// loadRelease reads every <culture>_<type>.json of the release and splits
// the dialogues into turns crudely: on real newlines and on literal "\n",
// keeping the text after the first ':' or '：' (the real parser lives in
// pkg/dialogue). Lines without a colon (narration, stage directions) are
// kept whole.
func loadRelease(tb testing.TB) []releaseFile {
	tb.Helper()
	releaseOnce.Do(func() {
		paths, err := filepath.Glob(filepath.Join(releaseDir(), "*.json"))
		if err != nil || len(paths) == 0 {
			releaseErr = os.ErrNotExist
			return
		}
		sort.Strings(paths)
		for _, p := range paths {
			name := strings.TrimSuffix(filepath.Base(p), ".json")
			var expected string
			switch strings.SplitN(name, "_", 2)[0] {
			case "american":
				expected = "en"
			case "chinese":
				expected = "zh"
			case "korean":
				expected = "ko"
			default:
				continue
			}
			data, err := os.ReadFile(p)
			if err != nil {
				releaseErr = err
				return
			}
			var recs []struct {
				Dialogue string `json:"dialogue"`
			}
			if err := json.Unmarshal(data, &recs); err != nil {
				releaseErr = err
				return
			}
			f := releaseFile{name: name, expected: expected}
			for _, r := range recs {
				f.turns = append(f.turns, splitTurns(r.Dialogue)...)
			}
			releaseFiles = append(releaseFiles, f)
		}
	})
	if releaseErr != nil || len(releaseFiles) == 0 {
		tb.Skipf("NormGenesis release not found at %s (set NG_RELEASE_DIR): %v", releaseDir(), releaseErr)
	}
	return releaseFiles
}

func splitTurns(dialogue string) []string {
	var turns []string
	dialogue = strings.ReplaceAll(dialogue, `\n`, "\n")
	for _, line := range strings.Split(dialogue, "\n") {
		if i := strings.IndexAny(line, ":："); i >= 0 {
			_, w := utf8.DecodeRuneInString(line[i:])
			line = line[i+w:]
		}
		line = strings.TrimSpace(line)
		if line != "" {
			turns = append(turns, line)
		}
	}
	return turns
}

func allReleaseTurns(tb testing.TB) []string {
	var all []string
	for _, f := range loadRelease(tb) {
		all = append(all, f.turns...)
	}
	return all
}

// BenchmarkDetectRelease detects every turn of the release with the Default
// detector from b.N iterations spread over GOMAXPROCS goroutines. Run with
// -cpu 1,2; the goal is ≥ 100k turns/s on 2 cores.
func BenchmarkDetectRelease(b *testing.B) {
	turns := allReleaseTurns(b)
	d := Default()
	b.ResetTimer()
	var next atomic.Int64
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := next.Add(1) - 1
			d.Detect(turns[i%int64(len(turns))])
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "turns/s")
}

// TestRelease detects every turn of the release and checks that the share
// of confident turns in the file's expected language is high. The release
// really contains some wrong-language turns (e.g. whole English dialogues
// in korean_adherence), so the bar is not 1.
func TestRelease(t *testing.T) {
	files := loadRelease(t)
	d := Default()
	for _, f := range files {
		share, langs := d.Check(f.turns, f.expected)
		counts := map[string]int{}
		methods := map[Method]int{}
		var bad []string
		for i, s := range f.turns {
			r := d.Detect(s)
			methods[r.Method]++
			if r.Lang != langs[i] {
				t.Fatalf("Check and Detect disagree on %q", s)
			}
			if r.Confidence < MinConfidence {
				counts["(weak)"]++
				continue
			}
			counts[r.Lang]++
			if r.Lang != f.expected {
				bad = append(bad, fmt.Sprintf("%s %.2f %v %q", r.Lang, r.Confidence, r.Method, s))
			}
		}
		t.Logf("%-20s expected %s: share %.4f of %d confident turns (%d turns; %v; methods %v)",
			f.name, f.expected, share, len(f.turns)-counts["(weak)"], len(f.turns), counts, methods)
		for i, b := range bad {
			if i == 5 {
				t.Logf("    ... %d more", len(bad)-5)
				break
			}
			t.Logf("    %s", b)
		}
		if share < 0.99 {
			t.Errorf("%s: share %.4f of turns in %s, want >= 0.99", f.name, share, f.expected)
		}
	}
}

// TestWordsAgreeWithLingua checks the function-word fast path against
// lingua on every release turn it decides: they must agree on nearly all.
// The disagreements seen are lingua's errors on short English turns ("Oh,
// I bet!" -> de, "Can I come in?" -> es).
func TestWordsAgreeWithLingua(t *testing.T) {
	files := loadRelease(t)
	d := Default()
	noWords := *d
	noWords.words = false
	n, dis := 0, 0
	for _, f := range files {
		for _, s := range f.turns {
			r := d.Detect(s)
			if r.Method != ByWords || r.Confidence < MinConfidence {
				continue
			}
			n++
			if r2 := noWords.Detect(s); r2.Lang != r.Lang {
				dis++
				if dis <= 5 {
					t.Logf("words %s, lingua %s (%.2f): %q", r.Lang, r2.Lang, r2.Confidence, s)
				}
			}
		}
	}
	t.Logf("function words decided %d confident turns; lingua disagrees on %d (%.3f%%)", n, dis, 100*float64(dis)/float64(n))
	if float64(dis) > 0.005*float64(n) {
		t.Errorf("lingua disagrees with the function-word vote on %d of %d turns", dis, n)
	}
}

// TestHanFormsOnRelease: the Chinese turns of the release (Simplified) are
// never taken for Traditional, and the same turns converted to Traditional
// by ICU's Hans-Hant transliterator (uconv, a converter that is not ours)
// are taken for Traditional. Turns with no character of only one form are
// weak, not wrong. Needs the release and uconv (Debian icu-devtools).
func TestHanFormsOnRelease(t *testing.T) {
	files := loadRelease(t)
	uconv, err := exec.LookPath("uconv")
	if err != nil {
		t.Skip("uconv (ICU, Debian package icu-devtools) not installed")
	}
	var simp []string
	for _, f := range files {
		if f.expected == "zh" {
			for _, s := range f.turns {
				if !strings.Contains(s, "\n") {
					simp = append(simp, s)
				}
			}
		}
	}
	cmd := exec.Command(uconv, "-f", "utf-8", "-t", "utf-8", "-x", "Hans-Hant")
	cmd.Stdin = strings.NewReader(strings.Join(simp, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("uconv: %v", err)
	}
	trad := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(trad) != len(simp) {
		t.Fatalf("uconv gave %d lines for %d", len(trad), len(simp))
	}
	d, err := For("zh-Hant")
	if err != nil {
		t.Fatal(err)
	}
	count := func(turns []string, want, other string) (ok, wrong, weak int) {
		for _, s := range turns {
			if Default().Detect(s).Lang != "zh" {
				continue // English or Korean turns of the Chinese files
			}
			switch r := d.Detect(s); {
			case r.Confidence < MinConfidence:
				weak++
			case r.Lang == want:
				ok++
			case r.Lang == other:
				wrong++
				if wrong <= 3 {
					t.Logf("%s taken for %s: %q", want, other, s)
				}
			}
		}
		return
	}
	for _, c := range []struct {
		name, want, other string
		turns             []string
	}{
		{"release (Simplified)", "zh", "zh-Hant", simp},
		{"release converted to Traditional", "zh-Hant", "zh", trad},
	} {
		ok, wrong, weak := count(c.turns, c.want, c.other)
		t.Logf("%s: %d %s, %d %s, %d weak (no distinguishing character)", c.name, ok, c.want, wrong, c.other, weak)
		if float64(wrong) > 0.001*float64(ok+wrong) {
			t.Errorf("%s: %d of %d confident turns taken for %s", c.name, wrong, ok+wrong, c.other)
		}
		if float64(weak) > 0.1*float64(ok+wrong+weak) {
			t.Errorf("%s: %d of %d turns weak", c.name, weak, ok+wrong+weak)
		}
	}
}
