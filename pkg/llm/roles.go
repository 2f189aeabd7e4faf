package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Role names of the programs (item 2 of issue 14); which program has
// which, and the flags that assign them, are the programs' (cmd/internal).
const (
	RoleWriter   = "writer"
	RoleRewriter = "rewriter"
	RoleJudge    = "judge"
	RoleLabeller = "labeller"
	RolePairwise = "pairwise"
	RoleSubject  = "subject" // ngpact's models under test
	// ngsim's: the simulated user and the assistants under test.
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

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
	Caller
}

// Models is a run's endpoints, one client each (its own concurrency
// window, rate buckets, retries and cache keys), and the program's roles
// assigned to them.
type Models struct {
	stage   string
	clients map[string]*Client // by alias
	order   []string           // aliases, in the order first used by a role
	roles   []Role
	assign  map[string][]string // role -> aliases
	// missing are roles left to the default endpoint when the flags and
	// environment define none: an error if the run uses them (Need).
	missing map[string]error
	file    string // the models file, "" for none
	usage   string // --usage-json
	stderr  io.Writer
	quiet   bool
	start   time.Time
}

// RoleSettings is what the models flags hold: the models file and the
// role assignments, in the order given.
type RoleSettings struct {
	Models string
	Assign []Assignment
}

// Assignment serves a role by endpoints of the models file, by alias
// (several for a panel role). The program has checked the role and the
// aliases' form; Given says how the user gave it ("--judge gpt"), for the
// errors OpenModels finds (an alias the models file does not define).
type Assignment struct {
	Role    string
	Aliases []string
	Given   string
}

// OpenModels resolves the roles of a program: the models file (--models,
// else $NG_MODELS, else ~/.config/ngkit/models.yaml when present), the
// assignments of the file's roles section and of rs.Assign (which win),
// and one client per endpoint used. base is the flags' configuration
// (cfgErr the reason it has no endpoint, when it has none): it gives the
// default endpoint and every setting the models file leaves out. known
// lists the role names of every program, so that a models file's role
// that no program has is an error, not silence. Errors are one line,
// before any call.
func OpenModels(rs RoleSettings, prog string, roles []Role, known []string, base Config, cfgErr error, getenv func(string) string) (*Models, error) {
	path := rs.Models
	if path == "" {
		path = getenv("NG_MODELS")
	}
	if path == "" {
		path = defaultModelsPath(getenv)
	}
	var mf *ModelsFile
	if path != "" {
		var err error
		if mf, err = LoadModels(path); err != nil {
			return nil, err
		}
	}
	m := &Models{stage: prog, clients: map[string]*Client{}, roles: roles, assign: map[string][]string{}, missing: map[string]error{},
		usage: base.UsageJSON, stderr: base.Stderr, quiet: base.Quiet, start: time.Now()}
	if mf != nil {
		m.file = mf.Path
	}
	role := func(name string) *Role {
		for i := range roles {
			if roles[i].Name == name {
				return &roles[i]
			}
		}
		return nil
	}
	names := func() string {
		var n []string
		for _, r := range roles {
			n = append(n, r.Name)
		}
		return strings.Join(n, ", ")
	}
	// The file's roles: PROGRAM.ROLE before ROLE.
	if mf != nil {
		for _, pass := range []bool{true, false} {
			for _, a := range mf.Roles {
				if (a.Program != "") != pass || (a.Program != "" && a.Program != prog) {
					continue
				}
				r := role(a.Role)
				switch {
				case r == nil && (a.Program != "" || !slices.Contains(known, a.Role)):
					return nil, fmt.Errorf("%s:%d: roles: %s has no role %q (its roles: %s)", mf.Path, a.Line, progName(a.Program, prog), a.Role, names())
				case r == nil:
					continue // another program's role
				case len(a.Aliases) > 1 && !r.Panel:
					return nil, fmt.Errorf("%s:%d: roles: %s takes one alias, not %d", mf.Path, a.Line, a.Role, len(a.Aliases))
				}
				if _, done := m.assign[a.Role]; !done {
					m.assign[a.Role] = a.Aliases
				}
			}
		}
	}
	for _, as := range rs.Assign {
		flag := as.Given
		if flag == "" {
			flag = as.Role + "=" + strings.Join(as.Aliases, ",")
		}
		r := role(as.Role)
		switch {
		case r == nil:
			return nil, fmt.Errorf("%s: %s has no role %q (its roles: %s)", flag, prog, as.Role, names())
		case len(as.Aliases) > 1 && !r.Panel:
			return nil, fmt.Errorf("%s: role %s takes one alias", flag, as.Role)
		}
		for _, a := range as.Aliases {
			if a == DefaultAlias {
				continue
			}
			if mf == nil {
				return nil, fmt.Errorf("%s: unknown alias %q: no models file (give --models FILE or set NG_MODELS)", flag, a)
			}
			if mf.Endpoints[a] == nil {
				return nil, fmt.Errorf("%s: unknown alias %q (%s defines %s)", flag, a, mf.Path, strings.Join(mf.Aliases, ", "))
			}
		}
		m.assign[as.Role] = as.Aliases
	}
	// Every role gets its endpoints; the clients are made once per alias.
	for _, r := range roles {
		if len(m.assign[r.Name]) == 0 {
			m.assign[r.Name] = []string{DefaultAlias}
		}
		for _, a := range m.assign[r.Name] {
			if m.clients[a] != nil {
				continue
			}
			var cfg Config
			if a == DefaultAlias {
				if cfgErr != nil {
					if mf == nil {
						m.Abort()
						return nil, cfgErr
					}
					// An error only if the run uses the role (Need).
					m.missing[r.Name] = fmt.Errorf("role %s has no endpoint (give --role %s=ALIAS, a roles entry in %s, or the flags): %v", r.Name, r.Name, mf.Path, cfgErr)
					continue
				}
				cfg = base
				cfg.Alias = DefaultAlias
			} else {
				var err error
				if cfg, err = mf.Endpoints[a].config(base, mf.Path, getenv); err != nil {
					m.Abort()
					return nil, fmt.Errorf("role %s=%s: %v", r.Name, a, err)
				}
			}
			cfg.Stage = prog
			cfg.UsageJSON = "" // one report for all endpoints: Models.Close
			c, err := New(cfg)
			if err != nil {
				m.Abort()
				if a == DefaultAlias {
					return nil, err
				}
				return nil, fmt.Errorf("role %s=%s: %v", r.Name, a, err)
			}
			m.clients[a] = c
			m.order = append(m.order, a)
		}
	}
	for _, r := range roles {
		for _, a := range m.assign[r.Name] {
			if c := m.clients[a]; c != nil && c.textAPI() && !r.BaseModels {
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
func (e *Endpoint) config(base Config, file string, getenv func(string) string) (Config, error) {
	cfg := base
	cfg.Alias, cfg.BaseURL, cfg.Model = e.Alias, e.BaseURL, e.Model
	cfg.APIKey, cfg.KeyWithheld = Secret{}, ""
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
		cfg.APIKey = NewSecret(k)
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
	cfg.price = e.Price
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
func (m *Models) Caller(role string) Caller {
	if err := m.missing[role]; err != nil {
		return failCaller{err}
	}
	return roleCaller{m.clients[m.aliases(role)[0]], role}
}

// failCaller is a role without an endpoint (see Need).
type failCaller struct{ err error }

func (f failCaller) Call(context.Context, Request) (*Response, error) { return nil, f.err }

// Panel is the endpoints of a role, in the order assigned.
func (m *Models) Panel(role string) []Member {
	if err := m.missing[role]; err != nil {
		return []Member{{Alias: DefaultAlias, Caller: failCaller{err}}}
	}
	var out []Member
	for _, a := range m.aliases(role) {
		c := m.clients[a]
		out = append(out, Member{Alias: a, Model: c.cfg.Model, API: c.cfg.API, Caller: roleCaller{c, role}})
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
func (m *Models) Primary() *Client { return m.clients[m.order[0]] }

// Client is the client of an alias (nil when the run does not use it).
func (m *Models) Client(alias string) *Client { return m.clients[alias] }

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
			eps = append(eps, fmt.Sprintf("%s (%s at %s)", a, c.cfg.Model, redactURL(c.cfg.BaseURL)))
		}
		out = append(out, r.Name+" = "+strings.Join(eps, ", "))
	}
	return out
}

// endpointUsage is the client's report with its alias, window and the
// share of the window in use over the run.
func (c *Client) endpointUsage() Usage {
	u := c.Usage()
	u.Alias, u.Concurrency = c.cfg.Alias, c.cfg.Concurrency
	if secs := time.Since(c.start).Seconds(); secs > 0 && c.cfg.Concurrency > 0 {
		u.Utilisation = float64(int(1000*c.win.busy().Seconds()/(secs*float64(c.cfg.Concurrency)))) / 1000
	}
	return u
}

type roleCaller struct {
	c    *Client
	role string
}

func (r roleCaller) Call(ctx context.Context, req Request) (*Response, error) {
	if req.Role == "" {
		req.Role = r.role
	}
	return r.c.Call(ctx, req)
}

// Usage is the report of the run over every endpoint: with one endpoint
// that endpoint's report (as before roles existed, with by_role); with
// several, the totals with each endpoint's report in Endpoints.
func (m *Models) Usage() Usage {
	if len(m.order) == 1 {
		return m.clients[m.order[0]].endpointUsage()
	}
	u := Usage{Stage: m.stage, ByCall: map[string]*CallStats{}, ByRole: map[string]*CallStats{}, Priced: true}
	u.Seconds = roundSeconds(time.Since(m.start))
	var models, urls []string
	for _, a := range m.order {
		e := m.clients[a].endpointUsage()
		u.Endpoints = append(u.Endpoints, &e)
		u.Total.add(&e.Total)
		u.Priced = u.Priced && e.Priced
		u.Deferred += e.Deferred
		u.WindowCuts += e.WindowCuts
		for k, v := range e.ByCall {
			addTo(&u.ByCall, k, v)
		}
		for k, v := range e.ByRole {
			addTo(&u.ByRole, k, v)
		}
		models, urls = append(models, e.Model), append(urls, e.BaseURL)
	}
	u.Model, u.BaseURL = strings.Join(models, ","), strings.Join(urls, ",")
	return u
}

// Close ends the run: each endpoint's --emit-requests file is committed,
// --usage-json written, and the summary printed per endpoint and role.
func (m *Models) Close() error {
	var errs []error
	for _, a := range m.order {
		if c := m.clients[a]; c.emit != nil {
			errs = append(errs, c.emit.close())
		}
	}
	u := m.Usage()
	if m.usage != "" {
		if err := u.writeJSON(m.usage); err != nil {
			errs = append(errs, fmt.Errorf("--usage-json: %w", err))
		}
	}
	if !m.quiet && m.stderr != nil && u.Total.Calls+u.Total.Failed+u.Total.Emitted > 0 {
		if len(m.order) == 1 {
			u.writeSummary(m.stderr)
		} else {
			m.writeSummary(m.stderr, &u)
		}
	}
	return errors.Join(errs...)
}

// writeSummary prints, for several endpoints, a line per endpoint and,
// under it, a line per role it served.
func (m *Models) writeSummary(w io.Writer, u *Usage) {
	fmt.Fprintf(w, "%s: llm over %d endpoints, %.1fs: %s\n", m.stage, len(u.Endpoints), u.Seconds, u.Total.line(u))
	for _, e := range u.Endpoints {
		fmt.Fprintf(w, "%s:   endpoint %s (%s at %s, %.0f%% of its %d-call window in use): %s%s\n", m.stage, e.Alias, e.Model, e.BaseURL,
			100*e.Utilisation, e.Concurrency, e.Total.line(e), e.unpriced())
		for _, r := range slices.Sorted(maps.Keys(e.ByRole)) {
			fmt.Fprintf(w, "%s:     role %s: %s\n", m.stage, r, e.ByRole[r].line(e))
		}
	}
	writeDeferred(w, m.stage, u.Deferred)
}

// Abort ends a run that did not start.
func (m *Models) Abort() {
	for _, c := range m.clients {
		c.Abort()
	}
}
