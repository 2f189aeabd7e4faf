// Package schemas embeds the JSON Schemas of ngkit: the record, and each
// structured LLM reply (llm/<name>.schema.json, named by pkg/llm calls).
package schemas

import (
	"embed"
	"fmt"
)

// FS holds every *.schema.json file of this directory and of llm/.
//
//go:embed *.schema.json llm/*.schema.json
var FS embed.FS

// Record is the JSON Schema of a record.
func Record() []byte {
	b, err := FS.ReadFile("record.schema.json")
	if err != nil {
		panic(err) // embedded at build time: cannot happen
	}
	return b
}

// LLM returns the schema of a structured LLM reply by name: the file
// llm/<name>.schema.json.
func LLM(name string) ([]byte, error) {
	b, err := FS.ReadFile("llm/" + name + ".schema.json")
	if err != nil {
		return nil, fmt.Errorf("no LLM reply schema %q (schemas/llm/%s.schema.json)", name, name)
	}
	return b, nil
}
