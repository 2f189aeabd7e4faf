// Package schemas embeds the JSON Schemas of ngkit: the record, and (later)
// each structured LLM reply.
package schemas

import "embed"

// FS holds every *.schema.json file of this directory.
//
//go:embed *.schema.json
var FS embed.FS

// Record is the JSON Schema of a record.
func Record() []byte {
	b, err := FS.ReadFile("record.schema.json")
	if err != nil {
		panic(err) // embedded at build time: cannot happen
	}
	return b
}
