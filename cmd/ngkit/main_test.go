package main

import (
	"bytes"
	"regexp"
	"testing"

	"github.com/ngkit/ngkit/cmd/internal/app"
)

// ngkit --version prints the module version, the commit and Go's version.
func TestVersion(t *testing.T) {
	var out, errb bytes.Buffer
	err := dispatch(app.Env{Stdout: &out, Stderr: &errb}, []string{"ngkit", "--version"})
	if err != nil || !regexp.MustCompile(`\Angkit \S+, commit \S+, go1\.\S+\n\z`).MatchString(out.String()) {
		t.Errorf("ngkit --version: %v, %q", err, out.String())
	}
}
