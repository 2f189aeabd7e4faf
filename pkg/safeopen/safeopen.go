// Package safeopen opens files in folders that other users may have
// prepared (a cache, the progress board): without following a symbolic
// link, regular files only; it tells who owns a file and whether a folder
// is the user's own. A leaf package, so
// that any package can use it without the weight of pkg/recio.
package safeopen

import (
	"errors"
	"fmt"
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

// The reasons OwnDir refuses a folder.
var (
	ErrNotOwned    = errors.New("the folder is another user's")
	ErrOthersWrite = errors.New("other users may write the folder")
)

type dirError struct {
	reason error
	msg    string
}

func (e *dirError) Error() string { return e.msg }
func (e *dirError) Unwrap() error { return e.reason }

// OwnDir returns nil when dir is a folder of this user's that no other user
// may write, else why not (wrapping ErrNotOwned or ErrOthersWrite, with
// the owner or the mode): whoever may write a cache folder chooses what is
// read from it.
func OwnDir(dir string) error {
	st, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return &os.PathError{Op: "stat", Path: dir, Err: errors.New("not a folder")}
	}
	if uid, ok := Owner(st); ok && uid != os.Geteuid() {
		return &dirError{ErrNotOwned, fmt.Sprintf("the folder is uid %d's, not this user's", uid)}
	}
	if st.Mode().Perm()&0o022 != 0 {
		return &dirError{ErrOthersWrite, fmt.Sprintf("other users may write the folder (mode %04o)", st.Mode().Perm())}
	}
	return nil
}
