package llm

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/ngkit/ngkit/schemas"
)

// schema is a compiled reply schema from schemas/llm.
type schema struct {
	name string
	doc  json.RawMessage // sent as response_format json_schema (grammarSafe), encoded once: not re-encoded per request
	text string          // compact JSON of the whole file, for the prompt when the server has no JSON mode
	hash string          // of the file, part of the cache key
	sch  *jsonschema.Schema
}

var schemaCache sync.Map // name -> *schema

var printer = message.NewPrinter(language.English)

// loadSchema compiles schemas/llm/<name>.schema.json once per process.
func loadSchema(name string) (*schema, error) {
	if s, ok := schemaCache.Load(name); ok {
		return s.(*schema), nil
	}
	raw, err := schemas.LLM(name)
	if err != nil {
		return nil, err
	}
	s, err := compileSchema(name, raw)
	if err != nil {
		return nil, err
	}
	schemaCache.Store(name, s)
	return s, nil
}

// compileSchema compiles a schema document named name.
func compileSchema(name string, raw []byte) (*schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	c := jsonschema.NewCompiler()
	url := "ngkit:llm/" + name + ".schema.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	compiled, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	delete(m, "$schema") // not every server accepts the meta-schema keyword
	text, _ := json.Marshal(m)
	grammarSafe(m)
	wire, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	sum := sha256.Sum256(raw)
	return &schema{name: name, doc: wire, text: string(text), hash: hex.EncodeToString(sum[:8]), sch: compiled}, nil
}

// Schema is a reply schema made for some requests from one of
// schemas/llm (DeriveSchema), such as one whose ids are the enum of one
// record's ids: a grammar engine then cannot write other ids. It is sent,
// validated, shown in the prompt and part of the cache key as a file's
// schema is.
type Schema struct{ s *schema }

// DeriveSchema makes a reply schema from schemas/llm/<name>.schema.json:
// edit changes a copy of its document (decoded JSON: map[string]any,
// []any, string, float64, bool); the name stays, so servers, fakes and
// gen see the same name. The result is compiled once: make it once for
// all the requests it serves.
func DeriveSchema(name string, edit func(doc map[string]any)) (*Schema, error) {
	doc, err := fileDoc(name)
	if err != nil {
		return nil, err
	}
	edit(doc)
	raw, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	s, err := compileSchema(name, raw)
	if err != nil {
		return nil, err
	}
	return &Schema{s: s}, nil
}

// DeriveSent makes a reply schema that is validated, and shown in the
// prompt, as schemas/llm/<name>.schema.json is, but sent to the server
// as response_format with edit applied to a copy of the file: a request
// that asks for N items tells a grammar engine N (minItems = maxItems =
// N) while a reply of more or fewer items still reaches the stage, which
// trims or asks again (a server without grammars may write 12 of 3).
func DeriveSent(name string, edit func(doc map[string]any)) (*Schema, error) {
	base, err := loadSchema(name)
	if err != nil {
		return nil, err
	}
	doc, err := fileDoc(name)
	if err != nil {
		return nil, err
	}
	delete(doc, "$schema")
	edit(doc)
	grammarSafe(doc)
	wire, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	s := *base
	sum := sha256.Sum256(append([]byte(base.hash), wire...))
	s.doc, s.hash = wire, hex.EncodeToString(sum[:8])
	return &Schema{s: &s}, nil
}

// fileDoc is a fresh copy of schemas/llm/<name>.schema.json, decoded, to
// edit.
func fileDoc(name string) (map[string]any, error) {
	raw, err := schemas.LLM(name)
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	return doc, nil
}

// Name is the name of the schema file the schema was made from.
func (s *Schema) Name() string { return s.s.name }

// grammarRepeatLimit is llama.cpp's grammar repetition limit
// (MAX_REPETITION_THRESHOLD, llama-grammar.cpp): json-schema-to-grammar
// turns maxLength N into N repetitions, and at 2000 or more the grammar
// does not compile — llama-server then drops it, generates unconstrained
// and answers 500 "Failed to parse input"; Ollama's runner crashed on it.
const grammarRepeatLimit = 2000

// grammarSafe removes from a schema sent to the server the length and
// count bounds that grammar engines cannot take (grammarRepeatLimit or
// more). Our own validation keeps them: it uses the whole file.
func grammarSafe(v any) {
	switch v := v.(type) {
	case map[string]any:
		for _, k := range []string{"minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"} {
			if n, ok := v[k].(float64); ok && n >= grammarRepeatLimit {
				delete(v, k)
			}
		}
		for _, c := range v {
			grammarSafe(c)
		}
	case []any:
		for _, c := range v {
			grammarSafe(c)
		}
	}
}

// validate checks one JSON value against the schema; the error is short
// enough to send back to the model.
func (s *schema) validate(b []byte) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("not JSON: %v", err)
	}
	if err := s.sch.Validate(v); err != nil {
		msg := err.Error()
		if ve, ok := err.(*jsonschema.ValidationError); ok {
			// The first line names the schema URL; the causes say what is wrong.
			var causes []string
			for _, c := range leaves(ve) {
				loc := "/" + strings.Join(c.InstanceLocation, "/")
				// The validator lists extra properties in map order: sorted,
				// the same reply always gets the same re-ask (--batch keys
				// its requests by their bytes).
				if k, ok := c.ErrorKind.(*kind.AdditionalProperties); ok {
					slices.Sort(k.Properties)
				}
				causes = append(causes, fmt.Sprintf("at %s: %s", loc, c.ErrorKind.LocalizedString(printer)))
			}
			slices.Sort(causes)
			if len(causes) > 0 {
				msg = strings.Join(causes, "; ")
			}
		}
		msg = cut(msg, 500)
		return fmt.Errorf("does not match schema %s: %s", s.name, msg)
	}
	return nil
}

func leaves(e *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(e.Causes) == 0 {
		return []*jsonschema.ValidationError{e}
	}
	var out []*jsonschema.ValidationError
	for _, c := range e.Causes {
		out = append(out, leaves(c)...)
	}
	return out
}
