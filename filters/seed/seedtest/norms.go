package seedtest

import (
	"regexp"
	"strings"

	"github.com/ngkit/ngkit/pkg/lang"
	"github.com/ngkit/ngkit/pkg/normbank"
)

var (
	normCategory = regexp.MustCompile(`(?m)^Category: (.+)$`)
	normLang     = regexp.MustCompile(`in the category .+, in [^(\n]+ \(([a-zA-Z-]+)\)\.`)
)

// norms answers ngseed --make-norms (seed_norms) with the built-in norms
// of the category asked about, of the release cultures whose norms are
// written in the language asked for (English: the American and Chinese
// norms; Korean: the Korean ones), real text that passes the checks,
// leaving out those the prompt says are already written. With NormDups,
// the first reply of each category ends with a near-duplicate of its
// first norm.
func (r *Replier) norms(user string) string {
	m := normCategory.FindStringSubmatch(user)
	l := normLang.FindStringSubmatch(user)
	if m == nil || l == nil {
		return `{"norms": ["The prompt names no category or language."]}`
	}
	category := strings.ReplaceAll(strings.TrimSpace(m[1]), " ", "_")
	want := lang.Normalize(l[1])
	var out []string
	for _, n := range r.Pool.norms {
		if n.Category != category || normLangOf(n.Culture) != want || strings.Contains(user, n.Text) {
			continue
		}
		out = append(out, n.Text)
	}
	if r.NormDups && r.first("norms "+category) && len(out) > 1 {
		out = append(out, strings.ToUpper(out[0][:1])+out[0][1:]+"!")
	}
	return marshal(map[string]any{"norms": out})
}

// normLangOf is the language of a release culture's norms (the Chinese
// norms of the release are English).
func normLangOf(culture string) string {
	c, err := normbank.BuiltinProfile(culture)
	if err != nil {
		return ""
	}
	if c.NormLang != "" {
		return lang.Normalize(c.NormLang)
	}
	return lang.Normalize(c.ScenarioLang)
}
