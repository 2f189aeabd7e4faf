package app

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ngkit/ngkit/pkg/llm/roles"
	"github.com/spf13/pflag"
)

// RoleFlags are the model-role flags: --models FILE, --role ROLE=ALIAS
// (repeatable) and the short flags of the program's common roles
// (--judge ALIAS, --labellers A,B,C, --require-all-labellers).
type RoleFlags struct {
	Models string
	Roles  []string
	Judge  string
	// Labellers is --labellers A,B,C (nglabel's panel).
	Labellers string
	// Assistants is --assistants A,B (ngsim's assistants under test).
	Assistants string
	// RequireAll is --require-all-labellers: a record fails when a
	// labeller of the panel gave no labels.
	RequireAll bool
	// Subjects is --subjects A,B,C (ngpact's models under test).
	Subjects string

	roles []roles.Role
	fs    *pflag.FlagSet
}

// Register adds the role flags of a program with these roles to fs.
func (f *RoleFlags) Register(fs *pflag.FlagSet, rs []roles.Role) {
	f.roles, f.fs = rs, fs
	fs.StringVar(&f.Models, "models", "", "models `FILE` (YAML) naming endpoints by alias (default $NG_MODELS, else ~/.config/ngkit/models.yaml if present); see --role")
	var names []string
	for _, r := range rs {
		names = append(names, r.Name)
	}
	fs.StringArrayVar(&f.Roles, "role", nil, "serve a model role by an endpoint of the models file, `ROLE=ALIAS` (repeatable; roles: "+strings.Join(names, ", ")+"; alias default: the flags' endpoint)")
	for _, r := range rs {
		switch {
		case r.Name == roles.Judge:
			fs.StringVar(&f.Judge, "judge", "", "endpoint `ALIAS` of the judge role (as --role judge=ALIAS)")
		case r.Name == roles.Labeller && r.Panel:
			fs.StringVar(&f.Labellers, "labellers", "", "a panel of labelling models, endpoint aliases `A,B,C` (as --role labeller=A,B,C): majority label, each model's label and inter-model agreement")
			fs.BoolVar(&f.RequireAll, "require-all-labellers", false, "fail a record when a labeller of the panel gave no labels (default: keep the others' labels and name the failed one)")
		case r.Name == roles.Subject:
			fs.StringVar(&f.Subjects, "subjects", "", "the models under test, endpoint aliases `A,B,C` of the models file (as --role subject=A,B,C; default: the flags' endpoint)")
		case r.Name == roles.Assistant && r.Panel:
			fs.StringVar(&f.Assistants, "assistants", "", "the assistants under test, endpoint aliases `A,B` (as --role assistant=A,B): every spec is run against each")
		}
	}
}

// Settings are the role assignments of the flags, typed: each --role
// ROLE=ALIAS[,ALIAS...] and short flag (--judge ALIAS) is one
// roles.Assignment, in the order given; a role given twice is an error.
// prog names the program in the errors.
func (f *RoleFlags) Settings(prog string) (roles.Settings, error) {
	rs := roles.Settings{Models: f.Models}
	var names []string
	for _, r := range f.roles {
		names = append(names, r.Name)
	}
	given := map[string]string{} // role -> the flag that gave it
	add := func(flag, role, list string) error {
		if prev, dup := given[role]; dup {
			return fmt.Errorf("%s: role %s already assigned (%s)", flag, role, prev)
		}
		given[role] = flag
		var aliases []string
		for _, a := range strings.Split(list, ",") {
			if a = strings.TrimSpace(a); a == "" {
				continue
			}
			if slices.Contains(aliases, a) {
				return fmt.Errorf("%s: alias %s listed twice", flag, a)
			}
			aliases = append(aliases, a)
		}
		rs.Assign = append(rs.Assign, roles.Assignment{Role: role, Aliases: aliases, Given: flag})
		return nil
	}
	for _, a := range f.Roles {
		flag := "--role " + a
		name, list, ok := strings.Cut(a, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.TrimSpace(list) == "" {
			return rs, fmt.Errorf("%s: want ROLE=ALIAS (roles of %s: %s)", flag, prog, strings.Join(names, ", "))
		}
		if err := add(flag, name, list); err != nil {
			return rs, err
		}
	}
	short := []struct{ flag, role, v string }{{"judge", roles.Judge, f.Judge}, {"labellers", roles.Labeller, f.Labellers}, {"subjects", roles.Subject, f.Subjects}, {"assistants", roles.Assistant, f.Assistants}}
	for _, s := range short {
		if s.v == "" {
			continue
		}
		if prev, dup := given[s.role]; dup {
			return rs, fmt.Errorf("--%s %s and %s: the role is given twice", s.flag, s.v, prev)
		}
		if err := add("--"+s.flag+" "+s.v, s.role, s.v); err != nil {
			return rs, err
		}
	}
	return rs, nil
}

// RolesHelp is the --help section that lists a program's roles (Markdown).
func RolesHelp(rs []roles.Role) HelpSection {
	var b strings.Builder
	b.WriteString("`--models FILE` names endpoints by alias; `--role ROLE=ALIAS` assigns them; a role left unassigned uses the endpoint of `--base-url`/`--model` and the environment.\n\n")
	for _, r := range rs {
		fmt.Fprintf(&b, "- `%s`: %s\n", r.Name, r.Help)
	}
	return HelpSection{Title: "Model roles", Body: b.String()}
}
