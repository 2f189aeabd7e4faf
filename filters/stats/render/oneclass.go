package render

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ngkit/ngkit/filters/stats"
)

// OneClassWarnings are the lines that warn of a model whose labellings
// are mostly one class (over stats.OneClassWarnShare of its dialogues).
func OneClassWarnings(l *stats.Labels) []string {
	if l == nil {
		return nil
	}
	var out []string
	for _, o := range l.OneClass {
		if o.Share <= stats.OneClassWarnShare {
			continue
		}
		var ls []string
		for _, k := range sortedKeys(o.Labels) {
			ls = append(ls, fmt.Sprintf("%s %d", k, o.Labels[k]))
		}
		out = append(out, fmt.Sprintf("warning: %s gave every turn one %s label in %d of %d dialogues (%s; %s): such labels tell no turn from another",
			o.Model, o.Task, o.OneClass, o.Dialogues, pct(o.Share), strings.Join(ls, ", ")))
	}
	return out
}

func sortedKeys(m map[string]int64) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
