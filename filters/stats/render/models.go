package render

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ngkit/ngkit/filters/stats"
	"github.com/ngkit/ngkit/pkg/record"
)

// cachedShare is "N (P%)" of prompt tokens served from the provider's cache.
func cachedShare(cached, in int64) string {
	if cached == 0 {
		return "0"
	}
	return fmt.Sprintf("%s (%.0f%%)", num(cached), 100*float64(cached)/float64(max(in, 1)))
}

// modelTables lays out the calls per stage, role and endpoint, and the
// panel, for the text and Markdown reports.
func modelTables(r *stats.Report) []table {
	var ts []table
	if len(r.Calls) > 0 {
		t := table{title: "LLM calls by stage, role and endpoint (from the records' gen)",
			header: []string{"stage", "role", "endpoint", "model", "calls", "cached", "retries", "tokens in", "prompt-cached in", "tokens out", "est. cost $", "prompt cache saved $"}}
		var tot stats.GenCost
		for _, g := range r.Calls {
			t.rows = append(t.rows, []string{g.Stage, orNone(g.Role), orNone(g.Endpoint), g.Model, num(g.Calls), num(g.CacheHits), num(g.Retries),
				num(g.TokensIn), cachedShare(g.TokensCached, g.TokensIn), num(g.TokensOut), strconv.FormatFloat(g.CostUSD, 'f', 4, 64), strconv.FormatFloat(g.CachedSavedUSD, 'f', 4, 64)})
			tot.Calls, tot.CacheHits, tot.Retries = tot.Calls+g.Calls, tot.CacheHits+g.CacheHits, tot.Retries+g.Retries
			tot.TokensIn, tot.TokensOut, tot.CostUSD = tot.TokensIn+g.TokensIn, tot.TokensOut+g.TokensOut, tot.CostUSD+g.CostUSD
			tot.TokensCached, tot.CachedSavedUSD = tot.TokensCached+g.TokensCached, tot.CachedSavedUSD+g.CachedSavedUSD
		}
		t.rows = append(t.rows, []string{"all", "", "", "", num(tot.Calls), num(tot.CacheHits), num(tot.Retries), num(tot.TokensIn), cachedShare(tot.TokensCached, tot.TokensIn), num(tot.TokensOut), strconv.FormatFloat(tot.CostUSD, 'f', 4, 64), strconv.FormatFloat(tot.CachedSavedUSD, 'f', 4, 64)})
		t.notes = append(t.notes, "a call whose reply several records share (ngseed's scenarios) counts once in each; cost 0 where the endpoint has no price",
			"cached: calls answered from ngkit's reply cache; prompt-cached in: prompt tokens the provider served from its prompt cache (a shared prefix of 1,024+ tokens), billed at the cached-input price")
		ts = append(ts, t)
	}
	p := r.Panel
	if p == nil {
		return ts
	}
	for _, task := range record.LabelTaskNames() {
		t := table{title: "Labelling panel: " + task + " by labeller", header: []string{"labeller", "turns", "distribution"}}
		for _, d := range p.Dist {
			if d.Task == task {
				t.rows = append(t.rows, []string{d.Group, num(d.Turns), distString(d)})
			}
		}
		if len(t.rows) > 0 {
			ts = append(ts, t)
		}
	}
	f := func(v *float64) string {
		if v == nil {
			return "-"
		}
		return strconv.FormatFloat(*v, 'f', 3, 64)
	}
	t := table{title: fmt.Sprintf("Labelling panel agreement (%s, %s)", plural(p.Records, "record"), strings.Join(p.Labellers, ", ")),
		header: []string{"task", "turns", "Fleiss' kappa", "Krippendorff's alpha"}}
	for _, a := range p.Agreement {
		row := []string{a.Task, num(a.Turns), f(a.Fleiss), f(a.Alpha)}
		t.rows = append(t.rows, row)
		for _, pk := range a.Pairs {
			t.notes = append(t.notes, fmt.Sprintf("%s: Cohen's kappa %s / %s %s over %s", a.Task, pk.A, pk.B, f(pk.Kappa), plural(pk.Turns, "turn")))
		}
	}
	for _, l := range p.Labellers {
		if n := p.Failed[l]; n > 0 {
			t.notes = append(t.notes, fmt.Sprintf("%s gave no labels for %s", l, plural(n, "record")))
		}
	}
	ts = append(ts, t)
	if len(p.Disagreements) > 0 {
		d := table{title: "Turns the panel disagrees on most", header: []string{"id", "turn", "task", "majority share", "votes"}}
		for _, x := range p.Disagreements {
			var votes []string
			for _, l := range p.Labellers {
				if v, ok := x.Votes[l]; ok {
					votes = append(votes, l+"="+v)
				}
			}
			d.rows = append(d.rows, []string{x.ID, strconv.Itoa(x.Turn), x.Task, strconv.FormatFloat(x.Share, 'f', 2, 64), strings.Join(votes, " ")})
			d.notes = append(d.notes, fmt.Sprintf("%s turn %d: %s", x.ID, x.Turn, strconv.Quote(x.Text)))
		}
		ts = append(ts, d)
	}
	return ts
}
