// Package safeopen opens files in folders that other users may have
// prepared (a cache, the progress board): without following a symbolic
// link, regular files only, and tells who owns a file. A leaf package, so
// that any package can use it without the weight of pkg/recio.
package safeopen

import (
	"errors"
	"os"
)

// NoFollow opens name without following a symbolic link, and refuses
// anything but a regular file (a FIFO planted under the name would block
// the open, a device would be written).
func NoFollow(name string, flag int, perm os.FileMode) (*os.File, error) {
	f, err := os.OpenFile(name, flag|oNoFollow, perm)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = &os.PathError{Op: "open", Path: name, Err: errors.New("not a regular file")}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
