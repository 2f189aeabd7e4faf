//go:build unix

package pipeline

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// boardBase is where openBoard puts the board with TMPDIR=tmp and no
// $XDG_RUNTIME_DIR.
func boardBase(t *testing.T) (tmp, base string) {
	t.Helper()
	tmp = t.TempDir()
	t.Setenv("TMPDIR", tmp)
	t.Setenv("XDG_RUNTIME_DIR", "")
	if processGroup() <= 0 {
		t.Skip("no process groups")
	}
	return tmp, filepath.Join(tmp, "ngkit-"+strconv.Itoa(os.Getuid()))
}

// Another user may have made the board's folder in /tmp first: a folder
// open to all, or one of theirs, or a link, is not used.
func TestBoardRefusesAFolderNotTheUsers(t *testing.T) {
	_, base := boardBase(t)
	if err := os.Mkdir(base, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(base, 0o777)
	if b := openBoard(); b != nil {
		t.Errorf("a folder of mode 0777 taken: %s", b.dir)
	}
	os.Chmod(base, 0o700)
	if b := openBoard(); b == nil {
		t.Fatal("the user's own folder of mode 0700 refused")
	}
	if os.Getuid() == 0 {
		os.Chown(base, 4242, 4242)
		if b := openBoard(); b != nil {
			t.Errorf("a folder of uid 4242 taken: %s", b.dir)
		}
	}
	os.RemoveAll(base)
	elsewhere := t.TempDir()
	os.Symlink(elsewhere, base)
	if b := openBoard(); b != nil {
		t.Errorf("a link taken: %s", b.dir)
	}
	// The per-pipeline folder is checked too.
	os.Remove(base)
	os.Mkdir(base, 0o700)
	pg := filepath.Join(base, "pg-"+strconv.Itoa(processGroup()))
	os.Mkdir(pg, 0o777)
	os.Chmod(pg, 0o777)
	if b := openBoard(); b != nil {
		t.Errorf("a pg- folder of mode 0777 taken: %s", b.dir)
	}
}

// Links planted in the board do not make publish write the files they
// point to.
func TestBoardDoesNotFollowLinks(t *testing.T) {
	tmp, _ := boardBase(t)
	b := openBoard()
	if b == nil {
		t.Fatal("no board")
	}
	victim := filepath.Join(tmp, "victim")
	os.WriteFile(victim, []byte("keep\n"), 0o600)
	os.Symlink(victim, filepath.Join(b.dir, "."+b.self))
	os.Symlink(victim, filepath.Join(b.dir, b.self))
	b.publish("ngcat", Stats{Out: 3}, false, -1, 0)
	if got, _ := os.ReadFile(victim); string(got) != "keep\n" {
		t.Errorf("the victim file was written: %q", got)
	}
	// A link in the board is not read either.
	other := *b
	other.self = "999999"
	os.Symlink(victim, filepath.Join(b.dir, "2"))
	os.WriteFile(victim, []byte(strconv.FormatInt(b.start, 10)+" evil 1 false\n"), 0o600)
	if s := other.read(); strings.Contains(s, "evil") {
		t.Errorf("a link's target read: %q", s)
	}
}

// A line with escape sequences (another stage's, or an attacker's) is
// not drawn; a plain one is.
func TestBoardDropsControlCharacters(t *testing.T) {
	_, _ = boardBase(t)
	b := openBoard()
	if b == nil {
		t.Fatal("no board")
	}
	start := strconv.FormatInt(b.start, 10)
	os.WriteFile(filepath.Join(b.dir, "1"), []byte(start+" ngseed 120 false -1 0\n"), 0o600)
	os.WriteFile(filepath.Join(b.dir, "2"), []byte(start+" \x1b]52;c;ZXZpbA==\x07 5 false -1 0\n"), 0o600)
	os.WriteFile(filepath.Join(b.dir, "3"), []byte(start+" \x1b[2J 5 false -1 0\n"), 0o600)
	os.WriteFile(filepath.Join(b.dir, "4"), []byte(start+" a\u009bb 5 false -1 0\n"), 0o600)
	if got := b.read(); got != "ngseed 120" {
		t.Errorf("read: %q", got)
	}
}

// With $XDG_RUNTIME_DIR set, the board is there, not in /tmp.
func TestBoardUsesXDGRuntimeDir(t *testing.T) {
	tmp, _ := boardBase(t)
	run := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", run)
	b := openBoard()
	if b == nil || !strings.HasPrefix(b.dir, filepath.Join(run, "ngkit")+"/") {
		t.Fatalf("board: %+v", b)
	}
	b.publish("ngcat", Stats{Out: 1}, false, -1, 0)
	if m, _ := filepath.Glob(filepath.Join(tmp, "*")); len(m) > 0 {
		t.Errorf("in TMPDIR: %v", m)
	}
	var st syscall.Stat_t
	if syscall.Lstat(b.dir, &st) != nil || st.Mode&0o777 != 0o700 {
		t.Errorf("board mode %o", st.Mode&0o777)
	}
}
