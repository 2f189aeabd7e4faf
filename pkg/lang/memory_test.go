package lang

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestDefaultMemory reports what loading the Default detector costs (built
// and its models decoded): load time, Go heap and resident set size. It measures in a fresh child process
// (this test binary re-executed) because other tests of this process have
// already loaded the models.
func TestDefaultMemory(t *testing.T) {
	if os.Getenv("NG_LANG_MEMORY_CHILD") == "1" {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		rss0 := procStatus("VmRSS")
		start := time.Now()
		d := Default()
		if set := os.Getenv("NG_LANG_MEMORY_SET"); set != "" {
			var err error
			if d, err = New(strings.Split(set, ",")...); err != nil {
				fmt.Println("ERROR", err)
				return
			}
		}
		if d.ld != nil {
			d.askLingua("ok") // the first text that reaches lingua decodes the models
		}
		load := time.Since(start)
		runtime.GC()
		runtime.ReadMemStats(&after)
		fmt.Printf("MEMORY load=%v heap=%dMB (+%dMB) sys=%dMB rss=%s -> %s peak=%s\n",
			load.Round(time.Millisecond), after.HeapAlloc>>20, (after.HeapAlloc-before.HeapAlloc)>>20,
			after.Sys>>20, rss0, procStatus("VmRSS"), procStatus("VmHWM"))
		return
	}
	if testing.Short() {
		t.Skip("spawns a child process")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestDefaultMemory$", "-test.count=1")
	cmd.Env = append(os.Environ(), "NG_LANG_MEMORY_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "MEMORY ") {
			t.Log(strings.TrimPrefix(l, "MEMORY "))
			return
		}
	}
	t.Fatalf("child printed no measurement:\n%s", out)
}

// BenchmarkDetectorLoad measures, each in a fresh child process, what
// building a detector costs: the load time of its lingua models (ms;
// decoded, and read back from the cache folder) and the resident set
// afterwards (MB), for the candidate set before the
// Southeast Asian languages (old), today's DefaultLanguages (default: old
// plus th and ta, which are decided by script), and every language of the
// built-in profiles (all: default plus zh-Hant, vi, id, ms, tl). Run with
// -benchtime 1x: each iteration is one child process.
func BenchmarkDetectorLoad(b *testing.B) {
	all, err := For("zh-Hant", "vi", "id", "ms", "tl")
	if err != nil {
		b.Fatal(err)
	}
	for _, set := range []struct{ name, langs string }{
		{"old", "en,zh,ko,ja,fr,es,de"},
		{"default", strings.Join(DefaultLanguages, ",")},
		{"all", strings.Join(all.Languages(), ",")},
		{"scripts-only", "en,zh,zh-Hant,ko,ja,th,ta"},
	} {
		b.Run(set.name, func(b *testing.B) {
			var loadMS, rssMB, cachedMS float64
			for range b.N {
				// Twice: the models decoded into an empty cache folder, then
				// read back from it (modelcache.go).
				cache := b.TempDir()
				child := func() []byte {
					cmd := exec.Command(os.Args[0], "-test.run=^TestDefaultMemory$", "-test.count=1")
					cmd.Env = append(os.Environ(), "NG_LANG_MEMORY_CHILD=1", "NG_LANG_MEMORY_SET="+set.langs, "NG_LANG_TEST_CACHE="+cache)
					out, err := cmd.CombinedOutput()
					if err != nil {
						b.Fatalf("child: %v\n%s", err, out)
					}
					return out
				}
				out := child()
				if _, after, ok := strings.Cut(string(child()), "MEMORY load="); ok {
					d, _ := time.ParseDuration(strings.Fields(after)[0])
					cachedMS += float64(d.Milliseconds())
				}
				var load time.Duration
				var rss int
				for _, l := range strings.Split(string(out), "\n") {
					if strings.HasPrefix(l, "MEMORY ") {
						f := strings.Fields(l)
						load, _ = time.ParseDuration(strings.TrimPrefix(f[1], "load="))
						// rss=A kB -> B kB: the value after the arrow
						for i, w := range f {
							if w == "->" {
								fmt.Sscan(f[i+1], &rss)
							}
						}
					}
				}
				if rss == 0 {
					b.Fatalf("child printed no measurement:\n%s", out)
				}
				loadMS += float64(load.Milliseconds())
				rssMB += float64(rss) / 1024
			}
			b.ReportMetric(loadMS/float64(b.N), "load-ms")
			b.ReportMetric(cachedMS/float64(b.N), "cached-load-ms")
			b.ReportMetric(rssMB/float64(b.N), "rss-MB")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// procStatus returns a field of /proc/self/status ("VmRSS" -> "169020 kB"),
// or "?" where there is no procfs.
func procStatus(field string) string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "?"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "?"
}
