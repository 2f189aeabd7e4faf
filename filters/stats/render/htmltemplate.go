package render

import (
	"html/template"
	"strconv"
)

var htmlTmpl = template.Must(template.New("report").Funcs(template.FuncMap{
	"num": num, "demo": DemoText, "pct": pct, "dec": dec, "key": orNone,
	"ratio": func(f float64) string { return strconv.FormatFloat(f, 'f', 3, 64) },
	"many":  func(ids []string) bool { return len(ids) > 8 },
	"classes": func(n int) string {
		if n == 1 {
			return "1 class"
		}
		return strconv.Itoa(n) + " classes"
	},
	"share": func(n, total int64) string { return pct(float64(n) / float64(max(total, 1))) },
}).Parse(reportHTML))

const reportHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{{.CSP}}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>ngstats report</title>
<style>
:root{color-scheme:light;--fg:#1f2328;--muted:#59636e;--line:#d8dee4;--soft:#f6f8fa;--accent:#4e79a7;--bad:#c62828;--good:#2e7d32}
*{box-sizing:border-box}
body{margin:0;background:#fff;color:var(--fg);font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Helvetica Neue",Arial,"Noto Sans CJK SC","Noto Sans CJK KR","PingFang SC","Apple SD Gothic Neo","Microsoft YaHei","Malgun Gothic",sans-serif}
main{max-width:1040px;margin:0 auto;padding:24px 16px 48px}
h1{font-size:1.6em;margin:0 0 4px}
h2{font-size:1.25em;margin:36px 0 12px;padding-bottom:4px;border-bottom:1px solid var(--line)}
h3{font-size:1em;margin:18px 0 6px}
nav{display:flex;flex-wrap:wrap;gap:2px 14px}
nav a{color:var(--accent);text-decoration:none}
nav a:hover{text-decoration:underline}
.muted,.empty{color:var(--muted)}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(160px,1fr));gap:10px}
.card{background:var(--soft);border:1px solid var(--line);border-radius:8px;padding:10px 12px}
.card b{display:block;font-size:1.35em;font-variant-numeric:tabular-nums;overflow-wrap:anywhere}
.card span{color:var(--muted);font-size:.85em}
.cols{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(330px,100%),1fr));gap:0 28px}
.hists{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(400px,100%),1fr));gap:0 28px}
.hists .chart{max-width:560px}
.cols>*,.hists>*{min-width:0}
.scroll{overflow-x:auto}
table{border-collapse:collapse;font-size:.9em;margin:4px 0 14px}
th,td{padding:4px 10px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
th{background:var(--soft);font-weight:600}
td.help{min-width:14em}
.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
th.n{white-space:normal}
#models table{font-size:.82em}
#models th,#models td{padding:4px 6px}
#models td:not(.n){overflow-wrap:anywhere;min-width:6.5em}
.chart{display:block;width:100%;max-width:760px;height:auto;margin:6px 0 16px}
.chart text{font-size:12px;fill:#3d444d}
.chart .axis{stroke:#8c959f;stroke-width:1}
.chart .val{fill:#59636e}
.bar{fill:var(--accent)}
.chart .whisker{stroke:#1f2328;stroke-width:1.5}
h4{font-size:.95em;margin:14px 0 4px}
.chart g:hover .bar{fill:#2f5a87}
.c0{fill:#4e79a7;background:#4e79a7}.c1{fill:#f28e2b;background:#f28e2b}.c2{fill:#e15759;background:#e15759}.c3{fill:#76b7b2;background:#76b7b2}.c4{fill:#59a14f;background:#59a14f}
.c5{fill:#edc948;background:#edc948}.c6{fill:#b07aa1;background:#b07aa1}.c7{fill:#ff9da7;background:#ff9da7}.c8{fill:#9c755f;background:#9c755f}.c9{fill:#bab0ac;background:#bab0ac}
.sw{display:inline-block;width:.8em;height:.8em;border-radius:2px;margin-right:4px;vertical-align:-1px}
.banner{padding:10px 14px;border-radius:8px;border:1px solid var(--line);background:var(--soft)}
.bad{color:var(--bad);font-weight:600}.ok{color:var(--good);font-weight:600}
code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;font-size:.88em;overflow-wrap:anywhere}
ul.ids{margin:0;padding:0;list-style:none;display:flex;flex-wrap:wrap;gap:0 12px}
td.ids{min-width:18em}
details summary{cursor:pointer;color:var(--accent)}
article.dlg{border:1px solid var(--line);border-radius:8px;margin:10px 0;padding:8px 12px}
article.dlg>details>summary{font-weight:600}
.seed{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;font-size:.9em;margin:6px 0}
.seed dt{color:var(--muted)}
.seed dd{margin:0;overflow-wrap:anywhere}
ol.turns{list-style:none;margin:8px 0;padding:0}
ol.turns li{margin:6px 0;padding:4px 8px;border-left:3px solid var(--line)}
ol.turns .who{font-weight:600}
ol.turns .act{font-style:italic;color:var(--muted)}
ol.turns .txt{overflow-wrap:anywhere}
ol.turns li.narr{font-style:italic;color:var(--muted);border-left-color:transparent}
.chip{display:inline-block;font-size:.78em;padding:0 6px;margin:2px 4px 0 0;border-radius:9px;border:1px solid var(--line);background:var(--soft)}
.chip.k-good{background:#e6f4ea;border-color:#2e7d32;color:#1b5e20}
.chip.k-bad{background:#fdecea;border-color:#c62828;color:#8e1c1c}
.chip.k-warn{background:#fff4e5;border-color:#b26a00;color:#7a4a00}
.chip.k-fix{background:#e8f0fe;border-color:#1a56b8;color:#123d85}
.chip.flag{background:#fff;border:1px dashed var(--bad);color:var(--bad);font-weight:600}
li.k-bad{border-left-color:#c62828}li.k-good{border-left-color:#2e7d32}li.k-warn{border-left-color:#b26a00}li.k-fix{border-left-color:#1a56b8}
.human{font-size:.78em;color:var(--muted)}
blockquote{margin:2px 0 6px;padding:2px 10px;border-left:3px solid var(--line);white-space:pre-wrap;overflow-wrap:anywhere}
</style>
</head>
<body>
<main>
<header>
<h1>ngstats report</h1>
<p class="muted">{{num .R.Records}} records · {{num .R.Dialogues}} dialogues · {{num .R.Turns}} turns · report format {{.R.Version}}</p>
<nav aria-label="Sections"><a href="#totals">Totals</a><a href="#counts">Counts</a>{{if $.Dialogues}}<a href="#distributions">Distributions</a><a href="#language">Language</a>{{end}}<a href="#defects">Defects</a>{{if .R.Labels}}<a href="#labels">Labels</a>{{end}}{{if or .Eval.Pact .Eval.PactRun}}<a href="#pact">PACT</a>{{end}}{{if .R.Sim}}<a href="#simulation">Simulation</a>{{end}}{{if .Eval.Models}}<a href="#models">Models</a>{{end}}{{if .Eval.ByPersona}}<a href="#by-persona">By persona</a>{{end}}{{if .Browse}}<a href="#dialogues">Dialogues</a>{{end}}{{if .R.FailOn}}<a href="#fail-on">Fail-on</a>{{end}}</nav>
</header>
{{- if .R.FailOn}}

<section id="fail-on">
<h2>Fail-on thresholds</h2>
<p class="banner">{{if .Failed}}<span class="bad">FAIL</span>: {{.Failed}} of {{len .R.FailOn}} thresholds exceeded{{else}}<span class="ok">PASS</span>: no threshold exceeded{{end}}</p>
<div class="scroll"><table>
<thead><tr><th>defect</th><th class="n">max rate</th><th class="n">rate</th><th>result</th></tr></thead>
<tbody>{{range .R.FailOn}}
<tr><td>{{.Defect}}</td><td class="n">{{pct .Max}}</td><td class="n">{{pct .Rate}}</td><td>{{if .Exceeded}}<span class="bad">exceeded</span>{{else}}<span class="ok">ok</span>{{end}}</td></tr>{{end}}
</tbody></table></div>
</section>
{{- end}}

<section id="totals">
<h2>Totals</h2>
{{with demo .R}}<p class="banner"><span class="bad">{{.}}</span></p>{{end}}
<div class="cards">
<div class="card"><b>{{num .R.Records}}</b><span>records</span></div>
<div class="card"><b>{{num .R.Dialogues}}</b><span>dialogues (with turns)</span></div>
{{- if .R.Dialogues}}
<div class="card"><b>{{num .R.Turns}}</b><span>turns</span></div>
<div class="card"><b>{{dec .R.TurnsPerDialogue.Mean}}</b><span>turns per dialogue (mean)</span></div>
<div class="card"><b>{{dec .R.SpeakersPerDialogue.Mean}}</b><span>speakers per dialogue (mean)</span></div>
<div class="card"><b>{{num .R.SameSpeaker.Pairs}}</b><span>same-speaker adjacent turns, in {{num .R.SameSpeaker.Dialogues}} dialogues</span></div>
{{- end}}
<div class="card"><b>{{num .R.RecordsWithDefects}}</b><span>records with a defect ({{share .R.RecordsWithDefects .R.Records}}), {{classes (len .R.Defects)}}</span></div>
</div>
</section>

<section id="counts">
<h2>Counts</h2>
{{- if not .R.Records}}
<p class="empty">No records.</p>
{{- else}}
<h3>Records by category</h3>
{{with .Categories}}{{template "hbar" .}}{{else}}<p class="empty">No categories.</p>{{end}}
<div class="cols">
{{- range .Counts}}
<div>
<h3>{{.Title}}</h3>
<div class="scroll"><table>
<thead><tr><th></th><th class="n">records</th><th class="n">share</th>{{if $.R.Dialogues}}<th class="n">dialogues</th><th class="n">turns</th>{{end}}</tr></thead>
<tbody>{{$total := .Total}}{{range .Rows}}
<tr><td>{{key .Key}}</td><td class="n">{{num .Records}}</td><td class="n">{{share .Records $total}}</td>{{if $.R.Dialogues}}<td class="n">{{num .Dialogues}}</td><td class="n">{{num .Turns}}</td>{{end}}</tr>{{end}}
</tbody></table></div>
</div>
{{- end}}
</div>
{{- with .CultType}}{{if .Rows}}
<h3>Records by culture and dialogue type</h3>
<div class="scroll"><table>
<thead><tr><th>culture</th>{{range .Cols}}<th class="n">{{key .}}</th>{{end}}<th class="n">total</th></tr></thead>
<tbody>{{range .Rows}}
<tr><td>{{key .Key}}</td>{{range .Cells}}<td class="n">{{or . "–"}}</td>{{end}}<td class="n">{{num .Total}}</td></tr>{{end}}
</tbody></table></div>
{{- end}}{{end}}
{{- end}}
</section>
{{- if .Dialogues}}
<section id="distributions">
<h2>Distributions</h2>
{{- if not .R.Records}}
<p class="empty">No records.</p>
{{- else}}
<div class="scroll"><table>
<thead><tr><th></th><th class="n">n</th><th class="n">mean</th><th class="n">median</th><th class="n">p95</th><th class="n">min</th><th class="n">max</th></tr></thead>
<tbody>{{range .Dists}}
<tr><td>{{.Name}}</td><td class="n">{{num .S.N}}</td><td class="n">{{dec .S.Mean}}</td><td class="n">{{dec .S.Median}}</td><td class="n">{{dec .S.P95}}</td><td class="n">{{num .S.Min}}</td><td class="n">{{num .S.Max}}</td></tr>{{end}}
</tbody></table></div>
{{- if .R.Lengths}}
<h3>Turns and lexical diversity by detected language</h3>
<div class="scroll"><table>
<thead><tr><th>language</th><th class="n">turns</th><th class="n">distinct-1</th><th class="n">distinct-2</th></tr></thead>
<tbody>{{range .R.Lengths}}
<tr><td>{{key .Lang}}</td><td class="n">{{num .Turns}}</td><td class="n">{{if .Approx}}≈{{end}}{{ratio .Distinct1}}</td><td class="n">{{if .Approx}}≈{{end}}{{ratio .Distinct2}}</td></tr>{{end}}
</tbody></table></div>
{{- end}}
<div class="hists">
{{- range .Hists}}
<div><h3>{{.Name}}</h3>
{{template "hist" .}}</div>
{{- end}}
</div>
{{- end}}
</section>

<section id="language">
<h2>Language consistency</h2>
{{- if not .R.Language}}
<p class="empty">No language check.</p>
{{- else}}
<div class="scroll"><table>
<thead><tr><th>culture</th><th>expected</th><th class="n">dialogues</th><th class="n">turns</th><th class="n">confident</th><th class="n">matching</th><th class="n">share</th><th class="n">dialogues below threshold</th></tr></thead>
<tbody>{{range .R.Language}}
<tr><td>{{key .Culture}}</td><td>{{key .Expected}}</td><td class="n">{{num .Records}}</td><td class="n">{{num .Turns}}</td><td class="n">{{num .Confident}}</td><td class="n">{{num .Matching}}</td><td class="n">{{pct .Share}}</td><td class="n">{{num .RecordsBelow}}</td></tr>{{end}}
</tbody></table></div>
{{- range .R.Language}}{{$c := .}}{{range .Mismatches}}{{$m := .}}
<details>
<summary>{{key $c.Culture}}: {{num .Turns}} turns detected as <b>{{key .Detected}}</b>{{if $c.Expected}} instead of {{$c.Expected}}{{end}}</summary>
{{- range .Examples}}
<p><code>{{.ID}}</code> turn {{.Turn}}</p>
<blockquote{{with $m.Detected}} lang="{{.}}"{{end}}>{{.Text}}</blockquote>
{{- end}}
</details>
{{- end}}{{end}}
{{- end}}
</section>
{{- end}}

<section id="defects">
<h2>Defects</h2>
{{- if not .R.Defects}}
<p class="empty">No defects found.</p>
{{- else}}
{{template "hbar" .Defects}}
<div class="scroll"><table>
<thead><tr><th>defect</th><th>kind</th><th class="n">records</th><th class="n">rate</th><th>meaning</th><th>ids</th></tr></thead>
<tbody>{{range .R.Defects}}
<tr><td>{{.Name}}</td><td>{{.Kind}}</td><td class="n">{{num .Count}}</td><td class="n">{{pct .Rate}}</td><td class="help">{{.Help}}</td><td class="ids">
{{- if many .IDs}}<details><summary>{{len .IDs}} ids{{if .More}} (and {{num .More}} more not listed){{end}}</summary>{{template "ids" .IDs}}</details>
{{- else}}{{template "ids" .IDs}}{{if .More}}<span class="muted">and {{num .More}} more</span>{{end}}{{end}}</td></tr>{{end}}
</tbody></table></div>
{{- end}}
</section>
{{- with .R.Labels}}

<section id="labels">
<h2>Labels</h2>
{{- range $.Labels}}
<h3>{{.Task}}</h3>
{{with .Chart}}{{template "stack" .}}{{end}}
<div class="scroll"><table>
<thead><tr><th>group</th><th class="n">turns</th>{{range .Labels}}<th class="n"><span class="sw {{.Class}}"></span>{{.Label}}</th>{{end}}</tr></thead>
<tbody>{{range .Rows}}
<tr><td>{{.Group}}</td><td class="n">{{num .Turns}}</td>{{range .Cells}}<td class="n">{{.}}</td>{{end}}</tr>{{end}}
</tbody></table></div>
{{- end}}
{{- if .Quality}}
<h3>Dialogue quality (mean, 1–5)</h3>
<div class="scroll"><table>
<thead><tr><th>group</th><th class="n">dialogues</th><th class="n">consistency</th><th class="n">naturalness</th><th class="n">relevance</th><th class="n">coherence</th><th class="n">emotion</th><th class="n">norm</th><th class="n">fit</th></tr></thead>
<tbody>{{range .Quality}}
<tr><td>{{.Group}}</td><td class="n">{{num .N}}</td><td class="n">{{dec .Consistency}}</td><td class="n">{{dec .Naturalness}}</td><td class="n">{{dec .Relevance}}</td><td class="n">{{dec .Coherence}}</td><td class="n">{{dec .Emotion}}</td><td class="n">{{dec .Norm}}</td><td class="n">{{if .Fit}}{{dec .Fit}}{{else}}-{{end}}</td></tr>{{end}}
</tbody></table></div>
{{- end}}
{{- if .Agreement}}
<h3>Label agreement (turns labelled several times)</h3>
<div class="scroll"><table>
<thead><tr><th>task</th><th class="n">turns</th><th class="n">samples</th><th class="n">agreement</th><th class="n">entropy (bits)</th><th class="n">Fleiss' kappa</th></tr></thead>
<tbody>{{range .Agreement}}
<tr><td>{{.Task}}</td><td class="n">{{num .Turns}}</td><td class="n">{{dec .Samples}}</td><td class="n">{{ratio .Agreement}}</td><td class="n">{{ratio .Entropy}}</td><td class="n">{{with .Kappa}}{{ratio .}}{{else}}-{{end}}</td></tr>{{end}}
</tbody></table></div>
{{- end}}
{{- if .Pairwise}}
<h3>Pairwise judgements (records against the baseline)</h3>
<div class="scroll"><table>
<thead><tr><th>criterion</th><th>group</th><th class="n">pairs</th><th class="n">win</th><th class="n">tie</th><th class="n">loss</th><th class="n">win rate</th><th class="n">95% CI</th></tr></thead>
<tbody>{{range .Pairwise}}
<tr><td>{{.Criterion}}</td><td>{{key .Group}}</td><td class="n">{{num .N}}</td><td class="n">{{num .Win}}</td><td class="n">{{num .Tie}}</td><td class="n">{{num .Loss}}</td><td class="n">{{pct .WinRate}}</td><td class="n">{{pct .Low}} – {{pct .High}}</td></tr>{{end}}
</tbody></table></div>
{{- end}}
</section>
{{- end}}
{{- template "eval" .}}
{{- with .Browse}}

<section id="dialogues">
<h2>Dialogues</h2>
<p class="muted">The first dialogues of each culture and dialogue type ({{len .Examples}} in all){{if .ShowDefect}}, and every record with the defect <code>{{.ShowDefect}}</code>{{end}}. Labels are written out; colours only repeat them (green adhered / resolution, red violated / violation, amber recognition, blue repair). A V2R turn's <i>writer's stage</i> is the one ngv2r wrote it for, its <i>labeller's stage</i> the one nglabel gave it; <i>stages disagree</i> marks a turn where they differ. Narration stands where it was in the dialogue.</p>
{{- if .ShowDefect}}
<h3>Records with {{.ShowDefect}} ({{len .Shown}}{{if .ShownMore}}, and {{num .ShownMore}} more not kept{{end}})</h3>
{{- range .Shown}}{{template "dlg" .}}{{else}}<p class="empty">No record has this defect.</p>{{end}}
{{- end}}
{{- $g := ""}}{{range .Examples}}{{if ne .Group $g}}{{$g = .Group}}
<h3>{{.Group}}</h3>{{end}}
{{template "dlg" .}}
{{- else}}<p class="empty">No dialogues.</p>{{end}}
</section>
{{- end}}
</main>
</body>
</html>
{{define "dlg"}}<article class="dlg" id="d-{{.ID}}"{{with .Lang}} lang="{{.}}"{{end}}><details open>
<summary><code>{{.ID}}</code> · {{key .Group}}{{with .Category}} · {{.}}{{end}}{{with .Defects}} · <span class="bad">{{len .}} defects</span>{{end}}</summary>
<dl class="seed">
{{- with .Norm}}<dt>norm</dt><dd>{{.}}</dd>{{end}}
{{- with .Scenario}}<dt>scenario</dt><dd>{{.}}</dd>{{end}}
{{- with .Situation}}<dt>situation</dt><dd>{{.}}</dd>{{end}}
{{- with .Seed}}<dt>seed scores</dt><dd>{{range .}}<span class="chip">{{.Name}} {{.Value}}</span>{{end}}</dd>{{end}}
{{- with .Quality}}<dt>quality (1–5)</dt><dd>{{range .}}<span class="chip">{{.Name}} {{.Value}}</span>{{end}}</dd>{{end}}
{{- with .Review}}<dt>review</dt><dd>{{.}}</dd>{{end}}
{{- with .Defects}}<dt>defects</dt><dd>{{range .}}<code>{{.}}</code> {{end}}</dd>{{end}}
</dl>
<ol class="turns">
{{- range .Turns}}
{{- range .Before}}
<li class="narr">({{.}})</li>{{end}}
<li{{with .StageClass}} class="{{.}}"{{end}}><span class="who">{{.Speaker}}</span>{{with .Action}} <span class="act">({{.}})</span>{{end}}: <span class="txt">{{.Text}}</span>
{{- if or .Stage .Labels}}<br>{{if .Stage}}<span class="chip {{.StageClass}}">writer's stage: {{.Stage}}</span>{{end}}{{range .Labels}}<span class="chip {{.Class}}">{{.Task}}: {{.Value}}</span>{{end}}{{if .Disagree}}<span class="chip flag">stages disagree</span>{{end}}{{end}}
{{- with .Human}}<br><span class="human">reviewers:</span> {{range .}}<span class="chip {{.Class}}">{{.Task}}: {{.Value}}</span>{{end}}{{end}}</li>
{{- end}}
{{- range .Closing}}
<li class="narr">({{.}})</li>{{end}}
</ol>
</details></article>{{end}}
{{define "ids"}}<ul class="ids">{{range .}}<li><code>{{.}}</code></li>{{end}}</ul>{{end}}
{{- define "hbar"}}<svg class="chart hbar" role="img" aria-label="{{.Label}}" viewBox="0 0 {{.W}} {{.H}}">
<title>{{.Label}}</title>
{{- range .Rows}}
<g><title>{{.Title}}</title><text x="{{$.LabelX}}" y="{{.TextY}}" text-anchor="end">{{.Label}}</text><rect class="bar" x="{{$.BarX}}" y="{{.Y}}" width="{{.W}}" height="16" rx="2"/><text class="val" x="{{.ValueX}}" y="{{.TextY}}">{{.Value}}</text></g>
{{- end}}
</svg>{{end}}
{{- define "hist"}}<svg class="chart hist" role="img" aria-label="{{.Label}}" viewBox="0 0 {{.W}} {{.H}}">
<title>{{.Label}}</title>
{{- range .Bars}}
<g><title>{{.Title}}</title><rect class="bar" x="{{.X}}" y="{{.Y}}" width="{{.W}}" height="{{.H}}"/></g>
{{- end}}
<line class="axis" x1="{{.X0}}" y1="{{.Y1}}" x2="{{.X1}}" y2="{{.Y1}}"/>
<line class="axis" x1="{{.X0}}" y1="{{.Y0}}" x2="{{.X0}}" y2="{{.Y1}}"/>
<text x="{{.X0}}" dx="-6" y="{{.Y0}}" dy="4" text-anchor="end">{{.YMax}}</text>
<text x="{{.X0}}" dx="-6" y="{{.Y1}}" text-anchor="end">0</text>
{{- range .Ticks}}
<text x="{{.X}}" y="{{$.Y1}}" dy="16" text-anchor="middle">{{.Text}}</text>
{{- end}}
<text x="{{.XTitleX}}" y="{{.XTitleY}}" text-anchor="middle">{{.XTitle}}</text>
<text x="{{.YTitleX}}" y="{{.YMidY}}" text-anchor="middle" transform="rotate(-90 {{.YTitleX}} {{.YMidY}})">{{.YTitle}}</text>
</svg>{{end}}
{{- define "stack"}}<svg class="chart stack" role="img" aria-label="{{.Label}}" viewBox="0 0 {{.W}} {{.H}}">
<title>{{.Label}}</title>
{{- range .Rows}}
<g><title>{{.Title}}</title><text x="{{$.LabelX}}" y="{{.TextY}}" text-anchor="end">{{.Label}}</text>
{{- $y := .Y}}{{range .Segs}}<rect class="{{.Class}}" x="{{.X}}" y="{{$y}}" width="{{.W}}" height="16"><title>{{.Title}}</title></rect>{{end}}
<text class="val" x="{{.ValueX}}" y="{{.TextY}}">{{.Value}}</text></g>
{{- end}}
</svg>{{end}}
`
