//go:build unix

package llm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A link planted in a shared cache does not send the replies appended
// into the file it points to, nor feed replies from it.
func TestCacheDoesNotFollowLinks(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	c, err := OpenCache(dir)
	if err != nil {
		t.Fatal(err)
	}
	key := strings.Repeat("ab", 32)
	victim := filepath.Join(t.TempDir(), "victim")
	os.WriteFile(victim, []byte("\n"+key+"\t{\"content\":\"forged\"}\n"), 0o600)
	if err := os.Symlink(victim, c.bucket(key)); err != nil {
		t.Fatal(err)
	}
	if e, ok := c.get(key); ok {
		t.Errorf("read through a link: %+v", e)
	}
	if err := c.put(key, &cacheEntry{Content: "reply"}); err == nil {
		t.Error("put through a link: no error")
	}
	if b, _ := os.ReadFile(victim); strings.Contains(string(b), "reply") {
		t.Errorf("the victim file was appended to: %q", b)
	}
}

// A cache folder that others may write, or of another user, is refused
// with one line naming it.
func TestCacheRefusesAFolderOthersWrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "shared")
	os.Mkdir(dir, 0o777)
	os.Chmod(dir, 0o777)
	if _, err := OpenCache(dir); err == nil || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "other users may write") {
		t.Errorf("mode 0777: %v", err)
	}
	os.Chmod(dir, 0o775)
	if _, err := OpenCache(dir); err == nil {
		t.Error("mode 0775: no error")
	}
	os.Chmod(dir, 0o755)
	if _, err := OpenCache(dir); err != nil {
		t.Errorf("mode 0755: %v", err)
	}
	if os.Getuid() == 0 {
		os.Chown(dir, 4242, 4242)
		if _, err := OpenCache(dir); err == nil || !strings.Contains(err.Error(), "uid 4242") {
			t.Errorf("another user's folder: %v", err)
		}
	}
}
