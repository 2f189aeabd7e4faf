package roles

import (
	"bytes"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/llm/usage"
	"github.com/ngkit/ngkit/pkg/record"
)

// A models file (--models FILE, else $NG_MODELS, else
// ~/.config/ngkit/models.yaml when present) names endpoints by alias and,
// optionally, assigns roles to them:
//
//	endpoints:
//	  gpt:
//	    base_url: https://api.openai.com/v1
//	    model: gpt-4.1
//	    api_key_env: OPENAI_API_KEY
//	    concurrency: 32          # or auto
//	    rpm: 500
//	    tpm: 200000
//	    timeout: 2m
//	    temperature: 0.7
//	    top_p: 0.95
//	    max_tokens: 2000
//	    seed: 1
//	    response_format: auto
//	    prices: {input: 2.00, output: 8.00}   # USD per million tokens
//	  llama-base:
//	    base_url: http://localhost:8080/v1
//	    model: llama-3.1-8b
//	    api: completions         # a base model: plain text through /v1/completions (ngpact)
//	  judge:
//	    base_url: http://localhost:8000/v1
//	    model: Qwen/Qwen2.5-72B-Instruct
//	roles:
//	  judge: judge               # every program's judge
//	  nglabel.labeller: [gpt, judge]
//
// The file is checked as a whole when it is read: an unknown key, an
// endpoint without a model, a bad URL, a role naming an unknown alias, or
// a key itself (api_key, or a value that looks like one) is an error
// naming the file and line.

// Endpoint is one alias of a models file. Nil pointers are settings the
// file leaves to the program's flags.
type Endpoint struct {
	Alias     string
	BaseURL   string
	Model     string
	APIKeyEnv string

	// Concurrency is the window (0: the flags'), ConcurrencyAuto its
	// "auto" (llama-server's slots).
	Concurrency     int
	ConcurrencyAuto bool
	RPM, TPM        *int
	Timeout         *time.Duration
	Temperature     *float64
	TopP            *float64
	MaxTokens       *int
	Seed            *int64
	ResponseFormat  string
	Price           *usage.Price
	// API is APIChat or APICompletions (a base model); "": the flags'.
	API string

	// Line is where the alias is defined in the file.
	Line int
}

// RoleAssignment is one entry of a models file's roles: Program is ""
// for every program that has the role.
type RoleAssignment struct {
	Program, Role string
	Aliases       []string
	Line          int
}

// ModelsFile is a loaded models file.
type ModelsFile struct {
	Path      string
	Endpoints map[string]*Endpoint
	// Aliases in the order of the file.
	Aliases []string
	Roles   []RoleAssignment
}

var endpointKeys = []string{"base_url", "model", "api_key_env", "concurrency", "rpm", "tpm", "timeout",
	"temperature", "top_p", "max_tokens", "seed", "response_format", "prices", "api"}

// secretKeys are keys that would hold a key itself.
var secretKeys = []string{"api_key", "apikey", "key", "token", "secret", "password", "authorization", "bearer"}

var (
	aliasRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)
	// envVarRe is the rule for api_key_env and --api-key-env: a value
	// that is not such a name may be the key itself, pasted by mistake,
	// and is never printed.
	envVarRe = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*$`)
	// keyLike are shapes of real API keys (OpenAI sk-..., Anthropic,
	// Hugging Face hf_..., Groq gsk_..., Google AIza...).
	keyLike = regexp.MustCompile(`\b(sk-[A-Za-z0-9_-]{16,}|hf_[A-Za-z0-9]{20,}|gsk_[A-Za-z0-9]{20,}|AIza[0-9A-Za-z_-]{30,})`)
)

// ErrAPIKeyEnvName is the error for an api_key_env (or --api-key-env)
// that is not an environment variable's name ([A-Z_][A-Z0-9_]*). It never
// quotes the value, which may be a key.
const ErrAPIKeyEnvName = "api_key_env must name an environment variable ([A-Z_][A-Z0-9_]*), never hold the key itself"

// ValidEnvName reports whether s is a name api_key_env accepts.
func ValidEnvName(s string) bool { return envVarRe.MatchString(s) }

// DefaultModelsPath is the models file used when neither --models nor
// $NG_MODELS names one: ~/.config/ngkit/models.yaml (under the user
// config directory), "" when there is none.
func DefaultModelsPath() string {
	d, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	p := filepath.Join(d, "ngkit", "models.yaml")
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// LoadModels reads and checks a models file.
func LoadModels(path string) (*ModelsFile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--models: %w", err)
	}
	return ParseModels(path, b)
}

// ParseModels checks and reads the models file held in b; path names it
// in errors. Every error is one line, "path:line: what is wrong".
func ParseModels(path string, b []byte) (*ModelsFile, error) {
	p := &modelsParser{path: path}
	m, err := p.parse(b)
	if err != nil {
		return nil, err
	}
	return m, nil
}

type modelsParser struct{ path string }

func (p *modelsParser) errf(line int, format string, args ...any) error {
	msg := strings.ReplaceAll(fmt.Sprintf(format, args...), "\n", " ")
	if line > 0 {
		return fmt.Errorf("%s:%d: %s", p.path, line, msg)
	}
	return fmt.Errorf("%s: %s", p.path, msg)
}

func (p *modelsParser) parse(b []byte) (*ModelsFile, error) {
	if m := keyLike.FindIndex(b); m != nil {
		return nil, p.errf(bytes.Count(b[:m[0]], []byte("\n"))+1,
			"this looks like an API key: a models file names the environment variable that holds a key (api_key_env: VAR), never the key itself")
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&doc); err != nil {
		if err.Error() == "EOF" {
			return nil, p.errf(0, "empty file: want endpoints: {ALIAS: {base_url: URL, model: NAME}}")
		}
		return nil, p.errf(0, "%s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	var more yaml.Node
	if err := dec.Decode(&more); err == nil {
		return nil, p.errf(more.Line, "a second YAML document: a models file is one")
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind != yaml.MappingNode {
		return nil, p.errf(root.Line, "want a mapping with endpoints (and optionally roles) at the top")
	}
	m := &ModelsFile{Path: p.path, Endpoints: map[string]*Endpoint{}}
	var rolesNode *yaml.Node
	seen := map[string]bool{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if seen[k.Value] {
			return nil, p.errf(k.Line, "%s given twice", k.Value)
		}
		seen[k.Value] = true
		switch k.Value {
		case "endpoints":
			if err := p.endpoints(v, m); err != nil {
				return nil, err
			}
		case "roles":
			rolesNode = v
		default:
			return nil, p.errf(k.Line, "unknown key %q at the top (want endpoints, roles)", k.Value)
		}
	}
	if len(m.Endpoints) == 0 {
		return nil, p.errf(root.Line, "no endpoints: want endpoints: {ALIAS: {base_url: URL, model: NAME}}")
	}
	if rolesNode != nil {
		if err := p.roles(rolesNode, m); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func (p *modelsParser) endpoints(n *yaml.Node, m *ModelsFile) error {
	if n.Kind != yaml.MappingNode {
		return p.errf(n.Line, "endpoints: want a mapping of alias -> {base_url, model, ...}")
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		alias := k.Value
		switch {
		case !aliasRe.MatchString(alias):
			return p.errf(k.Line, "alias %q: want letters, digits, '.', '_' or '-'", alias)
		case alias == llm.DefaultAlias:
			return p.errf(k.Line, "alias %q is reserved for the endpoint of the flags and environment (--base-url, NG_BASE_URL)", alias)
		case m.Endpoints[alias] != nil:
			return p.errf(k.Line, "alias %q defined twice (first at line %d)", alias, m.Endpoints[alias].Line)
		}
		e, err := p.endpoint(alias, k.Line, v)
		if err != nil {
			return err
		}
		m.Endpoints[alias] = e
		m.Aliases = append(m.Aliases, alias)
	}
	return nil
}

func (p *modelsParser) endpoint(alias string, line int, n *yaml.Node) (*Endpoint, error) {
	if n.Kind != yaml.MappingNode {
		return nil, p.errf(n.Line, "endpoint %s: want a mapping of base_url, model, ...", alias)
	}
	e := &Endpoint{Alias: alias, Line: line}
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		at := func(format string, args ...any) error {
			return p.errf(v.Line, "endpoint %s: %s: %s", alias, k.Value, fmt.Sprintf(format, args...))
		}
		if l, ok := seen[k.Value]; ok {
			return nil, p.errf(k.Line, "endpoint %s: %s given twice (first at line %d)", alias, k.Value, l)
		}
		seen[k.Value] = k.Line
		if slices.Contains(secretKeys, strings.ToLower(k.Value)) {
			return nil, p.errf(k.Line, "endpoint %s: %s: a models file never holds a key; name the environment variable that holds it: api_key_env: VAR", alias, k.Value)
		}
		if !slices.Contains(endpointKeys, k.Value) {
			return nil, p.errf(k.Line, "endpoint %s: unknown key %q (want %s)", alias, k.Value, strings.Join(endpointKeys, ", "))
		}
		if k.Value == "prices" {
			pr, err := p.price(alias, v)
			if err != nil {
				return nil, err
			}
			e.Price = pr
			continue
		}
		if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
			return nil, at("want a single value")
		}
		if err := e.set(k.Value, v.Value, at); err != nil {
			return nil, err
		}
	}
	if e.Model == "" {
		return nil, p.errf(line, "endpoint %s: no model (model: NAME)", alias)
	}
	if e.BaseURL == "" && e.Model != record.DemoModel {
		return nil, p.errf(line, "endpoint %s: no base_url (base_url: URL; OpenAI: %s)", alias, llm.OpenAIBaseURL)
	}
	return e, nil
}

// set sets the endpoint's key to the value s; at makes the error of a
// bad value, which says where it is.
func (e *Endpoint) set(key, s string, at func(format string, args ...any) error) error {
	var err error
	switch key {
	case "base_url":
		u, perr := url.Parse(s)
		if perr != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return at("%q is not an http(s) URL such as http://localhost:8000/v1", llm.RedactURL(s))
		}
		if u.User != nil {
			return at("no user or password in the URL: name the key's variable in api_key_env")
		}
		e.BaseURL = s
	case "model":
		if strings.TrimSpace(s) == "" {
			return at("empty")
		}
		e.Model = s
	case "api_key_env":
		if !envVarRe.MatchString(s) {
			return at("%s", ErrAPIKeyEnvName)
		}
		e.APIKeyEnv = s
	case "concurrency":
		n, perr := strconv.Atoi(s)
		switch {
		case s == "auto":
			e.ConcurrencyAuto = true
		case perr != nil || n < 1:
			return at("%q: want a number of at least 1, or auto", s)
		default:
			e.Concurrency = n
		}
	case "rpm", "tpm", "max_tokens":
		var x int
		if x, err = strconv.Atoi(s); err != nil || x < 0 {
			return at("%q: want a whole number, 0 or more", s)
		}
		switch key {
		case "rpm":
			e.RPM = &x
		case "tpm":
			e.TPM = &x
		default:
			e.MaxTokens = &x
		}
	case "timeout":
		d, perr := time.ParseDuration(s)
		if perr != nil || d <= 0 {
			return at("%q: want a positive duration such as 90s or 2m", s)
		}
		e.Timeout = &d
	case "temperature", "top_p":
		x, perr := strconv.ParseFloat(s, 64)
		if perr != nil || x < 0 || x != x || (key == "top_p" && x > 1) || x > 100 {
			return at("%q: want a number (temperature 0 or more, top_p 0 to 1)", s)
		}
		if key == "temperature" {
			e.Temperature = &x
		} else {
			e.TopP = &x
		}
	case "seed":
		x, perr := strconv.ParseInt(s, 10, 64)
		if perr != nil {
			return at("%q: want a whole number", s)
		}
		e.Seed = &x
	case "response_format":
		if !slices.Contains([]string{"auto", "json_schema", "json_object", "prompt"}, s) {
			return at("%q: want auto, json_schema, json_object or prompt", s)
		}
		e.ResponseFormat = s
	case "api":
		if perr := llm.CheckAPI(s); perr != nil || s == "" {
			return at("%q: want chat or completions (a base model, through /v1/completions)", s)
		}
		e.API = s
	}
	return nil
}

func (p *modelsParser) price(alias string, n *yaml.Node) (*usage.Price, error) {
	if n.Kind != yaml.MappingNode {
		return nil, p.errf(n.Line, "endpoint %s: prices: want {input: USD, output: USD} per million tokens", alias)
	}
	pr := &usage.Price{}
	got := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		field := map[string]*float64{"input": &pr.Input, "output": &pr.Output, "cached_input": &pr.CachedInput,
			"batch_input": &pr.BatchInput, "batch_output": &pr.BatchOutput, "batch_cached_input": &pr.BatchCachedInput}[k.Value]
		if field == nil {
			return nil, p.errf(k.Line, "endpoint %s: prices: unknown key %q (want input, output, and optionally cached_input, batch_input, batch_output, batch_cached_input: USD per million tokens)", alias, k.Value)
		}
		x, err := strconv.ParseFloat(v.Value, 64)
		if v.Kind != yaml.ScalarNode || err != nil || x < 0 || x != x {
			return nil, p.errf(v.Line, "endpoint %s: prices: %s: %q: want a number of US dollars per million tokens", alias, k.Value, v.Value)
		}
		*field = x
		got[k.Value] = true
	}
	if !got["input"] || !got["output"] {
		return nil, p.errf(n.Line, "endpoint %s: prices: want both input and output", alias)
	}
	return pr, nil
}

func (p *modelsParser) roles(n *yaml.Node, m *ModelsFile) error {
	if n.Kind != yaml.MappingNode {
		return p.errf(n.Line, "roles: want a mapping of ROLE (or PROGRAM.ROLE) -> alias or [aliases]")
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if l, ok := seen[k.Value]; ok {
			return p.errf(k.Line, "roles: %s given twice (first at line %d)", k.Value, l)
		}
		seen[k.Value] = k.Line
		prog, role, ok := strings.Cut(k.Value, ".")
		if !ok {
			prog, role = "", k.Value
		}
		if !aliasRe.MatchString(role) || strings.Contains(role, ".") || (ok && !aliasRe.MatchString(prog)) {
			return p.errf(k.Line, "roles: %q: want ROLE or PROGRAM.ROLE (judge, nglabel.labeller)", k.Value)
		}
		var aliases []string
		switch v.Kind {
		case yaml.ScalarNode:
			aliases = []string{v.Value}
		case yaml.SequenceNode:
			for _, a := range v.Content {
				if a.Kind != yaml.ScalarNode {
					return p.errf(a.Line, "roles: %s: want aliases", k.Value)
				}
				aliases = append(aliases, a.Value)
			}
		default:
			return p.errf(v.Line, "roles: %s: want an alias or a list of aliases", k.Value)
		}
		if len(aliases) == 0 {
			return p.errf(v.Line, "roles: %s: no alias", k.Value)
		}
		for j, a := range aliases {
			if m.Endpoints[a] == nil && a != llm.DefaultAlias {
				line := v.Line
				if v.Kind == yaml.SequenceNode {
					line = v.Content[j].Line
				}
				return p.errf(line, "roles: %s: unknown alias %q (the file defines %s)", k.Value, a, strings.Join(m.Aliases, ", "))
			}
			if slices.Contains(aliases[:j], a) {
				return p.errf(v.Line, "roles: %s: alias %q listed twice", k.Value, a)
			}
		}
		m.Roles = append(m.Roles, RoleAssignment{Program: prog, Role: role, Aliases: aliases, Line: k.Line})
	}
	return nil
}
