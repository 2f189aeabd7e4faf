//go:build unix

package safeopen

import (
	"io/fs"
	"syscall"
)

// Owner is the user id that owns the file of st.
func Owner(st fs.FileInfo) (int, bool) {
	s, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(s.Uid), true
}

// oNoFollow makes open fail on a symbolic link (and not block on a FIFO).
const oNoFollow = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
