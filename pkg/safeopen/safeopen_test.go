//go:build unix

package safeopen

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
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

func TestOwnDir(t *testing.T) {
	dir := t.TempDir()
	if err := OwnDir(dir); err != nil {
		t.Errorf("a folder of one's own: %v", err)
	}
	os.Chmod(dir, 0o777)
	if err := OwnDir(dir); !errors.Is(err, ErrOthersWrite) || !strings.Contains(err.Error(), "0777") {
		t.Errorf("a folder all may write: %v", err)
	}
	os.Chmod(dir, 0o720)
	if err := OwnDir(dir); !errors.Is(err, ErrOthersWrite) {
		t.Errorf("a folder its group may write: %v", err)
	}
	os.Chmod(dir, 0o755)
	file := filepath.Join(dir, "f")
	os.WriteFile(file, nil, 0o600)
	if err := OwnDir(file); err == nil {
		t.Error("a file taken for a folder")
	}
	if err := OwnDir(filepath.Join(dir, "none")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("no folder: %v", err)
	}
	if os.Geteuid() == 0 {
		other := filepath.Join(dir, "other")
		os.Mkdir(other, 0o700)
		os.Chown(other, 65534, 65534)
		if err := OwnDir(other); !errors.Is(err, ErrNotOwned) || !strings.Contains(err.Error(), "uid 65534's") {
			t.Errorf("another user's folder: %v", err)
		}
	}
}
