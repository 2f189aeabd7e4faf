//go:build unix

package recio

import (
	"os"
	"syscall"
)

// processUmask is read once at start-up, before other goroutines create
// files: umask can only be read by setting it.
var processUmask = func() os.FileMode {
	m := syscall.Umask(0o022)
	syscall.Umask(m)
	return os.FileMode(m)
}()

func umask() os.FileMode { return processUmask }
