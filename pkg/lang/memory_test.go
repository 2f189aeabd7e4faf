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

// TestDefaultMemory reports what loading the Default detector costs: load
// time, Go heap and resident set size. It measures in a fresh child process
// (this test binary re-executed) because other tests of this process have
// already loaded the models.
func TestDefaultMemory(t *testing.T) {
	if os.Getenv("NG_LANG_MEMORY_CHILD") == "1" {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		rss0 := procStatus("VmRSS")
		start := time.Now()
		Default()
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
