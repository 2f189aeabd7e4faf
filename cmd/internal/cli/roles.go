package cli

import "github.com/ngkit/ngkit/pkg/llm/roles"

// The model roles of each program: each can be served by an
// endpoint of the models file (--models, --role ROLE=ALIAS); a role left
// unassigned uses the endpoint of the flags and environment.
var (
	ngseedRoles = []roles.Role{
		{Name: roles.Writer, Help: "writes the scenarios, situations and derived seeds, the PACT items, the episode specs and the norms of --make-norms"},
		{Name: roles.Judge, Help: "checks that each PACT item's preference conflicts with its expectation, --types pact (--judge ALIAS)"},
	}
	ngv2rRoles = []roles.Role{
		{Name: roles.Writer, Help: "writes the dialogues"},
		{Name: roles.Judge, Help: "scores each dialogue's fit to its seed, --check-fit (--judge ALIAS)"},
	}
	ngrefineRoles = []roles.Role{
		{Name: roles.Rewriter, Help: "rewrites seeds toward the exemplars"},
		{Name: roles.Judge, Help: "scores each seed and rewrite (--judge ALIAS)"},
	}
	nglabelRoles = []roles.Role{
		{Name: roles.Labeller, Help: "labels the turns (--labellers A,B,C: a panel)", Panel: true},
		{Name: roles.Judge, Help: "the dialogue quality judge, --tasks quality (--judge ALIAS)"},
		{Name: roles.Pairwise, Help: "judges the --pairwise pairs"},
	}
	ngpactRoles = []roles.Role{
		{Name: roles.Subject, Help: "the models under test (--subjects A,B,C)", Panel: true, BaseModels: true},
	}
	// ngsim's: the simulated user, the assistants under test (several at
	// once: --assistants) and the judge.
	ngsimRoles = []roles.Role{
		{Name: roles.User, Help: "the simulated user: plays the spec's person, reveals the hidden constraints as the spec says"},
		{Name: roles.Assistant, Help: "the assistants under test (--assistants A,B: every spec against each), called with plain chat messages", Panel: true},
		{Name: roles.Judge, Help: "scores each episode and gives an outcome per hidden constraint (--judge ALIAS)"},
	}
)

// warnSameJudge says once, at the start, that ngrefine's judge grades its
// own model's rewrites, when the two roles share an endpoint although a
// models file offers others (without one, every run would say it).
func warnSameJudge(m *roles.Models, quiet bool) {
	if quiet || m.File() == "" || m.Alias(roles.Judge) != m.Alias(roles.Rewriter) {
		return
	}
	m.Warnf("note: the judge is the rewriter's endpoint (%s), so it grades its own rewrites; give the judge another model with --judge ALIAS (see --models)", m.Alias(roles.Judge))
}
