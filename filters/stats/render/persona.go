package render

import (
	"slices"

	"github.com/ngkit/ngkit/filters/stats"
)

// allTables are the report's tables, then, for ngstats --by, a count table
// per attribute and every table of each group's report, titled by group.
func allTables(r *stats.Report, ids int) []table {
	ts := tables(r, ids)
	var attrs []string
	for _, g := range r.ByPersona {
		if !slices.Contains(attrs, g.Attr) {
			attrs = append(attrs, g.Attr)
		}
	}
	for _, a := range attrs {
		t := table{title: "By persona " + a, header: []string{a, "records", "share", "dialogues", "turns", "with defects"}}
		for _, g := range r.ByPersona {
			if g.Attr != a {
				continue
			}
			share := 0.0
			if r.Records > 0 {
				share = float64(g.Report.Records) / float64(r.Records)
			}
			t.rows = append(t.rows, []string{orNone(g.Value), num(g.Report.Records), pct(share),
				num(g.Report.Dialogues), num(g.Report.Turns), num(g.Report.RecordsWithDefects)})
		}
		ts = append(ts, t)
	}
	for _, g := range r.ByPersona {
		prefix := "persona " + g.Attr + "=" + orNone(g.Value) + ": "
		for _, t := range tables(g.Report, ids) {
			t.title = prefix + t.title
			ts = append(ts, t)
		}
	}
	return ts
}
