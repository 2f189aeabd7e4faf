//go:build !unix

package nonroot

import "testing"

// UID is the user the test runs again as.
const UID = 65534

// Child reports whether this process is the run as UID.
func Child() bool { return false }

// Rerun does nothing where user ids do not apply.
func Rerun(t *testing.T) {}
