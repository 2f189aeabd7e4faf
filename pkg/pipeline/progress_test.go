package pipeline

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openPTY returns both sides of a new pseudo-terminal.
func openPTY(t *testing.T) (ptm, pts *os.File) {
	t.Helper()
	ptm, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { ptm.Close() })
	if err := unix.IoctlSetPointerInt(int(ptm.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(int(ptm.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Skipf("ptsname: %v", err)
	}
	pts, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("open pts: %v", err)
	}
	t.Cleanup(func() { pts.Close() })
	return ptm, pts
}

func TestProgressOnlyOnATerminal(t *testing.T) {
	var buf bytes.Buffer
	if p := NewProgress(&buf, &buf, "ngcat", true, false); p != nil {
		t.Error("progress on a non-terminal")
	}
	_, pts := openPTY(t)
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
	ptm, pts := openPTY(t)
	up := openBoard()
	if up == nil {
		t.Skip("no process groups")
	}
	up.self = "1" // an upstream stage with a smaller pid
	up.publish("ngseed", Stats{In: 120}, false)
	var out bytes.Buffer
	p := NewProgress(pts, &out, "ngcat", false, false)
	if p == nil || p.bar == nil {
		t.Fatal("the last stage does not draw")
	}
	p.Update(Stats{In: 7})
	p.Finish(Stats{In: 41})
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
