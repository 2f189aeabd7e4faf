//go:build unix

package recio

import (
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ngkit/ngkit/internal/nonroot"
)

// write is Create, one write, Commit.
func write(t *testing.T, path, text string) error {
	t.Helper()
	o, err := Create(path, JSONL, nil)
	if err != nil {
		return err
	}
	if _, err := io.WriteString(o.Writer(), text); err != nil {
		o.Abort()
		return err
	}
	return o.Commit()
}

// -o onto a device writes into it: as root, renaming over /dev/null made
// it a regular file. Root gets a copy of /dev/null's node in a temporary
// folder (the real one is not risked); a user, who cannot replace it, the
// real /dev/null.
func TestCreateWritesIntoADevice(t *testing.T) {
	nonroot.Rerun(t)
	null := "/dev/null"
	if os.Getuid() == 0 {
		null = filepath.Join(t.TempDir(), "null")
		if err := syscall.Mknod(null, syscall.S_IFCHR|0o666, int(mkdev(1, 3))); err != nil {
			t.Skipf("mknod: %v", err)
		}
	}
	if err := write(t, null, "{}\n"); err != nil {
		t.Fatal(err)
	}
	st, err := os.Lstat(null)
	if err != nil || st.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("%s is no longer a character device: %v %v", null, st.Mode(), err)
	}
	if m, _ := filepath.Glob(filepath.Join(filepath.Dir(null), ".null.tmp-*")); len(m) > 0 {
		t.Errorf("temporary files left: %v", m)
	}
}

func mkdev(major, minor uint64) uint64 {
	return (minor & 0xff) | ((major & 0xfff) << 8) | ((minor &^ 0xff) << 12) | ((major &^ 0xfff) << 32)
}

// /dev/fd/N, /proc/self/fd/N and /dev/stdout are the process's open
// descriptors (bash's >(cmd) is /dev/fd/63): written into, left open.
func TestCreateWritesIntoADescriptor(t *testing.T) {
	nonroot.Rerun(t)
	for _, dir := range []string{"/dev/fd/", "/proc/self/fd/"} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		path := dir + strconv.Itoa(int(w.Fd()))
		if err := write(t, path, "{}\n"); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if _, err := w.WriteString("after\n"); err != nil { // still open
			t.Errorf("%s: the descriptor was closed: %v", path, err)
		}
		w.Close()
		b, _ := io.ReadAll(r)
		r.Close()
		if string(b) != "{}\nafter\n" {
			t.Errorf("%s: the pipe got %q", path, b)
		}
	}
	if o, err := Create("/dev/fd/987", JSONL, nil); err == nil {
		o.Abort()
		t.Error("a descriptor that is not open: no error")
	}
	for _, p := range []string{"/dev/stdout", "/dev/stderr", "/proc/self/fd/1", "/dev/fd/0"} {
		if _, ok := fdPath(p); !ok {
			t.Errorf("%s: not taken for a descriptor", p)
		}
	}
	for _, p := range []string{"/dev/fd/x", "/dev/fd/", "/dev/fd/01", "/proc/1/fd/1", "/dev/null"} {
		if _, ok := fdPath(p); ok && !(p == "/proc/1/fd/1" && os.Getpid() == 1) {
			t.Errorf("%s: taken for a descriptor", p)
		}
	}
}

// A FIFO is written into (its reader gets the output), not replaced.
func TestCreateWritesIntoAFIFO(t *testing.T) {
	nonroot.Rerun(t)
	fifo := filepath.Join(t.TempDir(), "fifo")
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
	if err := write(t, fifo, "{}\n"); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-got:
		if s != "{}\n" {
			t.Errorf("the reader got %q", s)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the reader got nothing")
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v %v", st.Mode(), err)
	}
}

// A socket is connected to and written into.
func TestCreateWritesIntoASocket(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "s")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Skip(err)
	}
	defer l.Close()
	l.(*net.UnixListener).SetDeadline(time.Now().Add(5 * time.Second))
	got := make(chan string, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(c)
		got <- string(b)
	}()
	if err := write(t, sock, "{}\n"); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "{}\n" {
		t.Errorf("the socket got %q", s)
	}
}

// A link to a regular file is followed, as the shell's > follows it: the
// target is replaced (atomically, in its own folder), the link stays. A
// dangling link makes its target.
func TestCreateFollowsLinks(t *testing.T) {
	nonroot.Rerun(t)
	dir := t.TempDir()
	other := filepath.Join(dir, "other")
	os.Mkdir(other, 0o755)
	target := filepath.Join(other, "data.jsonl")
	os.WriteFile(target, []byte("old\n"), 0o644)
	link := filepath.Join(dir, "latest.jsonl")
	os.Symlink("other/data.jsonl", link)
	chain := filepath.Join(dir, "chain.jsonl")
	os.Symlink(link, chain)
	if err := write(t, chain, "new\n"); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new\n" {
		t.Errorf("target: %q", b)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "*", ".*")); len(m) > 0 {
		t.Errorf("temporary files left: %v", m)
	}
	// Dangling: the named file is made, in its own folder.
	dangling := filepath.Join(dir, "next.jsonl")
	os.Symlink("other/new.jsonl", dangling)
	if err := write(t, dangling, "x\n"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(other, "new.jsonl")); string(b) != "x\n" {
		t.Errorf("dangling link's target: %q", b)
	}
	if st, err := os.Lstat(dangling); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the dangling link was replaced: %v", err)
	}
	// ... but folders are not made through a link.
	nowhere := filepath.Join(dir, "nowhere.jsonl")
	os.Symlink("missing/dir/x.jsonl", nowhere)
	if err := write(t, nowhere, "x\n"); err == nil || !strings.Contains(err.Error(), nowhere) {
		t.Errorf("link into a missing folder: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "missing")); err == nil {
		t.Error("a folder was made through a link")
	}
	loop := filepath.Join(dir, "loop")
	os.Symlink("loop", loop)
	if err := write(t, loop, "x\n"); err == nil || !strings.Contains(err.Error(), "symbolic links") {
		t.Errorf("a link loop: %v", err)
	}
	if err := write(t, other, "x\n"); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("a folder: %v", err)
	}
}

// Another user's link in a sticky folder open to all (/tmp) is not
// followed: as root, following it would replace any file.
func TestCreateRefusesAnotherUsersLinkInTmp(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root (chown)")
	}
	dir := t.TempDir()
	tmp := filepath.Join(dir, "tmp")
	os.Mkdir(tmp, 0o777)
	os.Chmod(tmp, 0o777|os.ModeSticky)
	victim := filepath.Join(dir, "victim")
	os.WriteFile(victim, []byte("keep\n"), 0o644)
	link := filepath.Join(tmp, "out.jsonl")
	os.Symlink(victim, link)
	if err := os.Lchown(link, 4242, 4242); err != nil {
		t.Fatal(err)
	}
	if err := write(t, link, "x\n"); err == nil || !strings.Contains(err.Error(), "protected_symlinks") {
		t.Errorf("another user's link in a sticky folder: %v", err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep\n" {
		t.Errorf("victim: %q", b)
	}
	// The user's own link there is followed.
	os.Lchown(link, 0, 0)
	if err := write(t, link, "x\n"); err != nil {
		t.Error(err)
	}
}

func TestWriteFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a", "b.json")
	if err := WriteFile(p, []byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "{}\n" {
		t.Errorf("%q", b)
	}
}
