//go:build unix

// Package nonroot runs a test a second time as an unprivileged user when
// the tests run as root (as CI does), so that one test covers both: what
// root may do (replace /dev/null, chown) differs from what a user may.
package nonroot

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
)

const envVar = "NGKIT_TEST_NONROOT"

// UID is the user the test runs again as: nobody.
const UID = 65534

// Child reports whether this process is the run as UID.
func Child() bool { return os.Getenv(envVar) != "" }

// Rerun runs the calling top-level test again, in a child process as user
// nobody, when this one runs as root, and fails t with the child's output
// if the child fails. Not root (or already the child): nothing.
func Rerun(t *testing.T) {
	t.Helper()
	if Child() || os.Getuid() != 0 {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The test binary sits in a folder of root's only: copy it where
	// nobody may run it, with a temporary folder nobody may write.
	dir := t.TempDir()
	tmp := filepath.Join(dir, "tmp")
	bin := filepath.Join(dir, "test.bin")
	if err := os.Mkdir(tmp, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(filepath.Dir(dir), 0o755) // t.TempDir's own folder
	os.Chmod(dir, 0o755)
	os.Chmod(tmp, 0o777)
	if err := copyFile(exe, bin); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^"+regexp.QuoteMeta(t.Name())+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), envVar+"=1", "TMPDIR="+tmp, "HOME="+tmp, "XDG_RUNTIME_DIR=", "GOCOVERDIR=")
	cmd.Dir = tmp // the checkout may sit in a folder nobody cannot enter (/root)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: UID, Gid: UID}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Errorf("%s as uid %d: %v\n%s", t.Name(), UID, err, out)
	}
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
