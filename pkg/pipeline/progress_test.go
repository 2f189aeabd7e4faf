package pipeline

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ngkit/ngkit/internal/ptytest"
)

func TestProgressOnlyOnATerminal(t *testing.T) {
	var buf bytes.Buffer
	if p := NewProgress(&buf, &buf, "ngcat", true, false); p != nil {
		t.Error("progress on a non-terminal")
	}
	_, pts := ptytest.Open(t)
	if p := NewProgress(pts, &buf, "ngcat", true, true); p != nil {
		t.Error("progress despite -q")
	}
	r, w, _ := os.Pipe()
	defer r.Close()
	defer w.Close()
	p := NewProgress(pts, w, "ngcat", false, false)
	if p == nil || p.bar != nil {
		t.Error("an upstream stage (stdout a pipe) must publish but not draw")
	}
	if p := NewProgress(pts, w, "ngcat", true, false); p == nil || p.bar == nil {
		t.Error("--progress must draw")
	} else {
		p.Finish(Stats{})
	}
}

// The last stage's bar shows the upstream stages' counts from the board.
func TestProgressShowsEveryStage(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	t.Setenv("XDG_RUNTIME_DIR", "")
	ptm, pts := ptytest.Open(t)
	up := openBoard()
	if up == nil {
		t.Skip("no process groups")
	}
	up.self = "1" // an upstream stage with a smaller pid
	up.publish("ngseed", Stats{In: 3, Out: 120}, false, -1, 0)
	var out bytes.Buffer
	p := NewProgress(pts, &out, "ngcat", false, false)
	if p == nil || p.bar == nil {
		t.Fatal("the last stage does not draw")
	}
	p.Update(Stats{In: 7, Out: 7})
	p.Finish(Stats{In: 41, Out: 41})
	got := make([]byte, 4096)
	ptm.SetReadDeadline(time.Now().Add(2 * time.Second))
	n, _ := ptm.Read(got)
	if s := string(got[:n]); !strings.Contains(s, "ngseed 120 › ngcat 41") {
		t.Errorf("bar: %q", s)
	}
	if _, err := os.Stat(up.dir); !os.IsNotExist(err) {
		t.Error("board not cleared by the last stage")
	}
	if m, _ := filepath.Glob(filepath.Join(os.TempDir(), "ngkit-*", "pg-*", "*")); len(m) > 0 {
		t.Errorf("left behind: %v", m)
	}
}
