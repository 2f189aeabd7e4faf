// Command yieldtable writes the yield table of a scripts/realmodels.sh run
// into docs/status.md, between <!-- yield:begin --> and <!-- yield:end -->:
// per step (model, stage, culture) the records in, out and failed, the
// failures by reason, retries and re-asks, tokens and seconds per output
// record, the language check's pass rate and ngstats' defects per 100
// dialogues of what was written, ngpact's share of items with a usable
// distribution, and ngkit's own CPU time against the step's wall time.
// It reads only the run's files: steps.tsv, NAME.jsonl, NAME-errors.jsonl,
// NAME.usage.json, NAME.time and NAME.stats.json.
//
//	go run ./scripts/yieldtable -dir OUT -status docs/status.md
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

const begin, end = "<!-- yield:begin -->", "<!-- yield:end -->"

func main() {
	dir := flag.String("dir", "", "the run's folder (REALMODELS_OUT)")
	status := flag.String("status", "docs/status.md", "the file to write the table into, between the markers")
	note := flag.String("note", "", "a line said above the table (date, machine)")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "usage: yieldtable -dir OUT [-status docs/status.md] [-note TEXT]")
		os.Exit(2)
	}
	steps, err := readSteps(*dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "yieldtable:", err)
		os.Exit(1)
	}
	table := render(steps, *note)
	if err := splice(*status, table); err != nil {
		fmt.Fprintln(os.Stderr, "yieldtable:", err)
		os.Exit(1)
	}
}

// Step is one row: what a step read, wrote and failed, from its files.
type Step struct {
	Name, Model, Stage, Culture, Input string
	In                                 int // -1: no input records (ngseed reads the built-in norms)
	Out, Failed                        int
	Reasons                            map[string]int
	Retries, Reasks                    int
	TokensIn, TokensOut                int
	Wall, CPU, ModelSeconds            float64
	Lang                               *ratio // records passing the language check, of those checked
	Dialogues, Defects                 int
	Added                              int // defects not in the input (NAME.in.stats.json), or all
	HasStats, HasUsage                 bool
	PactItems, PactUsable              int
	Panel                              []string // the panel's agreement, a sentence per task
}

type ratio struct{ ok, of int }

func readSteps(dir string) ([]Step, error) {
	f, err := os.Open(filepath.Join(dir, "steps.tsv"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var steps []Step
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		c := strings.Split(sc.Text(), "\t")
		if len(c) < 5 {
			continue
		}
		s, err := readStep(dir, c[0], c[1], c[2], c[3], c[4])
		if err != nil {
			return nil, fmt.Errorf("step %s: %v", c[0], err)
		}
		steps = append(steps, s)
	}
	return steps, sc.Err()
}

func readStep(dir, name, model, stage, culture, input string) (Step, error) {
	s := Step{Name: name, Model: model, Stage: stage, Culture: culture, Input: input, In: -1, Reasons: map[string]int{}}
	p := func(ext string) string { return filepath.Join(dir, name+ext) }
	if input != "-" {
		n, err := countLines(input)
		if err != nil {
			return s, err
		}
		s.In = n
	}
	outs, err := readJSONL(p(".jsonl"))
	if err != nil {
		return s, err
	}
	s.Out = len(outs)
	errs, err := readJSONL(p("-errors.jsonl"))
	if err != nil {
		return s, err
	}
	s.Failed = len(errs)
	for _, e := range errs {
		msg, _ := e["error"].(string)
		s.Reasons[Reason(msg)]++
	}
	if b, err := os.ReadFile(p(".usage.json")); err == nil {
		var u usage
		if err := json.Unmarshal(b, &u); err != nil {
			return s, fmt.Errorf("%s: %v", p(".usage.json"), err)
		}
		s.HasUsage = true
		s.Retries, s.Reasks = u.Total.Retries, u.Total.Reasks
		s.TokensIn, s.TokensOut = u.Total.TokensIn, u.Total.TokensOut
	}
	if b, err := os.ReadFile(p(".time")); err == nil {
		// bash's time: "wall user sys" on the last line
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		f := strings.Fields(lines[len(lines)-1])
		if len(f) == 3 {
			w, _ := strconv.ParseFloat(f[0], 64)
			u, _ := strconv.ParseFloat(f[1], 64)
			sy, _ := strconv.ParseFloat(f[2], 64)
			s.Wall, s.CPU = w, u+sy
		}
	}
	if exs, err := readJSONL(filepath.Join(dir, "rec", name+".jsonl")); err == nil {
		for _, ex := range exs {
			if v, ok := ex["seconds"].(float64); ok {
				s.ModelSeconds += v
			}
		}
	}
	if err := s.readStats(p); err != nil {
		return s, err
	}
	if stage == "ngpact" {
		s.countPact(outs)
	}
	return s, nil
}

// readStats reads the step's ngstats report (p(".stats.json"), and its
// input's, p(".in.stats.json")), when there is one.
func (s *Step) readStats(p func(ext string) string) error {
	name := s.Name
	b, err := os.ReadFile(p(".stats.json"))
	if err != nil {
		return nil
	}
	var st stats
	if err := json.Unmarshal(b, &st); err != nil {
		return fmt.Errorf("%s: %v", p(".stats.json"), err)
	}
	s.HasStats = true
	if p := st.Panel; p != nil {
		for _, a := range p.Agreement {
			s.Panel = append(s.Panel, fmt.Sprintf("%s: panel %s on %d records, task %s over %d turns: Fleiss' kappa %s, Krippendorff's alpha %s%s",
				name, strings.Join(p.Labellers, " + "), p.Records, a.Task, a.Turns, num(a.Fleiss), num(a.Alpha), failedNote(p.Failed)))
		}
	}
	s.Dialogues = st.Dialogues
	in := map[string]int{}
	if b, err := os.ReadFile(p(".in.stats.json")); err == nil {
		// a stage that keeps the turns (nglabel) answers only for
		// the defects it added
		var ist stats
		if err := json.Unmarshal(b, &ist); err != nil {
			return fmt.Errorf("%s: %v", p(".in.stats.json"), err)
		}
		for _, d := range ist.Defects {
			in[d.Name] += d.Count
		}
	}
	for _, d := range st.Defects {
		s.Defects += d.Count
		s.Added += max(0, d.Count-in[d.Name])
	}
	if len(st.Language) > 0 {
		s.Lang = &ratio{}
		for _, l := range st.Language {
			s.Lang.of += l.Records
			s.Lang.ok += l.Records - l.RecordsBelow
		}
	}
	return nil
}

// countPact counts ngpact's items and those with a usable distribution.
func (s *Step) countPact(outs []map[string]any) {
	for _, r := range outs {
		s.PactItems++
		entries, _ := r["pact"].([]any)
		ok := len(entries) > 0
		for _, e := range entries {
			m, _ := e.(map[string]any)
			// a distribution from at least one valid reply; an error
			// beside it only notes the samples that named no option
			valid, _ := m["valid"].(float64)
			if _, has := m["p_follow"].(float64); !has || valid == 0 {
				ok = false
			}
		}
		if ok {
			s.PactUsable++
		}
	}
	s.PactItems += s.Failed
}

type usage struct {
	Total struct {
		Retries   int `json:"retries"`
		Reasks    int `json:"reasks"`
		TokensIn  int `json:"tokens_in"`
		TokensOut int `json:"tokens_out"`
	} `json:"total"`
}

type stats struct {
	Dialogues int `json:"dialogues"`
	Defects   []struct {
		Name  string `json:"name"`
		Count int    `json:"count"`
	} `json:"defects"`
	Language []struct {
		Records      int `json:"records"`
		RecordsBelow int `json:"records_below"`
	} `json:"language"`
	Panel *struct {
		Records   int            `json:"records"`
		Labellers []string       `json:"labellers"`
		Failed    map[string]int `json:"failed"`
		Agreement []struct {
			Task   string   `json:"task"`
			Turns  int      `json:"turns"`
			Fleiss *float64 `json:"fleiss_kappa"`
			Alpha  *float64 `json:"krippendorff_alpha"`
		} `json:"agreement"`
	} `json:"panel"`
}

var (
	digits = regexp.MustCompile(`[0-9]+(\.[0-9]+)?`)
	quoted = regexp.MustCompile(`"[^"]*"|“[^”]*”|'[^' ]*'`)
	spaces = regexp.MustCompile(`\s+`)
)

// Reason is an error message without its particulars (numbers, quoted
// text), cut short: failures of one kind share it.
func Reason(msg string) string {
	r := quoted.ReplaceAllString(msg, "…")
	r = digits.ReplaceAllString(r, "N")
	r = spaces.ReplaceAllString(strings.TrimSpace(r), " ")
	if rs := []rune(r); len(rs) > 90 {
		r = string(rs[:90]) + "…"
	}
	// a table cell: no pipes, no newlines
	return strings.ReplaceAll(r, "|", "/")
}

func render(steps []Step, note string) string {
	var b strings.Builder
	b.WriteString(begin + "\n")
	b.WriteString("<!-- generated by scripts/yieldtable from a scripts/realmodels.sh run: do not edit by hand -->\n\n")
	if note != "" {
		b.WriteString(note + "\n\n")
	}
	b.WriteString("| step | model | stage | culture | in | out | failed | failures by reason | retries + re-asks | tokens / out | s / out | language pass | defects / 100 | usable PACT items | ngkit CPU / wall |\n")
	b.WriteString("|---|---|---|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|\n")
	var goals []string
	var cpu, wall float64
	for _, s := range steps {
		in := "—"
		if s.In >= 0 {
			in = strconv.Itoa(s.In)
			if s.Out+s.Failed != s.In {
				goals = append(goals, fmt.Sprintf("%s: %d out + %d failed ≠ %d in", s.Name, s.Out, s.Failed, s.In))
			}
		}
		var reasons []string
		for r, n := range s.Reasons {
			reasons = append(reasons, fmt.Sprintf("%s (%d)", r, n))
		}
		sort.Strings(reasons)
		perOut := func(v float64, prec int) string {
			if s.Out == 0 || v == 0 {
				return "—"
			}
			return strconv.FormatFloat(v/float64(s.Out), 'f', prec, 64)
		}
		lang, defects, pact, share := "—", "—", "—", "—"
		if s.Lang != nil && s.Lang.of > 0 {
			lang = fmt.Sprintf("%d/%d", s.Lang.ok, s.Lang.of)
			if s.Lang.ok < s.Lang.of {
				goals = append(goals, fmt.Sprintf("%s: %d written records fail the language check", s.Name, s.Lang.of-s.Lang.ok))
			}
		}
		if s.HasStats && s.Dialogues > 0 {
			defects = strconv.FormatFloat(100*float64(s.Defects)/float64(s.Dialogues), 'f', 0, 64)
			if s.Added > 0 {
				goals = append(goals, fmt.Sprintf("%s: %d defects in the records written", s.Name, s.Added))
			}
		}
		if s.Stage == "ngpact" && s.PactItems > 0 {
			pact = fmt.Sprintf("%d/%d", s.PactUsable, s.PactItems)
		}
		tokens := "—"
		if s.HasUsage {
			tokens = perOut(float64(s.TokensIn+s.TokensOut), 0)
		}
		if s.Wall > 0 {
			share = fmt.Sprintf("%.2f%%", 100*s.CPU/s.Wall)
			cpu += s.CPU
			wall += s.Wall
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %d | %d | %s | %d | %s | %s | %s | %s | %s | %s |\n",
			s.Name, s.Model, s.Stage, s.Culture, in, s.Out, s.Failed, orDash(strings.Join(reasons, "; ")),
			s.Retries+s.Reasks, tokens, perOut(s.Wall, 1), lang, defects, pact, share)
	}
	b.WriteString("\n")
	for _, s := range steps {
		for _, p := range s.Panel {
			b.WriteString(p + ".\n")
		}
	}
	if wall > 0 {
		fmt.Fprintf(&b, "ngkit's own CPU time over the run: %.1f s of %.0f s wall (%.2f%%; goal under 2%%).\n", cpu, wall, 100*cpu/wall)
	}
	if len(goals) == 0 {
		b.WriteString("Goals: every record accounted for, and no record written fails ngstats' audit or the language check.\n")
	} else {
		b.WriteString("Goals not met:\n\n")
		for _, g := range goals {
			b.WriteString("- " + g + "\n")
		}
	}
	b.WriteString(end)
	return b.String()
}

func num(v *float64) string {
	if v == nil {
		return "undefined"
	}
	return strconv.FormatFloat(*v, 'f', 2, 64)
}

func failedNote(f map[string]int) string {
	var parts []string
	for m, n := range f {
		parts = append(parts, fmt.Sprintf("%s gave no labels on %d", m, n))
	}
	sort.Strings(parts)
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// splice puts table between the markers of path (appended with them at
// the end when they are absent).
func splice(path, table string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	i, j := bytes.Index(b, []byte(begin)), bytes.Index(b, []byte(end))
	var out []byte
	switch {
	case i < 0 && j < 0:
		out = append(append(b, '\n'), table+"\n"...)
	case i >= 0 && j > i:
		out = append(append(append([]byte{}, b[:i]...), table...), b[j+len(end):]...)
	default:
		return fmt.Errorf("%s: the markers %s and %s are not in order", path, begin, end)
	}
	return os.WriteFile(path, out, 0o644)
}

func countLines(path string) (int, error) {
	recs, err := readJSONL(path)
	return len(recs), err
}

func readJSONL(path string) ([]map[string]any, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var recs []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for n := 1; sc.Scan(); n++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, n, err)
		}
		recs = append(recs, m)
	}
	return recs, sc.Err()
}
