// Package seedtest is the fake model of ngseed's tests: the canned ngseed
// model (internal/canned/seedreply) on the release pairs of
// testdata/seed/release.jsonl (chosen from the release by filters/seed's
// TestReleasePool), found from this source file whatever the test's
// working directory.
package seedtest

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/ngkit/ngkit/internal/canned/seedreply"
	"github.com/ngkit/ngkit/pkg/record"
)

// The pool, its pairs and the replier are the canned model's.
type (
	Pair    = seedreply.Pair
	Pool    = seedreply.Pool
	Replier = seedreply.Replier
)

// PoolFile is the fixture, from the repository root.
const PoolFile = "testdata/seed/release.jsonl"

// Path finds the fixture from this source file, whatever the test's
// working directory.
func Path() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", PoolFile)
}

// Load reads the fixture (Path() when file is "").
func Load(file string) (*Pool, error) {
	if file == "" {
		file = Path()
	}
	return seedreply.Load(file)
}

// Write writes pairs as the fixture file.
func Write(file string, pairs []Pair) error {
	var b strings.Builder
	for _, x := range pairs {
		rec := record.Record{ID: x.ID, Culture: x.Culture, Category: x.Category, DialogueType: x.Type,
			Scenario: x.Scenario, Situation: x.Situation}
		line, err := rec.AppendJSON(nil)
		if err != nil {
			return err
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return os.WriteFile(file, []byte(b.String()), 0o644)
}
