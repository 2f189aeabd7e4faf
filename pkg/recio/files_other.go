//go:build !unix

package recio

import (
	"errors"
	"os"
)

func dupFile(fd int, name string) (*os.File, error) {
	return nil, errors.New("file descriptors by name are not supported here")
}
