package app

import (
	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/llm/roles"
)

// WithRoles gives an LLM program its model roles: the
// --models, --role and short role flags, and the roles listed in --help.
// Call before Run.
func (p *Program) WithRoles(rs []roles.Role) *Program {
	p.roles = rs
	p.Roles.Register(p.Flags, rs)
	p.Sections = append(p.Sections, RolesHelp(rs))
	return p
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
