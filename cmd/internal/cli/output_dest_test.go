//go:build unix

package cli

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// ngcat -o /dev/fd/1 writes to its stdout (a pipe here), and -o FIFO to
// the FIFO's reader: neither is replaced by a file. Not
// /dev/stdout itself: as root, a regression would replace the machine's.
func TestNgcatOutputIntoStdoutAndFIFO(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	os.WriteFile(in, []byte(`{"id":"a","culture":"korean"}`+"\n"+`{"id":"b","culture":"korean"}`+"\n"), 0o644)
	ngcat := func(args ...string) *exec.Cmd {
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), "NGKIT_TEST_NGCAT=1")
		return cmd
	}
	out, err := ngcat(in, "-o", "/dev/fd/1", "--errors", "/proc/self/fd/2").Output()
	if err != nil || strings.Count(string(out), `"id"`) != 2 {
		t.Errorf("-o /dev/fd/1: %v, stdout %q", err, out)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- string(b)
	}()
	if b, err := ngcat(in, "-o", fifo).CombinedOutput(); err != nil {
		t.Fatalf("-o FIFO: %v %s", err, b)
	}
	select {
	case s := <-got:
		if strings.Count(s, `"id"`) != 2 {
			t.Errorf("the FIFO's reader got %q", s)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the FIFO's reader got nothing")
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v", err)
	}
}
