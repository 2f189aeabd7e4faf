// Package roles holds the model roles of the programs (the writer, the
// judge, the labellers, ...) and their registry: the models file, which
// names endpoints by alias, and Open, which serves each role a program
// has by its endpoints, one pkg/llm client per endpoint.
package roles

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/llm/usage"
)

// Role names of the programs; which program has which, and the flags
// that assign them, are the programs' (cmd/internal/cli/roles.go).
const (
	Writer   = "writer"
	Rewriter = "rewriter"
	Judge    = "judge"
	Labeller = "labeller"
	Pairwise = "pairwise"
	Subject  = "subject" // ngpact's models under test
	// ngsim's: the simulated user and the assistants under test.
	User      = "user"
	Assistant = "assistant"
)

// Names are the roles of every program, so that a models file's roles
// section, shared by a whole pipeline, can name a role another program has
// without an error, and a misspelt one is still caught.
var Names = []string{Writer, Rewriter, Judge, Labeller, Pairwise, Subject, User, Assistant}

// Role is one of a program's model roles (DEVELOPING.md, "The LLM
// runtime and model roles"): ngrefine has a rewriter and a judge, nglabel
// a labeller panel, a quality judge and a pairwise judge. Each role is served by an endpoint of the models file,
// or by the endpoint of the flags and environment when none is assigned.
type Role struct {
	Name string
	// Help says what the role does, for --help.
	Help string
	// Panel: the role takes several endpoints at once (nglabel's
	// labellers); other roles take one.
	Panel bool
	// BaseModels: the role takes endpoints of base models (api
	// completions), whose calls are plain-text prompts (ngpact's
	// subjects); other roles refuse them before any call.
	BaseModels bool
}

// Member is one endpoint of a panel role.
type Member struct {
	Alias, Model string
	// API is the endpoint's: APICompletions for a base model.
	API string
	llm.Caller
}

// Models is a run's endpoints, one client each (its own concurrency
// window, rate buckets, retries and cache keys), and the program's roles
// assigned to them.
type Models struct {
	stage   string
	clients map[string]*llm.Client // by alias
	order   []string               // aliases, in the order first used by a role
	roles   []Role
	assign  map[string][]string // role -> aliases
	// missing are roles left to the default endpoint when the flags and
	// environment define none: an error if the run uses them (Need).
	missing map[string]error
	file    string // the models file, "" for none
	usage   string // --usage-json
	stderr  io.Writer
	quiet   bool
	verbose bool
	start   time.Time
}

// Settings is what the models flags hold: the models file and the
// role assignments, in the order given.
type Settings struct {
	Models string
	Assign []Assignment
}

// Assignment serves a role by endpoints of the models file, by alias
// (several for a panel role). The program has checked the role and the
// aliases' form; Given says how the user gave it ("--judge gpt"), for the
// errors Open finds (an alias the models file does not define).
type Assignment struct {
	Role    string
	Aliases []string
	Given   string
}

// Open resolves the roles of a program: the models file (--models,
// else $NG_MODELS, else ~/.config/ngkit/models.yaml when present), the
// assignments of the file's roles section and of rs.Assign (which win),
// and one client per endpoint used. base is the flags' configuration
// (cfgErr the reason it has no endpoint, when it has none): it gives the
// default endpoint and every setting the models file leaves out. A models
// file's role that no program has (Names) is an error, not silence.
// Errors are one line, before any call.
func Open(rs Settings, prog string, roles []Role, base llm.Config, cfgErr error, getenv func(string) string) (*Models, error) {
	mf, err := findModels(rs.Models, getenv)
	if err != nil {
		return nil, err
	}
	m := &Models{stage: prog, clients: map[string]*llm.Client{}, roles: roles, assign: map[string][]string{}, missing: map[string]error{},
		usage: base.UsageJSON, stderr: base.Stderr, quiet: base.Quiet, verbose: base.Verbose, start: time.Now()}
	if mf != nil {
		m.file = mf.Path
		if err := m.assignFromFile(mf); err != nil {
			return nil, err
		}
	}
	if err := m.assignFromFlags(mf, rs.Assign); err != nil {
		return nil, err
	}
	if err := m.openClients(mf, base, cfgErr, getenv); err != nil {
		m.Abort()
		return nil, err
	}
	for _, r := range roles {
		for _, a := range m.assign[r.Name] {
			if c := m.clients[a]; c != nil && c.Config().API == llm.APICompletions && !r.BaseModels {
				m.Abort()
				return nil, fmt.Errorf("role %s=%s: the endpoint uses api completions (a base model), which only ngpact's subjects can be asked through; give the role a chat endpoint", r.Name, a)
			}
		}
	}
	if len(m.clients) == 0 {
		for _, r := range roles {
			return nil, m.missing[r.Name]
		}
	}
	if len(m.clients) > 1 && (base.EmitRequests != "" || base.Responses != "") {
		m.Abort()
		return nil, errors.New("--emit-requests and --responses take one endpoint: every role on one alias (Batch files are per model)")
	}
	return m, nil
}

// findModels loads the models file: path (--models), else $NG_MODELS,
// else ~/.config/ngkit/models.yaml when present; nil when there is none.
func findModels(path string, getenv func(string) string) (*ModelsFile, error) {
	if path == "" {
		path = getenv("NG_MODELS")
	}
	if path == "" {
		path = defaultModelsPath(getenv)
	}
	if path == "" {
		return nil, nil
	}
	return LoadModels(path)
}

// role is the program's role of that name, or nil.
func (m *Models) role(name string) *Role {
	for i := range m.roles {
		if m.roles[i].Name == name {
			return &m.roles[i]
		}
	}
	return nil
}

// roleNames are the program's roles, for errors.
func (m *Models) roleNames() string {
	var n []string
	for _, r := range m.roles {
		n = append(n, r.Name)
	}
	return strings.Join(n, ", ")
}

// assignFromFile takes the models file's roles section: PROGRAM.ROLE
// before ROLE; another program's role is skipped, a role no program has
// is an error.
func (m *Models) assignFromFile(mf *ModelsFile) error {
	for _, pass := range []bool{true, false} {
		for _, a := range mf.Roles {
			if (a.Program != "") != pass || (a.Program != "" && a.Program != m.stage) {
				continue
			}
			r := m.role(a.Role)
			switch {
			case r == nil && (a.Program != "" || !slices.Contains(Names, a.Role)):
				return fmt.Errorf("%s:%d: roles: %s has no role %q (its roles: %s)", mf.Path, a.Line, progName(a.Program, m.stage), a.Role, m.roleNames())
			case r == nil:
				continue // another program's role
			case len(a.Aliases) > 1 && !r.Panel:
				return fmt.Errorf("%s:%d: roles: %s takes one alias, not %d", mf.Path, a.Line, a.Role, len(a.Aliases))
			}
			if _, done := m.assign[a.Role]; !done {
				m.assign[a.Role] = a.Aliases
			}
		}
	}
	return nil
}

// assignFromFlags takes the --role and short role flags, which win over
// the file; each alias must be the file's (mf may be nil).
func (m *Models) assignFromFlags(mf *ModelsFile, assign []Assignment) error {
	for _, as := range assign {
		flag := as.Given
		if flag == "" {
			flag = as.Role + "=" + strings.Join(as.Aliases, ",")
		}
		r := m.role(as.Role)
		switch {
		case r == nil:
			return fmt.Errorf("%s: %s has no role %q (its roles: %s)", flag, m.stage, as.Role, m.roleNames())
		case len(as.Aliases) > 1 && !r.Panel:
			return fmt.Errorf("%s: role %s takes one alias", flag, as.Role)
		}
		for _, a := range as.Aliases {
			if a == llm.DefaultAlias {
				continue
			}
			if mf == nil {
				return fmt.Errorf("%s: unknown alias %q: no models file (give --models FILE or set NG_MODELS)", flag, a)
			}
			if mf.Endpoints[a] == nil {
				return fmt.Errorf("%s: unknown alias %q (%s defines %s)", flag, a, mf.Path, strings.Join(mf.Aliases, ", "))
			}
		}
		m.assign[as.Role] = as.Aliases
	}
	return nil
}

// openClients gives every role its endpoints (the flags' by default) and
// makes one client per alias used. A role whose default endpoint is
// missing is an error only if the run uses it (Need), when a models file
// could have served it.
func (m *Models) openClients(mf *ModelsFile, base llm.Config, cfgErr error, getenv func(string) string) error {
	for _, r := range m.roles {
		if len(m.assign[r.Name]) == 0 {
			m.assign[r.Name] = []string{llm.DefaultAlias}
		}
		for _, a := range m.assign[r.Name] {
			if m.clients[a] != nil {
				continue
			}
			var cfg llm.Config
			if a == llm.DefaultAlias {
				if cfgErr != nil {
					if mf == nil {
						return cfgErr
					}
					m.missing[r.Name] = fmt.Errorf("role %s has no endpoint (give --role %s=ALIAS, a roles entry in %s, or the flags): %v", r.Name, r.Name, mf.Path, cfgErr)
					continue
				}
				cfg = base
				cfg.Alias = llm.DefaultAlias
			} else {
				var err error
				if cfg, err = mf.Endpoints[a].config(base, mf.Path, getenv); err != nil {
					return fmt.Errorf("role %s=%s: %v", r.Name, a, err)
				}
			}
			cfg.Stage = m.stage
			cfg.UsageJSON = "" // one report for all endpoints: Models.Close
			c, err := llm.New(cfg)
			if err != nil {
				if a == llm.DefaultAlias {
					return err
				}
				return fmt.Errorf("role %s=%s: %v", r.Name, a, err)
			}
			m.clients[a] = c
			m.order = append(m.order, a)
		}
	}
	return nil
}

func progName(p, prog string) string {
	if p == "" {
		return prog
	}
	return p
}

// defaultModelsPath is ~/.config/ngkit/models.yaml ($XDG_CONFIG_HOME
// first) when it exists.
func defaultModelsPath(getenv func(string) string) string {
	dir := getenv("XDG_CONFIG_HOME")
	if dir == "" {
		if h := getenv("HOME"); h != "" {
			dir = filepath.Join(h, ".config")
		}
	}
	if dir == "" {
		return ""
	}
	p := filepath.Join(dir, "ngkit", "models.yaml")
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// config is the client configuration of endpoint e: base (the flags) with
// e's settings over it. Its key is read from e's api_key_env; an unset
// variable is an error.
func (e *Endpoint) config(base llm.Config, file string, getenv func(string) string) (llm.Config, error) {
	cfg := base
	cfg.Alias, cfg.BaseURL, cfg.Model = e.Alias, e.BaseURL, e.Model
	cfg.APIKey, cfg.KeyWithheld = llm.Secret{}, ""
	if e.BaseURL == "" { // model demo (the parser lets no other through)
		if base.Demo == nil {
			return cfg, fmt.Errorf("%s:%d: endpoint %s: no base_url, and no built-in demo model here", file, e.Line, e.Alias)
		}
		cfg.BaseURL, cfg.HTTPClient = base.Demo()
		cfg.CacheDir = "" // canned replies are not worth a cache
	}
	if e.APIKeyEnv != "" {
		k := getenv(e.APIKeyEnv)
		if k == "" {
			return cfg, fmt.Errorf("the variable %s (api_key_env of %s at %s:%d) is empty or not set", e.APIKeyEnv, e.Alias, file, e.Line)
		}
		cfg.APIKey = llm.NewSecret(k)
	}
	if e.Concurrency > 0 || e.ConcurrencyAuto {
		cfg.Concurrency, cfg.ConcurrencyAuto = e.Concurrency, e.ConcurrencyAuto
	}
	if e.RPM != nil {
		cfg.RPM = *e.RPM
	}
	if e.TPM != nil {
		cfg.TPM = *e.TPM
	}
	if e.Timeout != nil {
		cfg.Timeout = *e.Timeout
	}
	if e.Temperature != nil {
		cfg.Sampling.Temperature = e.Temperature
	}
	if e.TopP != nil {
		cfg.Sampling.TopP = e.TopP
	}
	if e.MaxTokens != nil {
		cfg.Sampling.MaxTokens = *e.MaxTokens
	}
	if e.Seed != nil {
		cfg.Sampling.Seed = e.Seed
	}
	if e.ResponseFormat != "" {
		cfg.ResponseFormat = e.ResponseFormat
	}
	if e.API != "" {
		cfg.API = e.API
	}
	cfg.ModelPrice = e.Price
	return cfg, nil
}

// Need is the error of the first of these roles that has no endpoint; a
// program calls it, before any call, with the roles its run will use.
func (m *Models) Need(roles ...string) error {
	for _, r := range roles {
		if err := m.missing[r]; err != nil {
			return err
		}
	}
	return nil
}

// Caller is the endpoint of a one-endpoint role (a panel role: its first
// member); its calls carry the role in gen and the usage.
func (m *Models) Caller(role string) llm.Caller {
	if err := m.missing[role]; err != nil {
		return failCaller{err}
	}
	return roleCaller{m.clients[m.aliases(role)[0]], role}
}

// failCaller is a role without an endpoint (see Need).
type failCaller struct{ err error }

func (f failCaller) Call(context.Context, llm.Request) (*llm.Response, error) { return nil, f.err }

// Panel is the endpoints of a role, in the order assigned.
func (m *Models) Panel(role string) []Member {
	if err := m.missing[role]; err != nil {
		return []Member{{Alias: llm.DefaultAlias, Caller: failCaller{err}}}
	}
	var out []Member
	for _, a := range m.aliases(role) {
		c := m.clients[a]
		out = append(out, Member{Alias: a, Model: c.Config().Model, API: c.Config().API, Caller: roleCaller{c, role}})
	}
	return out
}

// Alias is the (first) endpoint alias of a role.
func (m *Models) Alias(role string) string { return m.aliases(role)[0] }

func (m *Models) aliases(role string) []string {
	a := m.assign[role]
	if len(a) == 0 {
		panic("llm: the program has no role " + role)
	}
	return a
}

// File is the models file in use, "" for none.
func (m *Models) File() string { return m.file }

// Primary is the client of the first role's endpoint: with
// --emit-requests (one endpoint only) the one that counts deferred
// records.
func (m *Models) Primary() *llm.Client { return m.clients[m.order[0]] }

// Client is the client of an alias (nil when the run does not use it).
func (m *Models) Client(alias string) *llm.Client { return m.clients[alias] }

// Workers is the number of runner workers: twice the calls all endpoints
// allow in flight, so that every window can be kept full.
func (m *Models) Workers() int {
	n := 0
	for _, c := range m.clients {
		n += c.Workers()
	}
	return max(n, 1)
}

// Warnf notes something about the roles once, on stderr, at the start.
func (m *Models) Warnf(format string, args ...any) {
	if m.stderr != nil {
		fmt.Fprintf(m.stderr, "%s: %s\n", m.stage, fmt.Sprintf(format, args...))
	}
}

// Describe is one line per role: its endpoints, for a note at the start.
func (m *Models) Describe() []string {
	var out []string
	for _, r := range m.roles {
		var eps []string
		for _, a := range m.assign[r.Name] {
			c := m.clients[a]
			if c == nil {
				eps = append(eps, a+" (none)")
				continue
			}
			eps = append(eps, fmt.Sprintf("%s (%s at %s)", a, c.Config().Model, llm.RedactURL(c.Config().BaseURL)))
		}
		out = append(out, r.Name+" = "+strings.Join(eps, ", "))
	}
	return out
}

type roleCaller struct {
	c    *llm.Client
	role string
}

func (r roleCaller) Call(ctx context.Context, req llm.Request) (*llm.Response, error) {
	if req.Role == "" {
		req.Role = r.role
	}
	return r.c.Call(ctx, req)
}

// Usage is the report of the run over every endpoint: with one endpoint
// that endpoint's report (as before roles existed, with by_role); with
// several, the totals with each endpoint's report in Endpoints.
func (m *Models) Usage() usage.Report {
	clients := make([]*llm.Client, len(m.order))
	for i, a := range m.order {
		clients[i] = m.clients[a]
	}
	return llm.EndpointsUsage(m.stage, m.start, clients)
}

// Close ends the run: each endpoint's --emit-requests file is committed,
// --usage-json written, and the summary printed per endpoint and role.
func (m *Models) Close() error {
	var errs []error
	for _, a := range m.order {
		errs = append(errs, m.clients[a].CloseRequests())
	}
	u := m.Usage()
	errs = append(errs, u.Write(m.usage, m.stderr, m.quiet, m.verbose))
	return errors.Join(errs...)
}

// Abort ends a run that did not start.
func (m *Models) Abort() {
	for _, c := range m.clients {
		c.Abort()
	}
}

// Clients are the run's clients by alias (for a Batcher).
func (m *Models) Clients() map[string]*llm.Client {
	out := make(map[string]*llm.Client, len(m.clients))
	for a, c := range m.clients {
		out[a] = c
	}
	return out
}

// Activity is the sum over the run's endpoints.
func (m *Models) Activity() (done, inFlight int64) {
	for _, c := range m.clients {
		d, f := c.Activity()
		done += d
		inFlight += f
	}
	return done, inFlight
}
