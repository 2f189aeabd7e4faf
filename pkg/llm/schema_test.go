package llm

import (
	"encoding/json"
	"io/fs"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/schemas"
)

// llmSchemaNames lists every reply schema in schemas/llm.
func llmSchemaNames(t *testing.T) []string {
	t.Helper()
	files, err := fs.Glob(schemas.FS, "llm/*.schema.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no reply schemas: %v", err)
	}
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = strings.TrimSuffix(strings.TrimPrefix(f, "llm/"), ".schema.json")
	}
	return names
}

// Every reply schema, as sent, has no bound that llama.cpp's grammar
// engine cannot compile; our validation keeps the file's bounds
// (refine_rewrite's situation: at most 3000 characters). The real server
// checks the same (TestRealServerSchemas).
func TestSchemasAsSentCompileInGrammars(t *testing.T) {
	for _, name := range llmSchemaNames(t) {
		sch, err := loadSchema(name)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(sch.doc)
		var walk func(v any)
		walk = func(v any) {
			switch v := v.(type) {
			case map[string]any:
				for k, c := range v {
					if n, ok := c.(float64); ok && strings.HasPrefix(k, "m") && n >= grammarRepeatLimit {
						t.Errorf("%s: %s %v sent: %s", name, k, n, b)
					}
					walk(c)
				}
			case []any:
				for _, c := range v {
					walk(c)
				}
			}
		}
		walk(sch.doc)
		if _, ok := sch.doc["$schema"]; ok {
			t.Errorf("%s: $schema sent", name)
		}
	}
	sch, err := loadSchema("refine_rewrite")
	if err != nil {
		t.Fatal(err)
	}
	reply := func(n int) []byte {
		b, _ := json.Marshal(map[string]string{"scenario": "s", "situation": strings.Repeat("가", n)})
		return b
	}
	if err := sch.validate(reply(2500)); err != nil {
		t.Errorf("2500 characters: %v", err)
	}
	if err := sch.validate(reply(3001)); err == nil || !strings.Contains(err.Error(), "/situation") {
		t.Errorf("3001 characters: %v", err)
	}
	if !strings.Contains(sch.text, `"maxLength":3000`) {
		t.Errorf("the prompt's schema lost the bound: %s", sch.text)
	}
}
