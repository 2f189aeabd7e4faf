package render

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/mattn/go-runewidth"
	"github.com/ngkit/ngkit/filters/stats"
	"github.com/ngkit/ngkit/pkg/record"
)

// WriteJSON writes the report as indented JSON with stable keys.
func WriteJSON(w io.Writer, r *stats.Report) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// num formats an integer with thousands separators.
func num(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// dec formats a mean or quantile: integers bare, others with one decimal.
func dec(f float64) string {
	if math.IsNaN(f) {
		return "-"
	}
	if f == math.Trunc(f) {
		return num(int64(f))
	}
	return strconv.FormatFloat(f, 'f', 1, 64)
}

func pct(f float64) string {
	switch {
	case f == 0:
		return "0%"
	case f < 0.001:
		return strconv.FormatFloat(100*f, 'f', 3, 64) + "%"
	}
	return strconv.FormatFloat(100*f, 'f', 2, 64) + "%"
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// table is the shape shared by the text and Markdown renderers: a title, a
// header and rows of cells, and optional notes printed after it.
type table struct {
	title  string
	header []string
	rows   [][]string
	notes  []string
}

// demoNote says that the data is a demo, when the demo model made any.
func demoNote(r *stats.Report) []string {
	if s := DemoText(r); s != "" {
		return []string{s}
	}
	return nil
}

// DemoText is the sentence that says how many records the built-in demo
// model made ("" when none): the report and the card show it first.
func DemoText(r *stats.Report) string {
	if r.DemoRecords == 0 {
		return ""
	}
	return fmt.Sprintf("DEMO DATA: %s of %s records were made by the built-in demo model (--model demo), which answers with canned text of the NormGenesis release: not a dataset.",
		num(r.DemoRecords), num(r.Records))
}

// tables lays the report out as tables, in report order.
func tables(r *stats.Report, ids int) []table {
	var ts []table
	ts = append(ts, countTables(r)...)
	ts = append(ts, dialogueTables(r)...)
	ts = append(ts, defectTables(r, ids)...)
	ts = append(ts, labelTables(r)...)
	ts = append(ts, evalTables(r)...)
	ts = append(ts, modelTables(r)...)
	ts = append(ts, reviewTables(r.Review)...)
	if t, ok := failOnTable(r); ok {
		ts = append(ts, t)
	}
	return ts
}

// countTables: the totals, and the counts by culture, type and category.
func countTables(r *stats.Report) []table {
	var ts []table
	ts = append(ts, table{title: "Totals", header: []string{"records", "dialogues", "turns"},
		rows: [][]string{{num(r.Records), num(r.Dialogues), num(r.Turns)}}, notes: demoNote(r)})
	for _, g := range []struct {
		name string
		cs   []stats.Count
	}{{"culture", r.Counts.ByCulture}, {"dialogue type", r.Counts.ByType}, {"category", r.Counts.ByCategory}} {
		if !informative(g.cs) {
			continue
		}
		t := table{title: "By " + g.name, header: []string{g.name, "records", "dialogues", "turns"}}
		for _, c := range g.cs {
			t.rows = append(t.rows, []string{orNone(c.Key), num(c.Records), num(c.Dialogues), num(c.Turns)})
		}
		if r.Dialogues == 0 { // no column of zeros
			t.header = t.header[:2]
			for i := range t.rows {
				t.rows[i] = t.rows[i][:2]
			}
		}
		ts = append(ts, t)
	}
	if informative(r.Counts.ByType) {
		ts = append(ts, crossTable(r.Counts.ByCultureType))
	}
	return ts
}

// dialogueTables: turns and speakers per dialogue, turn lengths, language
// consistency.
func dialogueTables(r *stats.Report) []table {
	var ts []table
	dist := table{title: "Dialogues", header: []string{"per dialogue", "n", "mean", "median", "p95", "min", "max"}}
	for _, s := range []struct {
		name string
		s    stats.Summary
	}{{"turns", r.TurnsPerDialogue}, {"speakers", r.SpeakersPerDialogue}} {
		dist.rows = append(dist.rows, summaryRow(s.name, s.s))
	}
	dist.notes = append(dist.notes, fmt.Sprintf("adjacent turns by the same speaker: %s pairs in %s dialogues",
		num(r.SameSpeaker.Pairs), num(r.SameSpeaker.Dialogues)))
	// A file of PACT items or seeds holds no dialogue: its report leaves
	// out the dialogue tables rather than fill them with zeros.
	if r.Dialogues > 0 {
		ts = append(ts, dist)
	}

	lens := table{title: "Turn lengths (per turn, by detected language; CJK counted in characters)",
		header: []string{"lang", "turns", "measure", "mean", "median", "p95", "max", "distinct-1", "distinct-2"}}
	for _, l := range r.Lengths {
		approx := ""
		if l.Approx {
			approx = "~"
		}
		lens.rows = append(lens.rows,
			[]string{l.Lang, num(l.Turns), "chars", dec(l.Chars.Mean), dec(l.Chars.Median), dec(l.Chars.P95), num(l.Chars.Max),
				approx + strconv.FormatFloat(l.Distinct1, 'f', 3, 64), approx + strconv.FormatFloat(l.Distinct2, 'f', 3, 64)},
			[]string{"", "", "tokens", dec(l.Tokens.Mean), dec(l.Tokens.Median), dec(l.Tokens.P95), num(l.Tokens.Max), "", ""})
	}
	if len(lens.rows) > 0 {
		ts = append(ts, lens)
	}

	lc := table{title: "Language consistency (share of confidently detected turns in the expected language)",
		header: []string{"culture", "expected", "dialogues", "turns", "confident", "matching", "share", "dialogues below"}}
	for _, c := range r.Language {
		lc.rows = append(lc.rows, []string{orNone(c.Culture), c.Expected, num(c.Records), num(c.Turns), num(c.Confident),
			num(c.Matching), pct(c.Share), num(c.RecordsBelow)})
		for _, m := range c.Mismatches {
			lc.notes = append(lc.notes, fmt.Sprintf("%s: %s detected as %s", orNone(c.Culture), plural(m.Turns, "turn"), m.Detected))
			for _, e := range m.Examples {
				lc.notes = append(lc.notes, fmt.Sprintf("    %s turn %d: %s", e.ID, e.Turn, strconv.Quote(e.Text)))
			}
		}
	}
	if len(lc.rows) > 0 {
		ts = append(ts, lc)
	}
	return ts
}

// defectTables: the defects, and the near-duplicate clusters.
func defectTables(r *stats.Report, ids int) []table {
	var ts []table
	df := table{title: "Defects (records with each defect, and the first ids)", header: []string{"defect", "kind", "records", "rate", "ids"}}
	for _, d := range r.Defects {
		df.rows = append(df.rows, []string{d.Name, d.Kind, num(d.Count), pct(d.Rate), idList(d, ids)})
	}
	if len(r.Defects) == 0 {
		df.notes = append(df.notes, "no defects found")
	}
	ts = append(ts, df)
	if t, ok := nearDupTable(r.NearDuplicates, ids); ok {
		ts = append(ts, t)
	}
	return ts
}

// labelTables: the label distributions, dialogue quality, and the label
// figures of labelExtraTables.
func labelTables(r *stats.Report) []table {
	if r.Labels == nil {
		return nil
	}
	var ts []table
	for _, task := range record.LabelTaskNames() {
		t := table{title: "Labels: " + task, header: []string{"group", "turns", "distribution"}}
		for _, d := range r.Labels.Dist {
			if d.Task == task {
				t.rows = append(t.rows, []string{d.Group, num(d.Turns), distString(d)})
			}
		}
		if len(t.rows) > 0 {
			ts = append(ts, t)
		}
	}
	if len(r.Labels.Quality) > 0 {
		t := table{title: "Dialogue quality (mean 1-5)", header: []string{"group", "n", "consistency", "naturalness", "relevance", "coherence", "emotion", "norm"}}
		fit := slices.ContainsFunc(r.Labels.Quality, func(q stats.QualityMeans) bool { return q.Fit > 0 })
		if fit {
			t.header = append(t.header, "fit")
		}
		for _, q := range r.Labels.Quality {
			row := []string{q.Group, num(q.N)}
			vs := []float64{q.Consistency, q.Naturalness, q.Relevance, q.Coherence, q.Emotion, q.Norm}
			if fit {
				vs = append(vs, q.Fit)
			}
			for _, v := range vs {
				row = append(row, strconv.FormatFloat(v, 'f', 2, 64))
			}
			t.rows = append(t.rows, row)
		}
		ts = append(ts, t)
	}
	ts = append(ts, labelExtraTables(r.Labels)...)
	return ts
}

// failOnTable: the --fail-on thresholds and whether each was exceeded.
func failOnTable(r *stats.Report) (table, bool) {
	if len(r.FailOn) == 0 {
		return table{}, false
	}
	t := table{title: "Fail-on thresholds", header: []string{"defect", "rate", "max", "result"}}
	for _, f := range r.FailOn {
		res := "ok"
		if f.Exceeded {
			res = "EXCEEDED"
		}
		t.rows = append(t.rows, []string{f.Defect, pct(f.Rate), pct(f.Max), res})
	}
	return t, true
}

// labelExtraTables lays out intent by V2R stage, agreement between
// samples and pairwise win rates, when there are any.
func labelExtraTables(l *stats.Labels) []table {
	var ts []table
	if len(l.IntentByStage) > 0 {
		t := table{title: "Intent by V2R stage", header: []string{"stage", "turns", "distribution"}}
		for _, d := range l.IntentByStage {
			t.rows = append(t.rows, []string{d.Group, num(d.Turns), distString(d)})
		}
		ts = append(ts, t)
	}
	if len(l.Agreement) > 0 {
		t := table{title: "Label agreement (turns labelled several times)", header: []string{"task", "turns", "samples", "agreement", "entropy (bits)", "Fleiss' kappa"}}
		for _, a := range l.Agreement {
			kappa := "-"
			if a.Kappa != nil {
				kappa = strconv.FormatFloat(*a.Kappa, 'f', 3, 64)
			}
			t.rows = append(t.rows, []string{a.Task, num(a.Turns), strconv.FormatFloat(a.Samples, 'f', 1, 64),
				strconv.FormatFloat(a.Agreement, 'f', 3, 64), strconv.FormatFloat(a.Entropy, 'f', 3, 64), kappa})
		}
		t.notes = append(t.notes, "agreement: mean share of the majority label; kappa: - when every vote went to one label")
		ts = append(ts, t)
	}
	if len(l.OneClass) > 0 {
		t := table{title: "One-class labellings (every turn of a dialogue one label)", header: []string{"model", "task", "dialogues", "one class", "share", "labels"}}
		for _, o := range l.OneClass {
			var ls []string
			for _, k := range sortedKeys(o.Labels) {
				ls = append(ls, fmt.Sprintf("%s %d", k, o.Labels[k]))
			}
			t.rows = append(t.rows, []string{o.Model, o.Task, num(o.Dialogues), num(o.OneClass), pct(o.Share), orNone(strings.Join(ls, ", "))})
		}
		t.notes = append(t.notes, OneClassWarnings(l)...)
		t.notes = append(t.notes, fmt.Sprintf("dialogues of at least %d labelled turns", stats.MinOneClassTurns))
		ts = append(ts, t)
	}
	if len(l.Pairwise) > 0 {
		t := table{title: "Pairwise judgements (records against the baseline)", header: []string{"criterion", "group", "pairs", "win", "tie", "loss", "win rate", "95% CI"}}
		for _, p := range l.Pairwise {
			t.rows = append(t.rows, []string{p.Criterion, orNone(p.Group), num(p.N), num(p.Win), num(p.Tie), num(p.Loss),
				pct(p.WinRate), pct(p.Low) + " - " + pct(p.High)})
		}
		t.notes = append(t.notes, "win rate: wins / pairs; 95% Wilson interval")
		ts = append(ts, t)
	}
	return ts
}

func plural(n int64, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return num(n) + " " + word + "s"
}

func summaryRow(name string, s stats.Summary) []string {
	return []string{name, num(s.N), dec(s.Mean), dec(s.Median), dec(s.P95), num(s.Min), num(s.Max)}
}

// informative: the counts split the records by a value some record has;
// a file of PACT results or episodes has no dialogue type or category,
// and a table of one "(none)" row says nothing.
func informative(cs []stats.Count) bool {
	return !(len(cs) == 1 && cs[0].Key == "")
}

// crossTable lays culture/type counts out as a matrix of records.
func crossTable(cs []stats.Count) table {
	var cultures, types []string
	cell := map[string]int64{}
	for _, c := range cs {
		cu, ty, _ := strings.Cut(c.Key, "/")
		if !slices.Contains(cultures, cu) {
			cultures = append(cultures, cu)
		}
		if !slices.Contains(types, ty) {
			types = append(types, ty)
		}
		cell[c.Key] = c.Records
	}
	slices.Sort(types)
	t := table{title: "Records by culture and dialogue type", header: []string{"culture"}}
	for _, ty := range types {
		t.header = append(t.header, orNone(ty))
	}
	for _, cu := range cultures {
		row := []string{orNone(cu)}
		for _, ty := range types {
			row = append(row, num(cell[cu+"/"+ty]))
		}
		t.rows = append(t.rows, row)
	}
	return t
}

// reviewTables show human-vs-model agreement and the reviewers' verdicts.
func reviewTables(rv *stats.Review) []table {
	if rv == nil {
		return nil
	}
	var ts []table
	if len(rv.Agreement) > 0 {
		t := table{title: "Human review: model labels against reviewers' (turns with both)", header: []string{"task", "group", "turns", "accuracy", "Cohen's kappa"}}
		for _, a := range rv.Agreement {
			k := "n/a"
			if a.Kappa != nil {
				k = strconv.FormatFloat(*a.Kappa, 'f', 3, 64)
			}
			t.rows = append(t.rows, []string{a.Task, a.Group, num(a.Turns), pct(a.Accuracy), k})
			if a.Group != "all" {
				continue
			}
			t.notes = append(t.notes, fmt.Sprintf("%s confusion (rows: model, columns: reviewers; %s):", a.Task, strings.Join(a.Labels, ", ")))
			for i, row := range a.Confusion {
				cells := make([]string, len(row))
				for j, c := range row {
					cells[j] = strconv.FormatInt(c, 10)
				}
				t.notes = append(t.notes, fmt.Sprintf("    %-14s %s", a.Labels[i], strings.Join(cells, " ")))
			}
		}
		ts = append(ts, t)
	}
	if len(rv.Verdicts) > 0 {
		t := table{title: "Human review: verdicts", header: []string{"group", "reviewed", "rejected", "share"}}
		for _, v := range rv.Verdicts {
			t.rows = append(t.rows, []string{v.Group, num(v.Reviewed), num(v.Rejected), pct(v.Share)})
		}
		ts = append(ts, t)
	}
	return ts
}

// nearDupTable lists the near-duplicate clusters, at most n of each kind
// (0: all) with at most n members each.
func nearDupTable(nd *stats.NearDuplicates, n int) (table, bool) {
	if nd == nil || nd.Dialogues.Clusters+nd.Scenarios.Clusters == 0 {
		return table{}, false
	}
	t := table{title: fmt.Sprintf("Near-duplicate clusters (similarity >= %.2f; ngcat --dedup near keeps each cluster's first record)", nd.Threshold),
		header: []string{"kind", "cluster (first record)", "records", "others (similarity)"}}
	for _, k := range []struct {
		name string
		k    stats.NearDupKind
	}{{"dialogue", nd.Dialogues}, {"scenario", nd.Scenarios}} {
		for i, c := range k.k.List {
			if n > 0 && i >= n {
				t.notes = append(t.notes, fmt.Sprintf("%s: %d more clusters", k.name, k.k.Clusters-int64(i)))
				break
			}
			var ms []string
			for j, m := range c.Members {
				if n > 0 && j >= n {
					break
				}
				ms = append(ms, fmt.Sprintf("%s (%.2f)", m.ID, m.Similarity))
			}
			if more := c.Size - 1 - int64(len(ms)); more > 0 {
				ms = append(ms, fmt.Sprintf("+%d", more))
			}
			t.rows = append(t.rows, []string{k.name, c.ID, num(c.Size), strings.Join(ms, ", ")})
		}
	}
	t.notes = append(t.notes, nd.Shingles)
	return t, true
}

func idList(d stats.Defect, n int) string {
	ids := d.IDs
	more := d.More
	if n > 0 && len(ids) > n {
		more += int64(len(ids) - n)
		ids = ids[:n]
	}
	s := strings.Join(ids, " ")
	if more > 0 {
		s += fmt.Sprintf(" (+%s more)", num(more))
	}
	return s
}

func distString(d stats.LabelDist) string {
	keys := make([]string, 0, len(d.Counts))
	for k := range d.Counts {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if d.Counts[a] != d.Counts[b] {
			return int(d.Counts[b] - d.Counts[a])
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %s", k, pct(float64(d.Counts[k])/float64(max(d.Turns, 1))))
	}
	return strings.Join(parts, ", ")
}

// WriteText writes the report as aligned plain text; each defect lists at
// most ids ids (0: all the report holds).
func WriteText(w io.Writer, r *stats.Report, ids int) error {
	bw := bufio.NewWriter(w)
	for i, t := range allTables(r, ids) {
		if i > 0 {
			bw.WriteString("\n")
		}
		bw.WriteString(record.PrintableLine(t.title) + "\n")
		if len(t.rows) > 0 {
			writeAligned(bw, append([][]string{t.header}, t.rows...))
		}
		for _, n := range t.notes {
			bw.WriteString("  " + record.PrintableLine(n) + "\n")
		}
	}
	return bw.Flush()
}

// writeAligned pads the cells into columns (by display width, so CJK
// names line up): numeric columns to the right, text to the left.
func writeAligned(w *bufio.Writer, rows [][]string) {
	// Cells quote record values (ids, cultures, speakers): no control
	// character reaches the terminal.
	esc := make([][]string, len(rows))
	for i, row := range rows {
		esc[i] = make([]string, len(row))
		for j, c := range row {
			esc[i][j] = record.PrintableLine(c)
		}
	}
	rows = esc
	var width []int
	for _, row := range rows {
		for i, c := range row {
			if i >= len(width) {
				width = append(width, 0)
			}
			width[i] = max(width[i], runewidth.StringWidth(c))
		}
	}
	numeric := make([]bool, len(width))
	for i := range numeric {
		numeric[i] = numericColumn(rows[1:], i)
	}
	for _, row := range rows {
		var line strings.Builder
		for i, c := range row {
			pad := strings.Repeat(" ", width[i]-runewidth.StringWidth(c))
			if i > 0 {
				line.WriteString("  ")
			}
			if numeric[i] {
				line.WriteString(pad + c)
			} else {
				line.WriteString(c + pad)
			}
		}
		w.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
}

// numericColumn: every non-empty cell of column i is a number.
func numericColumn(rows [][]string, i int) bool {
	for _, row := range rows {
		if i < len(row) && row[i] != "" && !isNumeric(row[i]) {
			return false
		}
	}
	return true
}

// isNumeric: the cell is "-" (undefined) or starts with a number ("12",
// "1,234", "≈0.118", "64.0% [54.9, 73.1]", "4 (66.67%)", "-0.5"). Its
// first word must be all number: a record id that starts with a digit
// ("53af16ba558327dd") is text, so an id column stays left-aligned.
func isNumeric(s string) bool {
	if s == "-" {
		return true
	}
	s = strings.TrimLeft(s, "~≈+-−")
	word, _, _ := strings.Cut(s, " ")
	word = strings.TrimSuffix(word, "%")
	if word == "" || word[0] < '0' || word[0] > '9' {
		return false
	}
	for _, c := range word {
		if (c < '0' || c > '9') && c != '.' && c != ',' {
			return false
		}
	}
	return true
}

// WriteMarkdown writes the report as GitHub-flavoured Markdown tables,
// headed at level (2: "##").
func WriteMarkdown(w io.Writer, r *stats.Report, ids, level int) error {
	h := strings.Repeat("#", level)
	for _, t := range allTables(r, ids) {
		fmt.Fprintf(w, "%s %s\n\n", h, mdEscape(t.title))
		if len(t.rows) > 0 {
			head := make([]string, len(t.header))
			for i, c := range t.header {
				head[i] = mdEscape(c) // the culture x type header names record values
			}
			fmt.Fprintf(w, "| %s |\n|", strings.Join(head, " | "))
			for i := range t.header {
				if numericColumn(t.rows, i) {
					fmt.Fprint(w, " ---: |")
				} else {
					fmt.Fprint(w, " --- |")
				}
			}
			fmt.Fprintln(w)
			for _, row := range t.rows {
				cells := make([]string, len(row))
				for i, c := range row {
					cells[i] = mdEscape(c)
				}
				fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
			}
			fmt.Fprintln(w)
		}
		for _, n := range t.notes {
			fmt.Fprintf(w, "- %s\n", mdEscape(strings.TrimSpace(n)))
		}
		if len(t.notes) > 0 {
			fmt.Fprintln(w)
		}
	}
	return nil
}

// mdEscape is the one Markdown cell escaper (record.MarkdownCell).
func mdEscape(s string) string { return record.MarkdownCell(s) }
