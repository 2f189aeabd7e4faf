//go:build unix

package recio

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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

// mayFollow applies the kernel's fs.protected_symlinks rule to a link that
// ngkit follows itself (to replace its target): a link in a sticky folder
// that others may write (/tmp) is followed only if it is the user's own
// or the folder owner's. Otherwise another user's link in /tmp could make
// a root run replace any file.
func mayFollow(link string, st fs.FileInfo) error {
	ls, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	dst, err := os.Stat(filepath.Dir(link))
	if err != nil {
		return err
	}
	ds, ok := dst.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if dst.Mode()&fs.ModeSticky != 0 && dst.Mode().Perm()&0o002 != 0 &&
		int(ls.Uid) != os.Geteuid() && ls.Uid != ds.Uid {
		return errors.New("a symbolic link of another user in a sticky folder open to all: not followed (as the kernel's fs.protected_symlinks)")
	}
	return nil
}
