// Package ngkit holds the repository's bundled release text for the
// built-in demo model (cmd/internal/demo): Go can embed files only from
// the package's own directory down, and the fixtures live in testdata/.
package ngkit

import _ "embed"

// DemoPool is testdata/demo/release.parquet: release records whose
// scenarios and situations the demo's ngseed answers with and whose
// dialogues its ngv2r answers with (internal/demopool made it).
//
//go:embed testdata/demo/release.parquet
var DemoPool []byte
