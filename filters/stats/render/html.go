package render

import (
	"bufio"
	"cmp"
	"io"
	"slices"
	"strings"

	"github.com/ngkit/ngkit/filters/stats"
)

// htmlCSP forbids every fetch: the report is one file that must open the
// same way offline, and must not leak that it was opened. Only inline
// styles are allowed (no scripts, images, fonts or frames).
const htmlCSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"

// WriteHTML writes r as one self-contained HTML page: tables, and charts
// drawn as inline SVG, with nothing to fetch.
func WriteHTML(w io.Writer, r *stats.Report) error {
	if r == nil {
		r = &stats.Report{}
	}
	bw := bufio.NewWriter(w)
	if err := htmlTmpl.Execute(bw, newHTMLView(r)); err != nil {
		return err
	}
	return bw.Flush()
}

// htmlView is what the template shows: the report plus what is derived
// from it for display.
type htmlView struct {
	R   *stats.Report
	CSP string
	// Dialogues: the report has the dialogue sections (distributions,
	// language); a file of PACT items or seeds, which holds no dialogue,
	// gets none rather than tables of zeros.
	Dialogues  bool
	Failed     int
	Categories *hbarChart
	Counts     []countTable
	CultType   matrix
	Hists      []*histChart
	Dists      []distRow
	Defects    *hbarChart
	Labels     []labelTask
	Browse     *browseView
	Eval       evalView // PACT, simulation, by persona (htmleval.go)
}

type countTable struct {
	Title string
	Total int64
	Rows  []stats.Count
}

type matrix struct {
	Cols []string
	Rows []matrixRow
}

type matrixRow struct {
	Key   string
	Cells []string
	Total int64
}

type distRow struct {
	Name string
	S    stats.Summary
}

type labelTask struct {
	Task   string
	Chart  *stackChart
	Labels []labelCol
	Rows   []labelRow
}

type labelCol struct{ Label, Class string }

type labelRow struct {
	Group string
	Turns int64
	Cells []string
}

func newHTMLView(r *stats.Report) *htmlView {
	v := &htmlView{R: r, CSP: htmlCSP, Browse: newBrowseView(r.Browser), Eval: newEvalView(r),
		Dialogues: r.Dialogues > 0 || r.Records == 0}
	for _, t := range r.FailOn {
		if t.Exceeded {
			v.Failed++
		}
	}
	var cats []barItem
	for _, c := range r.Counts.ByCategory {
		cats = append(cats, barItem{label: c.Key, value: c.Records})
	}
	if informative(r.Counts.ByCategory) {
		v.Categories = newHBar("Records by category", cats)
	}
	for _, t := range []countTable{
		{Title: "By culture", Rows: r.Counts.ByCulture},
		{Title: "By dialogue type", Rows: r.Counts.ByType},
		{Title: "By category", Rows: r.Counts.ByCategory},
	} {
		if !informative(t.Rows) { // as in the text report
			continue
		}
		for _, c := range t.Rows {
			t.Total += c.Records
		}
		v.Counts = append(v.Counts, t)
	}
	if informative(r.Counts.ByType) {
		v.CultType = cultureTypeMatrix(r.Counts.ByCultureType)
	}

	addHist := func(c *histChart) {
		if c != nil {
			v.Hists = append(v.Hists, c)
		}
	}
	addHist(newHist("Turns per dialogue", "turns", "dialogues", r.TurnsPerDialogue.Hist))
	addHist(newHist("Speakers per dialogue", "speakers", "dialogues", r.SpeakersPerDialogue.Hist))
	v.Dists = []distRow{{"turns per dialogue", r.TurnsPerDialogue}, {"speakers per dialogue", r.SpeakersPerDialogue}}
	for _, l := range r.Lengths {
		addHist(newHist("Characters per turn, "+orNone(l.Lang), "characters", "turns", l.Chars.Hist))
		addHist(newHist("Tokens per turn, "+orNone(l.Lang), "tokens", "turns", l.Tokens.Hist))
		v.Dists = append(v.Dists,
			distRow{"characters per turn, " + orNone(l.Lang), l.Chars},
			distRow{"tokens per turn, " + orNone(l.Lang), l.Tokens})
	}

	var defs []barItem
	for _, d := range r.Defects {
		defs = append(defs, barItem{label: d.Name, value: d.Count, note: pct(d.Rate)})
	}
	v.Defects = newHBar("Records with each defect", defs)

	if r.Labels != nil {
		v.Labels = htmlLabelTasks(r.Labels.Dist)
		byStage := slices.Clone(r.Labels.IntentByStage)
		for i := range byStage {
			byStage[i].Task = "intent by V2R stage"
		}
		v.Labels = append(v.Labels, htmlLabelTasks(byStage)...)
	}
	return v
}

// cultureTypeMatrix lays the "culture/type" counts out as cultures x types.
func cultureTypeMatrix(counts []stats.Count) matrix {
	var m matrix
	rowOf := map[string]int{}
	colOf := map[string]int{}
	type cell struct{ row, col int }
	cells := map[cell]int64{}
	for _, c := range counts {
		cult, typ := c.Key, ""
		if i := strings.LastIndexByte(c.Key, '/'); i >= 0 {
			cult, typ = c.Key[:i], c.Key[i+1:]
		}
		if _, ok := rowOf[cult]; !ok {
			rowOf[cult] = len(m.Rows)
			m.Rows = append(m.Rows, matrixRow{Key: cult})
		}
		if _, ok := colOf[typ]; !ok {
			colOf[typ] = len(m.Cols)
			m.Cols = append(m.Cols, typ)
		}
		cells[cell{rowOf[cult], colOf[typ]}] += c.Records
		m.Rows[rowOf[cult]].Total += c.Records
	}
	for i := range m.Rows {
		m.Rows[i].Cells = make([]string, len(m.Cols))
		for j := range m.Cols {
			if n, ok := cells[cell{i, j}]; ok {
				m.Rows[i].Cells[j] = num(n)
			}
		}
	}
	return m
}

// htmlLabelTasks groups the distributions by task, in report order. Labels
// are ordered by their count over all groups, and keep one colour per task.
func htmlLabelTasks(dists []stats.LabelDist) []labelTask {
	var tasks []labelTask
	byTask := map[string][]stats.LabelDist{}
	for _, d := range dists {
		if _, ok := byTask[d.Task]; !ok {
			tasks = append(tasks, labelTask{Task: d.Task})
		}
		byTask[d.Task] = append(byTask[d.Task], d)
	}
	for i := range tasks {
		ds := byTask[tasks[i].Task]
		totals := map[string]int64{}
		for _, d := range ds {
			for l, n := range d.Counts {
				totals[l] += n
			}
		}
		labels := make([]string, 0, len(totals))
		for l := range totals {
			labels = append(labels, l)
		}
		slices.SortFunc(labels, func(a, b string) int {
			return cmp.Or(cmp.Compare(totals[b], totals[a]), cmp.Compare(a, b))
		})
		var groups []string
		var counts [][]int64
		for _, d := range ds {
			row := labelRow{Group: d.Group, Turns: d.Turns}
			cs := make([]int64, len(labels))
			for j, l := range labels {
				cs[j] = d.Counts[l]
				row.Cells = append(row.Cells, num(cs[j]))
			}
			tasks[i].Rows = append(tasks[i].Rows, row)
			groups = append(groups, d.Group)
			counts = append(counts, cs)
		}
		for j, l := range labels {
			tasks[i].Labels = append(tasks[i].Labels, labelCol{Label: l, Class: colorClass(j)})
		}
		tasks[i].Chart = newStack("Distribution of "+tasks[i].Task+" labels per group", groups, labels, counts)
	}
	return tasks
}

// clip shortens s to about width columns (CJK counts two) for chart labels;
// the full text stays in the bar's tooltip.
func clip(s string, width int) string {
	w := 0
	for i, r := range s {
		if r >= 0x1100 {
			w += 2
		} else {
			w++
		}
		if w > width {
			return s[:i] + "…"
		}
	}
	return s
}
