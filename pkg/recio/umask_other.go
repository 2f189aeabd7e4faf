//go:build !unix

package recio

import "os"

func umask() os.FileMode { return 0o022 }
