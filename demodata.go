// Package ngkit holds the repository's bundled release text for the
// built-in demo model (cmd/internal/demo): Go can embed files only from
// the package's own directory down, and the fixtures live in testdata/.
package ngkit

import "embed"

// DemoData is testdata/seed/release.jsonl (the scenarios and situations
// the demo's ngseed answers with) and testdata/normgenesis/*.json (the
// release dialogues its ngv2r answers with).
//
//go:embed testdata/seed/release.jsonl testdata/normgenesis/*.json
var DemoData embed.FS
