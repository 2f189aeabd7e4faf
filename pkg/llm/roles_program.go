package llm

import (
	"github.com/ngkit/ngkit/pkg/pipeline"
)

// WithRoles gives a program its model roles: the --models, --role and
// short role flags, and the roles listed in --help. Call before Run.
func (p *Program) WithRoles(roles []Role) *Program {
	p.roles = roles
	p.Roles.Register(p.Flags, roles)
	p.Details = p.Details + "\n\n" + RolesHelp(roles)
	return p
}

// RunModels is Run for a program with roles: it resolves the roles to
// endpoints (one client each) and builds the stage with them.
func (p *Program) RunModels(env pipeline.Env, build func(*Models) (pipeline.Stage, error)) int {
	args, code, ok := p.Parse(env)
	if !ok {
		return code
	}
	if r := p.IO.MaxErrorRate; r < 0 || r > 1 {
		return p.Usagef(env, "--max-error-rate %g: want a share of records from 0 to 1 (1: never stop)", r)
	}
	base, endpointErr, err := p.LLM.sharedConfig(env.Var)
	if err != nil {
		return p.Usagef(env, "%v", err)
	}
	base.Stage, base.Stderr, base.Quiet = p.Name, env.Stderr, p.IO.Quiet
	rs, err := p.Roles.Settings()
	if err != nil {
		return p.Usagef(env, "%v", err)
	}
	models, err := OpenModels(rs, p.Name, p.roles, AllRoleNames, base, endpointErr, env.Var)
	if err != nil {
		return p.Usagef(env, "%v", err)
	}
	if !p.Flags.Changed("workers") {
		p.IO.Workers = models.Workers()
	}
	stage, err := build(models)
	if err != nil {
		models.Abort()
		return p.Usagef(env, "%v", err)
	}
	spec := pipeline.RunSpec{Stage: models.stageOf(stage), Inputs: args}
	if p.Source != nil {
		if spec.Source, err = p.Source(args); err != nil {
			models.Abort()
			return p.Usagef(env, "%v", err)
		}
	}
	finished := false
	spec.Finish = func() error { finished = true; return models.Close() }
	code = p.IO.Execute(env, p.Name, spec)
	if !finished {
		models.Abort()
	}
	return code
}

// stageOf wraps the stage as Client.Stage does (records deferred to the
// --emit-requests file leave the output); with several endpoints there
// is no emit file (OpenModels refuses it), so the first client counts.
func (m *Models) stageOf(s pipeline.Stage) pipeline.Stage {
	return m.clients[m.order[0]].Stage(s)
}

// sharedConfig is Config without the need for an endpoint: with a models
// file every role may have one of its own. endpointErr is why the flags
// and environment define no endpoint (nil when they do); err is any other
// usage error of the flags.
func (f *Flags) sharedConfig(getenv func(string) string) (cfg Config, endpointErr, err error) {
	cfg, err = f.Config(getenv)
	if err == nil {
		return cfg, nil, nil
	}
	// Config checks the endpoint before the other flags: ask again with a
	// stand-in endpoint to learn whether something else is wrong too.
	stand := func(k string) string {
		switch k {
		case "NG_BASE_URL":
			if v := getenv(k); v != "" {
				return v
			}
			if getenv("OPENAI_BASE_URL") == "" {
				return "http://no-endpoint.invalid/v1"
			}
		case "NG_MODEL":
			if v := getenv(k); v != "" {
				return v
			}
			return "no-model"
		}
		return getenv(k)
	}
	cfg2, err2 := f.Config(stand)
	if err2 != nil {
		return cfg2, nil, err2
	}
	return cfg2, err, nil
}
