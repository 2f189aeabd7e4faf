//go:build unix

package safeopen

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestNoFollow(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	fifo := filepath.Join(dir, "fifo")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := NoFollow(file, os.O_RDONLY, 0)
	if err != nil {
		t.Fatalf("a regular file: %v", err)
	}
	st, _ := f.Stat()
	f.Close()
	if uid, ok := Owner(st); !ok || uid != os.Geteuid() {
		t.Errorf("Owner = %d, %v; want %d", uid, ok, os.Geteuid())
	}
	for _, name := range []string{link, fifo, dir} {
		if f, err := NoFollow(name, os.O_RDONLY, 0); err == nil {
			f.Close()
			t.Errorf("%s opened", name)
		}
	}
	if f, err := NoFollow(link, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600); err == nil {
		f.Close()
		t.Error("a link opened for writing")
	}
	if b, _ := os.ReadFile(file); string(b) != "x" {
		t.Errorf("the link's target was written: %q", b)
	}
}
