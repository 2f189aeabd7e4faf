package render

import (
	"fmt"
	"html/template"
	"math"
	"slices"

	"github.com/ngkit/ngkit/filters/stats"
	"github.com/ngkit/ngkit/filters/stats/evalmath"
	"github.com/ngkit/ngkit/filters/stats/pactstats"
)

// The HTML report's PACT, simulation, models and by-persona sections:
// charts of estimates with their 95% intervals, and the same tables as the
// text report.

// htmlTable is a table of the text report, for the HTML one.
type htmlTable struct {
	Title  string
	Header []string
	Num    []bool // right-aligned numeric columns
	Rows   [][]string
	Notes  []string
}

func htmlTables(ts []table) []htmlTable {
	out := make([]htmlTable, 0, len(ts))
	for _, t := range ts {
		h := htmlTable{Title: t.title, Header: t.header, Rows: t.rows, Notes: t.notes}
		for i := range t.header {
			h.Num = append(h.Num, len(t.rows) > 0 && numericColumn(t.rows, i))
		}
		out = append(out, h)
	}
	return out
}

// ivChart draws one bar per estimate, from the axis start to the mean,
// with a whisker over its 95% interval.
type ivChart struct {
	Label         string
	W, H          int
	LabelX, X0    px
	AxisY, TitleY px
	Rows          []ivRow
	Ticks         []histTick
	Axis          string
}

type ivRow struct {
	Y, TextY, MidY, W, LowX, HighX, ValueX px
	Label, Value, Title                    string
}

type ivItem struct {
	label string
	iv    evalmath.Interval
}

// newIvChart draws items on an axis from lo to hi; format writes a value;
// nil when no item has an estimate.
func newIvChart(aria, axis string, lo, hi float64, format func(float64) string, items []ivItem) *ivChart {
	items = slices.DeleteFunc(slices.Clone(items), func(it ivItem) bool { return it.iv.N == 0 })
	if len(items) == 0 || hi <= lo {
		return nil
	}
	const axisH = 34
	barMax := float64(chartW - hbarLabelW - hbarValueW)
	x := func(v float64) float64 { return hbarLabelW + (min(max(v, lo), hi)-lo)/(hi-lo)*barMax }
	c := &ivChart{Label: fmt.Sprintf("%s: %d estimates with 95%% intervals, axis %s to %s", aria, len(items), format(lo), format(hi)),
		W: chartW, H: len(items)*hbarRowH + axisH, LabelX: hbarLabelW - 8, X0: hbarLabelW, Axis: axis}
	for i, it := range items {
		y := float64(i*hbarRowH + 2)
		value := format(it.iv.Mean) + " [" + format(it.iv.Low) + ", " + format(it.iv.High) + "]"
		c.Rows = append(c.Rows, ivRow{
			Y: px(y + 3), TextY: px(y + 15), MidY: px(y + 11), W: px(max(x(it.iv.Mean)-hbarLabelW, 1)),
			LowX: px(x(it.iv.Low)), HighX: px(x(it.iv.High)), ValueX: px(hbarLabelW + barMax + 6),
			Label: clip(it.label, 24), Value: value, Title: fmt.Sprintf("%s: %s (n %s)", it.label, value, num(it.iv.N)),
		})
	}
	c.AxisY = px(len(items)*hbarRowH + 4)
	c.TitleY = c.AxisY + 28
	for i := range 5 {
		v := lo + float64(i)*(hi-lo)/4
		c.Ticks = append(c.Ticks, histTick{X: px(x(v)), Text: format(v)})
	}
	return c
}

func pctAxis(f float64) string { return f1(100*f) + "%" }

// pactView is one framing's charts and tables.
type pactView struct {
	Question string
	Charts   []*ivChart
	Tables   []htmlTable
}

type personaView struct {
	Attr   string
	Chart  *hbarChart
	Table  htmlTable
	Groups []personaGroupView
}

type personaGroupView struct {
	Value  string
	Tables []htmlTable
}

type evalView struct {
	Pact []pactView
	// PactRun: the PACT tables of both framings (their averages, the
	// persona-prompted run, the human study).
	PactRun   []htmlTable
	SimCharts []*ivChart
	SimTables []htmlTable
	// Models are the calls per stage, role and endpoint and the labelling
	// panel's tables (distribution by labeller, agreement, the turns it
	// disagrees on most), as in the text report.
	Models    []htmlTable
	ByPersona []personaView
}

func newEvalView(r *stats.Report) evalView {
	var v evalView
	if r.Pact != nil {
		for _, q := range r.Pact.Questions {
			pv := pactView{Question: q.Question}
			var overall, byCulture, effects []ivItem
			for _, rt := range q.Rates {
				switch rt.Attr {
				case "":
					overall = append(overall, ivItem{rt.Model, rt.PFollow})
				case pactstats.Culture:
					byCulture = append(byCulture, ivItem{rt.Model + " · " + orNone(rt.Value), rt.PFollow})
				}
			}
			top := 0.0
			for _, e := range q.Effects {
				effects = append(effects, ivItem{e.Model + " · " + e.Attr, e.MeanAbsPP})
				top = max(top, e.MeanAbsPP.High)
			}
			for _, c := range []*ivChart{
				newIvChart("Culture-following rate per model, question "+q.Question, "mean p_follow", 0, 1, pctAxis, overall),
				newIvChart("Culture-following rate by culture, question "+q.Question, "mean p_follow", 0, 1, pctAxis, byCulture),
				newIvChart("Counterfactual effect of each attribute, question "+q.Question, "mean |change| of p_follow, pp", 0, niceCeil(top), f1, effects),
			} {
				if c != nil {
					pv.Charts = append(pv.Charts, c)
				}
			}
			one := &pactstats.Report{Items: r.Pact.Items, Questions: []pactstats.Question{q}}
			pv.Tables = htmlTables(pactTables(one))
			v.Pact = append(v.Pact, pv)
		}
		v.PactRun = htmlTables(pactRunTables(r.Pact))
	}
	if s := r.Sim; s != nil {
		var scores, inferred []ivItem
		for _, a := range s.Assistants {
			name := a.Assistant + " (" + a.Mode + ")"
			scores = append(scores, ivItem{name + " · assistance", a.Assistance}, ivItem{name + " · cultural", a.Cultural},
				ivItem{name + " · language", a.Language})
			inferred = append(inferred, ivItem{name, a.Inferred})
		}
		for _, c := range []*ivChart{
			newIvChart("Judge scores per assistant", "mean score (1-5)", 1, 5, f1, scores),
			newIvChart("Constraint inference rate per assistant", "share inferred and respected", 0, 1, pctAxis, inferred),
		} {
			if c != nil {
				v.SimCharts = append(v.SimCharts, c)
			}
		}
		v.SimTables = htmlTables(simTables(s))
	}
	v.Models = htmlTables(modelTables(r))
	v.ByPersona = personaViews(r)
	return v
}

// niceCeil rounds an axis end up to 1, 2 or 5 times a power of ten.
func niceCeil(x float64) float64 {
	if x <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= x {
			return m * p
		}
	}
	return 10 * p
}

// personaViews are ngstats --by's groups: per attribute a chart and table
// of the records by value, and every table of each value's report.
func personaViews(r *stats.Report) []personaView {
	var out []personaView
	index := map[string]int{}
	for _, g := range r.ByPersona {
		i, ok := index[g.Attr]
		if !ok {
			i = len(out)
			index[g.Attr] = i
			out = append(out, personaView{Attr: g.Attr})
		}
		out[i].Groups = append(out[i].Groups, personaGroupView{Value: orNone(g.Value), Tables: htmlTables(tables(g.Report, 5))})
	}
	counts := allTables(&stats.Report{Records: r.Records, ByPersona: r.ByPersona}, 5)
	for i := range out {
		var items []barItem
		for _, g := range r.ByPersona {
			if g.Attr == out[i].Attr {
				items = append(items, barItem{label: orNone(g.Value), value: g.Report.Records})
			}
		}
		out[i].Chart = newHBar("Records by persona "+out[i].Attr, items)
		for _, t := range counts {
			if t.title == "By persona "+out[i].Attr {
				out[i].Table = htmlTables([]table{t})[0]
			}
		}
	}
	return out
}

var _ = template.Must(htmlTmpl.New("eval").Parse(evalHTML))

const evalHTML = `
{{- with .Eval}}
{{- if or .Pact .PactRun}}

<section id="pact">
<h2>PACT: cultural norm vs personal preference</h2>
<p class="muted">Per question framing: how often each model follows the culture, by culture and persona attribute; the counterfactual effect of each attribute; agreement between models and with human distributions. Bars are means, whiskers their 95% intervals.</p>
{{- range .Pact}}
<h3>Question: {{.Question}}</h3>
{{- range .Charts}}
{{template "ivchart" .}}{{end}}
{{- range .Tables}}{{template "htable" .}}{{end}}
{{- end}}
{{- if .PactRun}}
<h3>Both framings, the persona-prompted run, the human study</h3>
{{- range .PactRun}}{{template "htable" .}}{{end}}
{{- end}}
</section>
{{- end}}
{{- if or .SimCharts .SimTables}}

<section id="simulation">
<h2>Simulation: assistants on simulated users</h2>
{{- range .SimCharts}}
{{template "ivchart" .}}{{end}}
{{- range .SimTables}}{{template "htable" .}}{{end}}
</section>
{{- end}}
{{- if .Models}}

<section id="models">
<h2>Models: calls and labelling panels</h2>
<p class="muted">The LLM calls behind the records, by stage, role and endpoint (from each record's <code>gen</code>); for records labelled by a panel, each labeller's labels, the panel's agreement per task (Fleiss' kappa, Krippendorff's alpha, Cohen's kappa per pair) and the turns it disagrees on most.</p>
{{- range .Models}}{{template "htable" .}}{{end}}
</section>
{{- end}}
{{- if .ByPersona}}

<section id="by-persona">
<h2>By persona attribute</h2>
{{- range .ByPersona}}
<h3>{{.Attr}}</h3>
{{with .Chart}}{{template "hbar" .}}{{end}}
{{template "htable" .Table}}
{{- $attr := .Attr}}{{range .Groups}}
<details><summary>{{$attr}} = {{.Value}}: the whole report of these records</summary>
{{range .Tables}}{{template "htable" .}}{{end}}
</details>
{{- end}}
{{- end}}
</section>
{{- end}}
{{- end}}
{{- define "htable"}}{{if .Rows}}<h4>{{.Title}}</h4>
<div class="scroll"><table>
<thead><tr>{{$num := .Num}}{{range $i, $h := .Header}}<th{{if index $num $i}} class="n"{{end}}>{{$h}}</th>{{end}}</tr></thead>
<tbody>{{range .Rows}}
<tr>{{range $i, $c := .}}<td{{if index $num $i}} class="n"{{end}}>{{$c}}</td>{{end}}</tr>{{end}}
</tbody></table></div>{{range .Notes}}
<p class="muted">{{.}}</p>{{end}}
{{end}}{{end}}
{{- define "ivchart"}}<svg class="chart iv" role="img" aria-label="{{.Label}}" viewBox="0 0 {{.W}} {{.H}}">
<title>{{.Label}}</title>
{{- range .Rows}}
<g><title>{{.Title}}</title><text x="{{$.LabelX}}" y="{{.TextY}}" text-anchor="end">{{.Label}}</text><rect class="bar" x="{{$.X0}}" y="{{.Y}}" width="{{.W}}" height="16" rx="2" opacity="0.75"/><line class="whisker" x1="{{.LowX}}" y1="{{.MidY}}" x2="{{.HighX}}" y2="{{.MidY}}"/><line class="whisker" x1="{{.LowX}}" y1="{{.Y}}" x2="{{.LowX}}" y2="{{.MidY}}"/><line class="whisker" x1="{{.HighX}}" y1="{{.Y}}" x2="{{.HighX}}" y2="{{.MidY}}"/><text class="val" x="{{.ValueX}}" y="{{.TextY}}">{{.Value}}</text></g>
{{- end}}
<line class="axis" x1="{{.X0}}" y1="{{.AxisY}}" x2="{{(index .Ticks 4).X}}" y2="{{.AxisY}}"/>
{{- $y := .AxisY}}{{range .Ticks}}
<text x="{{.X}}" y="{{$y}}" dy="14" text-anchor="middle">{{.Text}}</text>{{end}}
<text x="{{(index .Ticks 2).X}}" y="{{.TitleY}}" text-anchor="middle">{{.Axis}}</text>
</svg>{{end}}
`
