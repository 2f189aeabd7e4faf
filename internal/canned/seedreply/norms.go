package seedreply

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/ngkit/ngkit/pkg/lang"
	"github.com/ngkit/ngkit/pkg/normbank"
)

var (
	normCount    = regexp.MustCompile(`Write (one|\d+) (?:different )?norms? of`)
	normCategory = regexp.MustCompile(`(?m)^Category: (.+)$`)
	normLang     = regexp.MustCompile(`in the category .+, in [^(\n]+ \(([a-zA-Z-]+)\)\.`)
)

// norms answers ngseed --make-norms (seed_norms) with the built-in norms
// of the category asked about, of the release cultures whose norms are
// written in the language asked for (English: the American and Chinese
// norms; Korean: the Korean ones), real text that passes the checks,
// leaving out those the prompt says are already written, as many as it
// asks for. With NormDups, the last norm of the first reply of each
// category (and of its retries) is a near-duplicate of its first. When it knows no more, it
// repeats one (a near-duplicate, dropped).
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
	count := 1
	if c := normCount.FindStringSubmatch(user); c != nil && c[1] != "one" {
		count, _ = strconv.Atoi(c[1])
	}
	if len(out) > count {
		out = out[:count]
	}
	// The first call of a category (its prompt lists no norms already
	// written; a retry of it too).
	if r.NormDups && !strings.Contains(user, "These norms are already written") && len(out) > 1 {
		out[len(out)-1] = out[0] + "!"
	}
	if len(out) == 0 {
		for _, n := range r.Pool.norms {
			if n.Category == category && normLangOf(n.Culture) == want {
				out = append(out, n.Text)
				break
			}
		}
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
