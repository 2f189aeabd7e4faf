// Package v2rtest is the fake dialogue model of ngv2r's tests: the canned
// ngv2r model (internal/canned/v2rreply) on the NormGenesis release sample
// (testdata/normgenesis). Its callers import the sample
// (imports.ReadNormGenesis of ReleaseFiles), so that no filter's package
// imports another filter's.
package v2rtest

import (
	"path/filepath"
	"runtime"

	"github.com/ngkit/ngkit/internal/canned/v2rreply"
)

// ReleaseFiles are the files of the release sample, found from this
// source file whatever the working directory.
func ReleaseFiles() []string {
	_, file, _, _ := runtime.Caller(0)
	files, _ := filepath.Glob(filepath.Join(filepath.Dir(file), "..", "..", "..", "testdata", "normgenesis", "*.json"))
	return files
}

// The canned model's types and functions, by their names in the tests.
type (
	Check   = v2rreply.Check
	Pair    = v2rreply.Pair
	Replier = v2rreply.Replier
)

var (
	Pairs        = v2rreply.Pairs
	Staged       = v2rreply.Staged
	JSON         = v2rreply.JSON
	Text         = v2rreply.Text
	FirstUser    = v2rreply.FirstUser
	ScenarioLine = v2rreply.ScenarioLine
	NewReplier   = v2rreply.NewReplier
	CultureOf    = v2rreply.CultureOf
)
