package cli

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/ngkit/ngkit/cmd/internal/app"
	"github.com/ngkit/ngkit/filters/export"
	"github.com/ngkit/ngkit/filters/hf"
	"github.com/ngkit/ngkit/filters/imports"
	"github.com/ngkit/ngkit/filters/review"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/recio"
	"github.com/ngkit/ngkit/pkg/record"
)

// ngcat's formats, as tables (Miller's reader factory and verb table): an
// importer per --from name, an exporter per --to name, and the --hf sink.
// Each entry has its name, the ngcat flags that go with it only, its
// constructor and its --help paragraph; ngcat's checks of those flags, its
// --from and --to errors and its help sections come from here. A new
// format is one entry (and its package).

// importer is a --from format.
type importer struct {
	Name string
	// Flags are the flags that go with this importer (and the others that
	// list them) only.
	Flags []string
	// New makes the source of the files named.
	New func(in importIn) (pipeline.Source, error)
	// Stage, when set, checks each imported record (pact: CheckPactItems).
	Stage pipeline.Stage
	// Section is its part of ngcat's help (none: described with another).
	Section *app.HelpSection
}

// importIn is what an importer is made from.
type importIn struct {
	Args   []string
	Stdin  io.Reader
	Fields imports.Fields
	Opt    *ngcatOptions
}

// notes is a source that has notes for stderr once the run is over (what
// a review import left out).
type notes interface{ Notes() []string }

var importers = []importer{
	{Name: "normgenesis", Flags: []string{"split-dialogues"}, Section: ngcatHelp("--from normgenesis", "from-normgenesis"),
		New: func(in importIn) (pipeline.Source, error) {
			return imports.NewNormGenesis(in.Args, imports.NormGenesisOptions{Fields: in.Fields, Stdin: in.Stdin})
		}},
	{Name: "prosocial", Section: ngcatHelp("--from prosocial", "from-prosocial"),
		New: func(in importIn) (pipeline.Source, error) {
			return imports.NewProsocial(in.Args, imports.ProsocialOptions{Fields: in.Fields, Stdin: in.Stdin}), nil
		}},
	{Name: "text", Flags: []string{"separator", "split-dialogues"}, Section: ngcatHelp("--from text", "from-text"),
		New: func(in importIn) (pipeline.Source, error) {
			return imports.NewText(in.Args, imports.TextOptions{Separator: in.Opt.separator, Fields: in.Fields, Stdin: in.Stdin})
		}},
	{Name: "csv", Flags: []string{"text-column", "column", "split-dialogues"}, Section: ngcatHelp("--from csv, --from tsv", "from-csv"),
		New: func(in importIn) (pipeline.Source, error) { return newCSV(in, false) }},
	{Name: "tsv", Flags: []string{"text-column", "column", "split-dialogues"},
		New: func(in importIn) (pipeline.Source, error) { return newCSV(in, true) }},
	{Name: "messages", Section: ngcatHelp("--from messages", "from-messages"),
		New: func(in importIn) (pipeline.Source, error) {
			return imports.NewMessages(in.Args, imports.MessagesOptions{Fields: in.Fields, Stdin: in.Stdin}), nil
		}},
	{Name: "pact", Stage: imports.CheckPactItems, Section: ngcatHelp("--from pact", "from-pact"),
		New: func(in importIn) (pipeline.Source, error) {
			return imports.NewPact(in.Args, imports.PactOptions{Fields: in.Fields, Stdin: in.Stdin}), nil
		}},
	{Name: "episodes", Section: ngcatHelp("--from episodes", "from-episodes"),
		New: func(in importIn) (pipeline.Source, error) {
			return imports.NewEpisodes(in.Args, imports.EpisodesOptions{Fields: in.Fields, Stdin: in.Stdin}), nil
		}},
	// Both ways of the review tools are one section.
	{Name: review.ToolLabelStudio, Section: ngcatHelp("--to and --from labelstudio, argilla (review)", "review"), New: func(in importIn) (pipeline.Source, error) { return review.NewLabelStudio(in.Args, in.Stdin), nil }},
	{Name: review.ToolArgilla, New: func(in importIn) (pipeline.Source, error) { return review.NewArgilla(in.Args, in.Stdin), nil }},
}

func newCSV(in importIn, tsv bool) (pipeline.Source, error) {
	opt := imports.CSVOptions{TextColumn: in.Opt.textColumn, Columns: map[string]string{}, TSV: tsv, Fields: in.Fields, Stdin: in.Stdin}
	for _, c := range in.Opt.columns {
		f, col, ok := strings.Cut(c, "=")
		if !ok || f == "" || col == "" {
			return nil, fmt.Errorf("--column %q: want FIELD=COLUMN", c)
		}
		opt.Columns[strings.TrimSpace(f)] = col
	}
	return imports.NewCSV(in.Args, opt)
}

// exporter is a --to format: rows of another dataset instead of records.
type exporter struct {
	Name  string
	Flags []string
	// New makes the sink of one output file.
	New func(out *recio.Output, in exportIn) (pipeline.Sink, error)
	// Section is its part of ngcat's help (none: described with another).
	Section *app.HelpSection
}

// exportIn is what an exporter is made from.
type exportIn struct {
	Write    recio.WriteOptions
	Messages export.MessagesOptions
	// TemplateFailed says that a record's system template failed.
	TemplateFailed func(*record.Record, error)
	Quality        *ngcatQuality
}

var exporters = []exporter{
	{Name: "prosocial", Section: ngcatHelp("--to prosocial", "to-prosocial"),
		New: func(out *recio.Output, in exportIn) (pipeline.Sink, error) {
			return pipeline.NewRowSink(out, in.Write, export.Prosocial)
		}},
	{Name: "messages", Flags: []string{"per-turn", "assistant", "system-template"}, Section: ngcatHelp("--to messages", "to-messages"),
		New: func(out *recio.Output, in exportIn) (pipeline.Sink, error) {
			return pipeline.NewRowSink(out, in.Write, export.Messages(in.Messages, in.TemplateFailed))
		}},
	// Described with the review importers (help/ngcat/review.md); their flags are checked in ngcat_quality.go.
	{Name: review.ToolLabelStudio, New: func(out *recio.Output, in exportIn) (pipeline.Sink, error) {
		return in.Quality.reviewSink(review.ToolLabelStudio, out)
	}},
	{Name: review.ToolArgilla, New: func(out *recio.Output, in exportIn) (pipeline.Sink, error) {
		return in.Quality.reviewSink(review.ToolArgilla, out)
	}},
}

// messagesOptions reads --system-template for --to messages.
func (o *ngcatOptions) messagesOptions() (export.MessagesOptions, error) {
	opt := export.MessagesOptions{PerTurn: o.perTurn, Assistant: o.assistant}
	if o.systemTemplate == "" {
		return opt, nil
	}
	b, err := os.ReadFile(o.systemTemplate)
	if err != nil {
		return opt, fmt.Errorf("--system-template: %v", err)
	}
	opt.System, err = export.ParseSystemTemplate(o.systemTemplate, string(b))
	return opt, err
}

// hfSink is the --hf entry: a Hugging Face dataset folder.
var hfSink = struct {
	Flags   []string
	New     func(o *ngcatOptions, splits []record.Split, write recio.WriteOptions, shard pipeline.Shard, summary hf.Summary) (pipeline.Sink, error)
	Section *app.HelpSection
}{
	Flags: []string{"pretty-name", "license", "license-name", "license-link", "shard-mb", "force"},
	New: func(o *ngcatOptions, splits []record.Split, write recio.WriteOptions, shard pipeline.Shard, summary hf.Summary) (pipeline.Sink, error) {
		return hf.New(hf.Options{
			Dir: o.hfDir, Splits: splits, ShardBytes: int64(o.shardMB * (1 << 20)),
			Write: write, Force: o.force,
			Card:  hf.CardInfo{PrettyName: o.prettyName, License: o.license, LicenseName: o.licenseName, LicenseLink: o.licenseLink},
			Shard: shard.K, Of: shard.N,
			Summary: summary,
		})
	},
	Section: ngcatHelp("--hf: a Hugging Face dataset folder", "hf"),
}

func findImporter(name string) *importer {
	for i := range importers {
		if importers[i].Name == name {
			return &importers[i]
		}
	}
	return nil
}

func findExporter(name string) *exporter {
	for i := range exporters {
		if exporters[i].Name == name {
			return &exporters[i]
		}
	}
	return nil
}

// ngcatHelp is a format's help section: its text is help/ngcat/FILE.md.
func ngcatHelp(title, file string) *app.HelpSection {
	return &app.HelpSection{Title: title, Body: Help("ngcat/" + file)}
}

// ngcatSections are ngcat's help sections, one a format, from the tables
// in their order: the importers, the exporters, the --hf sink.
func ngcatSections() []app.HelpSection {
	var out []app.HelpSection
	for _, im := range importers {
		if im.Section != nil {
			out = append(out, *im.Section)
		}
	}
	for _, ex := range exporters {
		if ex.Section != nil {
			out = append(out, *ex.Section)
		}
	}
	return append(out, *hfSink.Section)
}

// onlyWith is the error for flags given without a format that takes them:
// the flags that go with the same formats are named together ("--text-column
// and --column go with --from csv or tsv"). takes lists, per format name in
// table order, the flags it takes.
func onlyWith(option, current string, names []string, takes [][]string, changed func(string) bool) error {
	var order []string               // flags, in the order first listed
	formats := map[string][]string{} // flag -> the formats that take it
	for i, fl := range takes {
		for _, f := range fl {
			if _, ok := formats[f]; !ok {
				order = append(order, f)
			}
			formats[f] = append(formats[f], names[i])
		}
	}
	for _, f := range order {
		if !changed(f) || slices.Contains(formats[f], current) {
			continue
		}
		var group []string // the flags that go with the same formats
		for _, g := range order {
			if slices.Equal(formats[g], formats[f]) {
				group = append(group, "--"+g)
			}
		}
		verb := "goes"
		if len(group) > 1 {
			verb = "go"
		}
		with := option
		if list := orList(formats[f], "or"); list != "" {
			with += " " + list
		}
		return fmt.Errorf("%s %s with %s", orList(group, "and"), verb, with)
	}
	return nil
}

// orList is "a, b or c" ("a, b and c" with word "and").
func orList(items []string, word string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " " + word + " " + items[len(items)-1]
}
