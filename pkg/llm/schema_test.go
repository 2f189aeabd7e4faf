package llm

import (
	"context"
	"encoding/json"
	"io/fs"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/pkg/llm/llmtest"
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
		b := []byte(sch.doc)
		var doc map[string]any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
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
		walk(doc)
		if _, ok := doc["$schema"]; ok {
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

// A derived schema is what the request sends (response_format, under the
// file's name), what the reply is validated against, and part of the cache
// key: two derivations of one file are two keys, the same one hits.
func TestDerivedSchema(t *testing.T) {
	srv := llmtest.New(llmtest.Options{Reply: func(req *llmtest.ChatRequest) string {
		return `{"text":"hello","lang":"en"}`
	}})
	defer srv.Close()
	only := func(langs ...any) *Schema {
		s, err := DeriveSchema("echo", func(doc map[string]any) {
			doc["properties"].(map[string]any)["lang"] = map[string]any{"type": "string", "enum": langs}
		})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	en, ko := only("en"), only("ko")
	if en.Name() != "echo" {
		t.Errorf("name %q", en.Name())
	}
	c := testClient(t, Config{BaseURL: srv.URL, CacheDir: t.TempDir(), MaxRetries: 0, MaxReasks: 0})
	req := Request{ID: "r", Call: "c", Messages: []Message{User("x")}, ReplySchema: en}
	if _, err := c.Call(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	rf := srv.Requests()[0].Request.ResponseFormat
	if rf == nil || rf.JSONSchema == nil || rf.JSONSchema.Name != "echo" || !strings.Contains(string(rf.JSONSchema.Schema), `"enum":["en"]`) {
		t.Fatalf("response_format %+v", rf)
	}
	if resp, err := c.Call(context.Background(), req); err != nil || !resp.Gen.CacheHit {
		t.Errorf("same derived schema: %v, hit %v", err, resp != nil && resp.Gen.CacheHit)
	}
	req.ReplySchema = ko
	if _, err := c.Call(context.Background(), req); err == nil || !strings.Contains(err.Error(), "/lang") {
		t.Errorf("a reply outside the derived enum (the cached one must not be used): %v", err)
	}
	if n := srv.Count(); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
	req.Schema = "label_quality"
	if _, err := c.Call(context.Background(), req); err == nil {
		t.Error("a schema name other than the derived schema's was taken")
	}
}
