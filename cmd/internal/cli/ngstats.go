package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/ngkit/ngkit/cmd/internal/app"
	"github.com/ngkit/ngkit/filters/hf"
	"github.com/ngkit/ngkit/filters/stats"
	"github.com/ngkit/ngkit/filters/stats/render"
	"github.com/ngkit/ngkit/pkg/audit"
	"github.com/ngkit/ngkit/pkg/lang"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/recio"
	"github.com/ngkit/ngkit/pkg/record"
)

// reportFormats maps report formats to their writers; ids is --ids.
var reportFormats = map[string]func(w io.Writer, r *stats.Report, ids int) error{
	"text":     render.WriteText,
	"json":     func(w io.Writer, r *stats.Report, _ int) error { return render.WriteJSON(w, r) },
	"markdown": func(w io.Writer, r *stats.Report, ids int) error { return render.WriteMarkdown(w, r, ids, 2) },
	"html":     func(w io.Writer, r *stats.Report, _ int) error { return render.WriteHTML(w, r) },
}

var reportExt = map[string]string{".txt": "text", ".json": "json", ".md": "markdown", ".markdown": "markdown", ".html": "html", ".htm": "html"}

// Ngstats reports corpus statistics, language consistency and defects.
func Ngstats(env app.Env) error {
	p := app.NewProgram("ngstats", "corpus statistics, language consistency and defects of ngkit records", "[flags] [FILE...]")
	p.Details = Help("ngstats")
	p.Examples = `
ngcat --from normgenesis testdata/normgenesis/*.json | ngstats
ngstats corpus.parquet --json | jq '.defects[] | {name, count}'
ngstats corpus.parquet --html -o report.html
ngstats corpus.parquet --html --examples 5 --show-defect wrong_language -o browse.html
ngstats corpus.jsonl --markdown > stats.md
ngstats corpus.parquet --by age,hierarchy --json | jq '.by_persona[] | {attr, value, records: .report.records}'
ngstats corpus.parquet --card --pretty-name "My corpus" --license cc-by-sa-4.0 > README.md
ngv2r < seeds.jsonl | tee dialogues.jsonl | ngstats --fail-on empty_dialogue=0,wrong_language=1% -q`
	iof := &p.IO
	iof.Register(p.Flags)
	fs := p.Flags
	fs.Lookup("output").Usage = "write the report to `FILE` (atomically); its extension picks the format: .txt .json .md .html"
	fs.Lookup("format").Usage = "report `FORMAT`: text, json, markdown, html (default: from -o, else text)"
	for _, name := range []string{"resume", "row-group-mb", "zstd-level"} {
		if fs.Lookup(name) != nil {
			_ = fs.MarkHidden(name)
		}
	}
	o := &ngstatsOptions{io: iof}
	p.AddOptions(o)
	return p.Run(env, func(b *app.Build) (app.RunSpec, error) {
		args := b.Args
		format, thresholds := o.format, o.thresholds
		shownIDs := o.ids
		if !fs.Changed("ids") && (format == "text" || format == "markdown") {
			shownIDs = 5
		}
		var exceeded []string // --fail-on rules broken
		var warnings []string // one-class labellings
		spec := app.RunSpec{
			Inputs: args,
			Stage:  &audit.Audit{MinTurns: o.minTurns, MaxTurns: o.maxTurns, MinLangShare: o.minShare},
			Sink: func() (pipeline.Sink, error) {
				// Load the language models while the input is read (here,
				// after Execute has set the memory limit they raise).
				go lang.Default()
				out, err := recio.Create(iof.Output, recio.JSONL, env.Stdout)
				if err != nil {
					return nil, err
				}
				c := stats.NewCollector()
				c.IDs, c.Examples, c.DupThreshold, c.RankBy = o.ids, o.examples, o.dupThreshold, o.rankBy
				c.Browse, c.ShowDefect = format == "html", o.showDefect
				c.ByPersona(o.by...)
				rs := &reportSink{Collector: c, out: out}
				c.Done = func(r *stats.Report) error {
					stats.ApplyFailOn(r, thresholds)
					warnings = render.OneClassWarnings(r.Labels)
					for _, t := range r.FailOn {
						if t.Exceeded {
							exceeded = append(exceeded, fmt.Sprintf("%s rate %.4g above %.4g", t.Defect, t.Rate, t.Max))
						}
					}
					write := reportFormats[format]
					if format == "card" {
						write = cardWriter(o, args, rs)
					}
					if err := write(out.Writer(), r, shownIDs); err != nil {
						out.Abort()
						return err
					}
					return out.Commit()
				}
				return rs, nil
			},
		}
		spec.After = func() error {
			if !iof.Quiet {
				for _, w := range warnings {
					fmt.Fprintf(env.Stderr, "%s: %s\n", p.Name, record.PrintableLine(w))
				}
			}
			if len(exceeded) > 0 {
				return app.FailedError(p.Name, "--fail-on: "+strings.Join(exceeded, "; "))
			}
			return nil
		}
		return spec, nil
	})
}

// cardWriter writes the dataset card (--card) of the input files args.
func cardWriter(o *ngstatsOptions, args []string, rs *reportSink) func(w io.Writer, r *stats.Report, _ int) error {
	return func(w io.Writer, r *stats.Report, _ int) error {
		langs, err := rs.langs.Codes()
		if err != nil {
			return err
		}
		info := hf.CardInfo{PrettyName: o.prettyName, License: o.license, LicenseName: o.licenseName,
			LicenseLink: o.licenseLink, Languages: langs,
			Splits: []hf.SplitInfo{{Name: o.split, NumExamples: r.Records}}}
		// The data files of a dataset folder (ngcat --hf, from one run or
		// N runs with --shard K/N) give the splits.
		splits, size, ok, err := hf.ShardSplits(args)
		if err != nil {
			return err
		}
		if ok {
			info.Splits, info.DownloadSize = splits, size
		}
		return writeCard(w, r, info, &rs.prov)
	}
}

// reportSink discards the report file when the run is aborted, and notes
// the records' languages for --card.
type reportSink struct {
	*stats.Collector
	out   *recio.Output
	langs hf.Languages
	prov  hf.Provenance
}

func (s *reportSink) Write(rec *record.Record) error {
	s.langs.Add(rec)
	s.prov.Add(rec)
	return s.Collector.Write(rec)
}

func (s *reportSink) Abort() { s.out.Abort() }

// writeCard writes a dataset card for the records read: the splits of
// their data files when they are a dataset folder's, else one split.
func writeCard(w io.Writer, r *stats.Report, info hf.CardInfo, prov *hf.Provenance) error {
	if info.PrettyName == "" {
		info.PrettyName = "dataset"
	}
	body := hf.DefaultBody(info) + "\n" + prov.Markdown() + "\n" + render.CardMarkdown(r)
	card, err := hf.Card(info, body)
	if err != nil {
		return err
	}
	_, err = w.Write(card)
	return err
}

func reportFormat(flag, output string, asJSON, asMD, asHTML bool) (string, error) {
	var picked []string
	for _, f := range []struct {
		on   bool
		name string
	}{{flag != "", flag}, {asJSON, "json"}, {asMD, "markdown"}, {asHTML, "html"}} {
		if f.on {
			picked = append(picked, f.name)
		}
	}
	switch {
	case len(picked) > 1:
		return "", fmt.Errorf("choose one report format, not %s", strings.Join(picked, " and "))
	case len(picked) == 1:
		if _, ok := reportFormats[picked[0]]; !ok {
			return "", fmt.Errorf("report format %q: want text, json, markdown or html", picked[0])
		}
		return picked[0], nil
	case output != "" && output != "-":
		ext := strings.ToLower(filepath.Ext(output))
		if f, ok := reportExt[ext]; ok {
			return f, nil
		}
		if ext != "" {
			return "", fmt.Errorf("-o %s: unknown extension %s: want .txt, .json, .md or .html, or give --format", output, ext)
		}
	}
	return "text", nil
}
