// Package fakeng is the all-stage fake model of the tests: the canned
// model (internal/canned) on the repository's release fixtures, for shell
// tests of ngseed | ngrefine | ngv2r | nglabel on the fake server
// (pkg/llm/llmtest, cmd/fakeng) and the tests of ngpact and ngsim.
package fakeng

import (
	"github.com/ngkit/ngkit/filters/imports"
	"github.com/ngkit/ngkit/filters/seed/seedtest"
	"github.com/ngkit/ngkit/filters/v2r/v2rtest"
	"github.com/ngkit/ngkit/internal/canned"
)

// The canned model and its PACT bias.
type (
	Model    = canned.Model
	PactBias = canned.PactBias
)

// Rules are ngv2r's defaults: the fake's dialogues pass them.
var Rules = canned.Rules

// LoadPool loads the demo's fixture (canned.LoadPool).
var LoadPool = canned.LoadPool

// New loads the release fixtures of the stages' fakes from the repository.
func New() (*Model, error) { return Load(seedtest.Path(), v2rtest.ReleaseFiles()) }

// Load loads the fixtures from the files given: ngseed's pool
// (testdata/seed/release.jsonl) and the release sample's files
// (testdata/normgenesis/*.json).
func Load(poolFile string, releaseFiles []string) (*Model, error) {
	pool, err := seedtest.Load(poolFile)
	if err != nil {
		return nil, err
	}
	recs, err := imports.ReadNormGenesis(releaseFiles)
	if err != nil {
		return nil, err
	}
	return canned.New(pool, false, recs)
}
