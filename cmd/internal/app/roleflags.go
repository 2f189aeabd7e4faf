package app

import (
	"fmt"
	"strings"

	"github.com/ngkit/ngkit/pkg/llm"
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

	roles []llm.Role
	fs    *pflag.FlagSet
}

// Register adds the role flags of a program with these roles to fs.
func (f *RoleFlags) Register(fs *pflag.FlagSet, roles []llm.Role) {
	f.roles, f.fs = roles, fs
	fs.StringVar(&f.Models, "models", "", "models `FILE` (YAML) naming endpoints by alias (default $NG_MODELS, else ~/.config/ngkit/models.yaml if present); see --role")
	var names []string
	for _, r := range roles {
		names = append(names, r.Name)
	}
	fs.StringArrayVar(&f.Roles, "role", nil, "serve a model role by an endpoint of the models file, `ROLE=ALIAS` (repeatable; roles: "+strings.Join(names, ", ")+"; alias default: the flags' endpoint)")
	for _, r := range roles {
		switch {
		case r.Name == llm.RoleJudge:
			fs.StringVar(&f.Judge, "judge", "", "endpoint `ALIAS` of the judge role (as --role judge=ALIAS)")
		case r.Name == llm.RoleLabeller && r.Panel:
			fs.StringVar(&f.Labellers, "labellers", "", "a panel of labelling models, endpoint aliases `A,B,C` (as --role labeller=A,B,C): majority label, each model's label and inter-model agreement")
			fs.BoolVar(&f.RequireAll, "require-all-labellers", false, "fail a record when a labeller of the panel gave no labels (default: keep the others' labels and name the failed one)")
		case r.Name == llm.RoleSubject:
			fs.StringVar(&f.Subjects, "subjects", "", "the models under test, endpoint aliases `A,B,C` of the models file (as --role subject=A,B,C; default: the flags' endpoint)")
		case r.Name == llm.RoleAssistant && r.Panel:
			fs.StringVar(&f.Assistants, "assistants", "", "the assistants under test, endpoint aliases `A,B` (as --role assistant=A,B): every spec is run against each")
		}
	}
}

// Settings folds the short flags into the role assignments; a role given
// both ways is an error.
func (f *RoleFlags) Settings() (llm.RoleSettings, error) {
	rs := llm.RoleSettings{Models: f.Models, Assign: append([]string(nil), f.Roles...)}
	for _, a := range f.Roles {
		rs.Given = append(rs.Given, "--role "+a)
	}
	short := []struct{ flag, role, v string }{{"judge", llm.RoleJudge, f.Judge}, {"labellers", llm.RoleLabeller, f.Labellers}, {"subjects", llm.RoleSubject, f.Subjects}, {"assistants", llm.RoleAssistant, f.Assistants}}
	for _, s := range short {
		if s.v == "" {
			continue
		}
		for _, a := range f.Roles {
			if name, _, _ := strings.Cut(a, "="); strings.TrimSpace(name) == s.role {
				return rs, fmt.Errorf("--%s %s and --role %s: the role is given twice", s.flag, s.v, a)
			}
		}
		rs.Assign = append(rs.Assign, s.role+"="+s.v)
		rs.Given = append(rs.Given, "--"+s.flag+" "+s.v)
	}
	return rs, nil
}

// RolesHelp is the --help section that lists a program's roles (Markdown).
func RolesHelp(roles []llm.Role) HelpSection {
	var b strings.Builder
	b.WriteString("`--models FILE` names endpoints by alias; `--role ROLE=ALIAS` assigns them; a role left unassigned uses the endpoint of `--base-url`/`--model` and the environment.\n\n")
	for _, r := range roles {
		fmt.Fprintf(&b, "- `%s`: %s\n", r.Name, r.Help)
	}
	return HelpSection{Title: "Model roles", Body: b.String()}
}
