//go:build unix

package recio

import (
	"fmt"
	"os"
	"syscall"
)

// dupFile is a new *os.File on a copy of descriptor fd: closing it leaves
// fd open (stdout stays stdout).
func dupFile(fd int, name string) (*os.File, error) {
	nfd, err := syscall.Dup(fd)
	if err != nil {
		return nil, fmt.Errorf("file descriptor %d: %w", fd, err)
	}
	syscall.CloseOnExec(nfd)
	return os.NewFile(uintptr(nfd), name), nil
}
