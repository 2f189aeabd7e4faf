package app

import (
	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/pipeline"
)

// WithRoles gives an LLM program its model roles (issue 14): the
// --models, --role and short role flags, and the roles listed in --help.
// Call before RunModels.
func (p *Program) WithRoles(roles []llm.Role) *Program {
	p.roles = roles
	p.Roles.Register(p.Flags, roles)
	p.Sections = append(p.Sections, RolesHelp(roles))
	return p
}

// RunModels is Run for a program with roles: it resolves the roles to
// endpoints (one client each, llm.OpenModels) and builds the stage with
// them. Its error is an *ExitError, as Run's.
func (p *Program) RunModels(env Env, build func(*llm.Models) (pipeline.Stage, error)) error {
	args, err := p.Parse(env)
	if err != nil {
		return err
	}
	if r := p.IO.MaxErrorRate; r < 0 || r > 1 {
		return p.Usagef("--max-error-rate %g: want a share of records from 0 to 1 (1: never stop)", r)
	}
	base, endpointErr, err := p.LLM.sharedConfig(env.Var)
	if err != nil {
		return p.Usagef("%v", err)
	}
	base.Stage, base.Stderr, base.Quiet = p.Name, env.Stderr, p.IO.Quiet
	rs, err := p.Roles.Settings()
	if err != nil {
		return p.Usagef("%v", err)
	}
	models, err := llm.OpenModels(rs, p.Name, p.roles, llm.AllRoleNames, base, endpointErr, env.Var)
	if err != nil {
		return p.Usagef("%v", err)
	}
	if !p.Flags.Changed("workers") {
		p.IO.Workers = models.Workers()
	}
	if err := p.checkInputs(args); err != nil {
		models.Abort()
		return err
	}
	stage, err := build(models)
	if err != nil {
		models.Abort()
		return p.Usagef("%v", err)
	}
	// With several endpoints there is no --emit-requests file (OpenModels
	// refuses it): the primary client counts the deferred records.
	if err := checkPriced(base.Budget, models.Clients()); err != nil {
		models.Abort()
		return p.Usagef("%v", err)
	}
	spec := RunSpec{Stage: deferredStage{stage, models.Primary(), p.LLM.Batch.On}, Inputs: args, Budget: base.Budget, Activity: models.Activity}
	if p.Source != nil {
		if spec.Source, err = p.Source(args); err != nil {
			models.Abort()
			return p.Usagef("%v", err)
		}
	}
	finished := false
	spec.Finish = func() error { finished = true; return models.Close() }
	err = p.execute(env, spec, models.Clients())
	if !finished {
		models.Abort()
	}
	return err
}

// sharedConfig is Config without the need for an endpoint: with a models
// file every role may have one of its own. endpointErr is why the flags
// and environment define no endpoint (nil when they do); err is any other
// usage error of the flags.
func (f *LLMFlags) sharedConfig(getenv func(string) string) (cfg llm.Config, endpointErr, err error) {
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
