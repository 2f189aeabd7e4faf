package cli

import "github.com/ngkit/ngkit/pkg/llm"

// The model roles of each program (issue 14): each can be served by an
// endpoint of the models file (--models, --role ROLE=ALIAS); a role left
// unassigned uses the endpoint of the flags and environment.
var (
	ngseedRoles = []llm.Role{
		{Name: llm.RoleWriter, Help: "writes the scenarios, situations and derived seeds, the PACT items, the episode specs and the norms of --make-norms"},
		{Name: llm.RoleJudge, Help: "checks that each PACT item's preference conflicts with its expectation, --types pact (--judge ALIAS)"},
	}
	ngv2rRoles = []llm.Role{
		{Name: llm.RoleWriter, Help: "writes the dialogues"},
		{Name: llm.RoleJudge, Help: "scores each dialogue's fit to its seed, --check-fit (--judge ALIAS)"},
	}
	ngrefineRoles = []llm.Role{
		{Name: llm.RoleRewriter, Help: "rewrites seeds toward the exemplars"},
		{Name: llm.RoleJudge, Help: "scores each seed and rewrite (--judge ALIAS)"},
	}
	nglabelRoles = []llm.Role{
		{Name: llm.RoleLabeller, Help: "labels the turns (--labellers A,B,C: a panel)", Panel: true},
		{Name: llm.RoleJudge, Help: "the dialogue quality judge, --tasks quality (--judge ALIAS)"},
		{Name: llm.RolePairwise, Help: "judges the --pairwise pairs"},
	}
)

// warnSameJudge says once, at the start, that ngrefine's judge grades its
// own model's rewrites, when the two roles share an endpoint although a
// models file offers others (without one, every run would say it).
func warnSameJudge(m *llm.Models, quiet bool) {
	if quiet || m.File() == "" || m.Alias(llm.RoleJudge) != m.Alias(llm.RoleRewriter) {
		return
	}
	m.Warnf("note: the judge is the rewriter's endpoint (%s), so it grades its own rewrites; give the judge another model with --judge ALIAS (see --models)", m.Alias(llm.RoleJudge))
}
