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
	"github.com/spf13/pflag"
)

// ngcat's formats, as tables (Miller's reader factory and verb table): an
// importer per --from reader, an exporter per --to writer, and the --hf
// sink. Each entry has its names, its words in --from's or --to's list,
// its own flags, its constructor and its --help paragraph; ngcat's flag
// list, its checks of those flags, its --from and --to errors and its help
// sections come from here. A new format is one entry (and its package).

// formatFlags are the flags of one format, made afresh for each run.
type formatFlags interface {
	// Register defines them on ngcat's flag set; each usage says which
	// format it goes with.
	Register(fs *pflag.FlagSet)
	// Check reads them when their format is chosen, before the run.
	Check() error
}

// importer is a --from format.
type importer struct {
	// Names are the --from names it answers to (csv and tsv are one reader).
	Names []string
	// About is its part of --from's list: "(the NormGenesis release JSON)".
	About string
	// SplitDialogues says that its texts may hold several dialogues: it
	// takes --split-dialogues.
	SplitDialogues bool
	// Flags makes its own flags; nil: it has none.
	Flags func() formatFlags
	// New makes the source of the files named.
	New func(in importIn) (pipeline.Source, error)
	// Stage, when set, is the stage each imported record goes through
	// (pact: CheckPactItems, then --respondent-personas).
	Stage func(in importIn) pipeline.Stage
	// Section is its part of ngcat's help (none: described with another).
	Section *app.HelpSection
}

// importIn is what an importer is made from.
type importIn struct {
	Name   string // the --from name given
	Args   []string
	Stdin  io.Reader
	Fields imports.Fields
	Flags  formatFlags // what its Flags made, or nil
}

// notes is a source that has notes for stderr once the run is over (what
// a review import left out).
type notes interface{ Notes() []string }

var importers = []importer{
	{Names: []string{"normgenesis"}, About: "the NormGenesis release JSON", SplitDialogues: true,
		Section: ngcatHelp("--from normgenesis", "from-normgenesis"),
		New: func(in importIn) (pipeline.Source, error) {
			return imports.NewNormGenesis(in.Args, imports.NormGenesisOptions{Fields: in.Fields, Stdin: in.Stdin})
		}},
	{Names: []string{"prosocial"}, About: "ProsocialDialog rows from the Hugging Face Hub",
		Section: ngcatHelp("--from prosocial", "from-prosocial"),
		New: func(in importIn) (pipeline.Source, error) {
			return imports.NewProsocial(in.Args, imports.ProsocialOptions{Fields: in.Fields, Stdin: in.Stdin})
		}},
	{Names: []string{"text"}, About: `"Name: text" transcripts`, SplitDialogues: true,
		Flags:   func() formatFlags { return new(textFlags) },
		Section: ngcatHelp("--from text", "from-text"),
		New: func(in importIn) (pipeline.Source, error) {
			sep := in.Flags.(*textFlags).separator
			return imports.NewText(in.Args, imports.TextOptions{Separator: sep, Fields: in.Fields, Stdin: in.Stdin})
		}},
	{Names: []string{"csv", "tsv"}, About: "one transcript per row", SplitDialogues: true,
		Flags:   func() formatFlags { return new(csvFlags) },
		Section: ngcatHelp("--from csv, --from tsv", "from-csv"),
		New: func(in importIn) (pipeline.Source, error) {
			f := in.Flags.(*csvFlags)
			return imports.NewCSV(in.Args, imports.CSVOptions{TextColumn: f.textColumn, Columns: f.parsed, TSV: in.Name == "tsv", Fields: in.Fields, Stdin: in.Stdin})
		}},
	{Names: []string{"messages"}, About: "chat messages JSONL, OpenAI or ShareGPT",
		Section: ngcatHelp("--from messages", "from-messages"),
		New: func(in importIn) (pipeline.Source, error) {
			return imports.NewMessages(in.Args, imports.MessagesOptions{Fields: in.Fields, Stdin: in.Stdin})
		}},
	{Names: []string{"pact"}, About: "PACT items, CSV or JSONL",
		Flags:   func() formatFlags { return new(pactFlags) },
		Section: ngcatHelp("--from pact", "from-pact"),
		Stage: func(in importIn) pipeline.Stage {
			if in.Flags.(*pactFlags).respondentPersonas {
				return chain(imports.CheckPactItems, imports.RespondentPersonas)
			}
			return imports.CheckPactItems
		},
		New: func(in importIn) (pipeline.Source, error) {
			return imports.NewPact(in.Args, imports.PactOptions{Fields: in.Fields, Stdin: in.Stdin})
		}},
	{Names: []string{"episodes"}, About: "ngsim episode specs, JSONL or CSV",
		Section: ngcatHelp("--from episodes", "from-episodes"),
		New: func(in importIn) (pipeline.Source, error) {
			return imports.NewEpisodes(in.Args, imports.EpisodesOptions{Fields: in.Fields, Stdin: in.Stdin})
		}},
	// Both ways of the review tools are one section.
	{Names: []string{review.ToolLabelStudio, review.ToolArgilla}, About: "review exports",
		Section: ngcatHelp("--to and --from labelstudio, argilla (review)", "review"),
		New: func(in importIn) (pipeline.Source, error) {
			if in.Name == review.ToolArgilla {
				return review.NewArgilla(in.Args, in.Stdin), nil
			}
			return review.NewLabelStudio(in.Args, in.Stdin), nil
		}},
}

// textFlags are --from text's.
type textFlags struct{ separator string }

func (f *textFlags) Register(fs *pflag.FlagSet) {
	fs.StringVar(&f.separator, "separator", imports.SeparatorBlank, "with --from text: the dialogues of a file are separated by blank lines (blank), not at all (none: one per file) or by lines of exactly `SEP`")
}

func (f *textFlags) Check() error { return nil } // imports.NewText checks --separator

// csvFlags are --from csv's and tsv's.
type csvFlags struct {
	textColumn string
	columns    []string
	parsed     map[string]string // columns, as field -> column
}

func (f *csvFlags) Register(fs *pflag.FlagSet) {
	fs.StringVar(&f.textColumn, "text-column", "", "with --from csv or tsv: the `COLUMN` that holds the dialogue text")
	fs.StringArrayVar(&f.columns, "column", nil, "with --from csv or tsv: fill a record field from a column, `FIELD=COLUMN` (culture, lang, category, norm, norm_id, dialogue_type, scenario, situation; repeatable)")
}

func (f *csvFlags) Check() error {
	f.parsed = map[string]string{}
	for _, c := range f.columns {
		field, col, ok := strings.Cut(c, "=")
		if !ok || field == "" || col == "" {
			return fmt.Errorf("--column %q: want FIELD=COLUMN", c)
		}
		f.parsed[strings.TrimSpace(field)] = col
	}
	return nil
}

// pactFlags are --from pact's.
type pactFlags struct{ respondentPersonas bool }

func (f *pactFlags) Register(fs *pflag.FlagSet) {
	fs.BoolVar(&f.respondentPersonas, "respondent-personas", false, "with --from pact: also write each item once per respondent subgroup (respondent_country and respondent_demo) that answered it, for the persona-prompted run (pact_item.persona_country, persona_demo)")
}

func (f *pactFlags) Check() error { return nil }

// exporter is a --to format: rows of another dataset instead of records.
type exporter struct {
	Names []string
	// About is its part of --to's list.
	About string
	// Flags makes its own flags; nil: it has none.
	Flags func() formatFlags
	// New makes the sink of one output file.
	New func(out *recio.Output, in exportIn) (pipeline.Sink, error)
	// Section is its part of ngcat's help (none: described with another).
	Section *app.HelpSection
}

// exportIn is what an exporter is made from.
type exportIn struct {
	Name  string // the --to name given
	Write recio.WriteOptions
	Flags formatFlags // what its Flags made, or nil
	// Warn says, once, that a record could not be written as a row.
	Warn    func(*record.Record, error)
	Quality *ngcatQuality
}

var exporters = []exporter{
	{Names: []string{"prosocial"}, About: "ProsocialDialog rows, one per pair of turns",
		Section: ngcatHelp("--to prosocial", "to-prosocial"),
		New: func(out *recio.Output, in exportIn) (pipeline.Sink, error) {
			return pipeline.NewRowSink(out, in.Write, export.Prosocial)
		}},
	{Names: []string{"messages"}, About: "OpenAI chat fine-tuning examples",
		Flags:   func() formatFlags { return &messagesFlags{assistant: export.AssistantAuto} },
		Section: ngcatHelp("--to messages", "to-messages"),
		New: func(out *recio.Output, in exportIn) (pipeline.Sink, error) {
			return pipeline.NewRowSink(out, in.Write, export.Messages(in.Flags.(*messagesFlags).opt, in.Warn))
		}},
	// Described with the review importers (help/ngcat/review.md); their
	// flags are ngcat_quality.go's, which checks them.
	{Names: []string{review.ToolLabelStudio, review.ToolArgilla}, About: "review tasks, one per dialogue",
		New: func(out *recio.Output, in exportIn) (pipeline.Sink, error) {
			return in.Quality.reviewSink(in.Name, out)
		}},
}

// messagesFlags are --to messages'.
type messagesFlags struct {
	perTurn        bool
	assistant      string
	systemTemplate string
	opt            export.MessagesOptions // made by Check
}

func (f *messagesFlags) Register(fs *pflag.FlagSet) {
	fs.BoolVar(&f.perTurn, "per-turn", false, "with --to messages: one example per assistant turn instead of one per dialogue")
	fs.StringVar(&f.assistant, "assistant", f.assistant, "with --to messages: who is the assistant: first, second, auto or a speaker's `NAME`")
	fs.StringVar(&f.systemTemplate, "system-template", "", "with --to messages: make the system message from `FILE`, a Go template over the record ({{.Norm}}, {{.Situation}}, ...)")
}

// Check reads --system-template.
func (f *messagesFlags) Check() error {
	f.opt = export.MessagesOptions{PerTurn: f.perTurn, Assistant: f.assistant}
	if f.systemTemplate == "" {
		return nil
	}
	b, err := os.ReadFile(f.systemTemplate)
	if err != nil {
		return fmt.Errorf("--system-template: %v", err)
	}
	f.opt.System, err = export.ParseSystemTemplate(f.systemTemplate, string(b))
	return err
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
		if slices.Contains(importers[i].Names, name) {
			return &importers[i]
		}
	}
	return nil
}

func findExporter(name string) *exporter {
	for i := range exporters {
		if slices.Contains(exporters[i].Names, name) {
			return &exporters[i]
		}
	}
	return nil
}

// formatList is --from's or --to's list of formats: "a (what a is), b or
// c (what b and c are)".
func formatList(names [][]string, about []string) string {
	parts := make([]string, len(names))
	for i := range names {
		parts[i] = orList(names[i], "or") + " (" + about[i] + ")"
	}
	return strings.Join(parts, ", ")
}

func importerNames() (names []string) {
	for _, im := range importers {
		names = append(names, im.Names...)
	}
	return names
}

func exporterNames() (names []string) {
	for _, ex := range exporters {
		names = append(names, ex.Names...)
	}
	return names
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
