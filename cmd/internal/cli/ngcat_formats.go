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
	// Help is its --help paragraph; "": described with the one before.
	Help string
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
	{Name: "normgenesis", Flags: []string{"split-dialogues"}, Help: `
--from normgenesis imports the NormGenesis release (<culture>_<type>.json files):
each dialogue is parsed into turns and narration with the markers removed; the
original text stays in the field "dialogue"; failed generations are kept, with
their defects listed in checks.defects.`,
		New: func(in importIn) (pipeline.Source, error) {
			return imports.NewNormGenesis(in.Args, imports.NormGenesisOptions{Fields: in.Fields, Stdin: in.Stdin})
		}},
	{Name: "prosocial", Help: `
--from prosocial imports ProsocialDialog rows as the Hugging Face Hub publishes them
(allenai/prosocial-dialog; JSONL, Parquet or Arrow): the rows of each dialogue_id
become one record, turns alternating "user" (context) and "assistant" (response) in
response_id order; the safety label, rules-of-thumb, annotators' votes (as shares)
and reasons go on the user turns' labels. The rows of a dialogue must be contiguous,
as in the Hub files; the split in a file's name (train, validation, test) is part of
the ids.`,
		New: func(in importIn) (pipeline.Source, error) {
			return imports.NewProsocial(in.Args, imports.ProsocialOptions{Fields: in.Fields, Stdin: in.Stdin}), nil
		}},
	{Name: "text", Flags: []string{"separator", "split-dialogues"}, Help: `
--from text imports plain "Name: text" transcripts: dialogues separated by blank
lines (--separator blank, the default), by a line of exactly SEP (--separator SEP),
or one per file (--separator none); each is parsed as for --from normgenesis. Two
separator lines with nothing between are an empty dialogue (empty_dialogue), so
that source_index counts the file's dialogues.`,
		New: func(in importIn) (pipeline.Source, error) {
			return imports.NewText(in.Args, imports.TextOptions{Separator: in.Opt.separator, Fields: in.Fields, Stdin: in.Stdin})
		}},
	{Name: "csv", Flags: []string{"text-column", "column", "split-dialogues"}, Help: `
--from csv (and tsv, or a .tsv file) reads one dialogue per row: the transcript in
the column --text-column COLUMN, parsed as for --from text; --column FIELD=COLUMN
fills culture, lang, category, norm, norm_id, dialogue_type, scenario or situation
from a column; every other column goes to extra under its header name.`,
		New: func(in importIn) (pipeline.Source, error) { return newCSV(in, false) }},
	{Name: "tsv", Flags: []string{"text-column", "column", "split-dialogues"},
		New: func(in importIn) (pipeline.Source, error) { return newCSV(in, true) }},
	{Name: "messages", Help: `
--from messages reads chat datasets: JSONL (or a JSON array) of {"messages":
[{role, content}]} (OpenAI fine-tuning files, Hugging Face chat sets) or ShareGPT's
{"conversations": [{from, value}]}, one dialogue per object, the roles as speakers,
the system message in extra "system".`,
		New: func(in importIn) (pipeline.Source, error) {
			return imports.NewMessages(in.Args, imports.MessagesOptions{Fields: in.Fields, Stdin: in.Stdin}), nil
		}},
	{Name: "pact", Stage: imports.CheckPactItems, Help: `
--from pact reads PACT trade-off items (for ngpact) from CSV (TSV for .tsv names) or
JSONL / a JSON array, one item per row or object: scenario, culture (or country: a
built-in culture's country becomes the culture, Korea -> korean), actor, receiver,
expectation, preference, follow_option, allow_option, optional human answers as
human: {follow_culture, n} or columns human_follow_culture and human_n (a share, or
a percentage such as 62%), persona: {attr: value} or persona_ATTR columns (age and
gender go to the persona too), id, lang (detected when absent), category, norm; other
fields go to extra. An item without its expectation, preference or options goes to
the errors file with the reason, file and line.`,
		New: func(in importIn) (pipeline.Source, error) {
			return imports.NewPact(in.Args, imports.PactOptions{Fields: in.Fields, Stdin: in.Stdin}), nil
		}},
	{Name: "episodes", Help: `
--from episodes reads ngsim episode specs made elsewhere: JSONL objects, or CSV/TSV
rows under a header (.csv/.tsv, or stdin not starting with '{'), with culture,
lang (default: the culture's), subgroup, domain, goal, opening, and constraints
(a JSON list of texts or {id, text, norm_id, reveal}; in CSV also texts separated
by " | " or newlines, or columns constraint_N, reveal_N, norm_id_N). A spec that is
not valid (2-4 constraints, a goal and an opening that gives none away) goes to the
errors file with its file and line; the others are written.`,
		New: func(in importIn) (pipeline.Source, error) {
			return imports.NewEpisodes(in.Args, imports.EpisodesOptions{Fields: in.Fields, Stdin: in.Stdin}), nil
		}},
	// Described with --to labelstudio and argilla (ngcatQualityDetails).
	{Name: review.ToolLabelStudio, New: func(in importIn) (pipeline.Source, error) { return review.NewLabelStudio(in.Args, in.Stdin), nil }},
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
	// Help is its --help paragraph; "": described elsewhere.
	Help string
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
	{Name: "prosocial", Help: `
--to prosocial writes the dialogues as ProsocialDialog rows (context, response, rots,
safety_label, safety_annotations, safety_annotation_reasons, source, etc, dialogue_id,
response_id, episode_done), one per pair of turns (0-1, 2-3, ...; a last turn without
a reply gets an empty response), labelled by the context turn's safety label, rules-
of-thumb, votes and explanation (nglabel --tasks safety), so they can be mixed with
ProsocialDialog for training. It is the inverse of --from prosocial.`,
		New: func(out *recio.Output, in exportIn) (pipeline.Sink, error) {
			return pipeline.NewRowSink(out, in.Write, export.Prosocial)
		}},
	{Name: "messages", Flags: []string{"per-turn", "assistant", "system-template"}, Help: `
--to messages writes OpenAI chat fine-tuning examples ({"messages": [{role,
content}]}): one per dialogue, or one per assistant turn with --per-turn (the
dialogue up to that turn). --assistant says who is the assistant: first (the first
turn's speaker), second (the first other speaker), a speaker's NAME, or auto (the
default: a speaker named "assistant", else second); everyone else is the user. A
system message comes from --system-template FILE (Go text/template over the record:
{{.Norm}}, {{.Situation}}, {{.Culture}}, ...) or, without it, from a messages
import's own system message. A dialogue where the assistant never speaks makes no
example. It is the inverse of --from messages.`,
		New: func(out *recio.Output, in exportIn) (pipeline.Sink, error) {
			return pipeline.NewRowSink(out, in.Write, export.Messages(in.Messages, in.TemplateFailed))
		}},
	// Described in ngcatQualityDetails; their flags are checked there.
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
	Flags []string
	New   func(o *ngcatOptions, splits []record.Split, write recio.WriteOptions, shard pipeline.Shard, summary hf.Summary) (pipeline.Sink, error)
	Help  string
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
	Help: `
--hf DIR writes a Hugging Face dataset folder: DIR/data/<split>-0000K-of-0000N.parquet
(one split, train, or those of --split) and DIR/README.md, the dataset card (licence,
languages, size category, the files of each split, the features, read from the
Parquet schema) with a description. Each file holds about --shard-mb MB of records
(uncompressed, as datasets' push_to_hub counts), in row groups of --row-group-mb,
compressed with zstd at --zstd-level (11 for a dataset downloaded many times: about
12% smaller than the default 3, for about three times the CPU).
Label distributions and other maps are lists of {key, value}, as in every ngkit
Parquet file: the datasets library cannot load Parquet maps. --license must be a Hub
licence id (other needs --license-name and --license-link). With --shard K/N each
split goes to one file, <split>-0000K-of-0000N.parquet, so that N machines' data/
folders copied together are one dataset; ngstats DIR/data/*.parquet --card then
writes the card of the whole. The folder is built beside DIR and moved
in at the end, so DIR never holds half an export; a non-empty DIR/data or an
existing DIR/README.md is refused unless --force, which replaces both and keeps the
rest of DIR (.gitattributes, .git). Then: huggingface-cli upload USER/NAME DIR . --repo-type dataset`,
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

// ngcatSections are ngcat's help sections, from the tables.
func ngcatSections() []app.HelpSection {
	var from, to []string
	for _, im := range importers {
		if im.Help != "" {
			from = append(from, strings.TrimSpace(im.Help))
		}
	}
	for _, ex := range exporters {
		if ex.Help != "" {
			to = append(to, strings.TrimSpace(ex.Help))
		}
	}
	return []app.HelpSection{
		{Title: "Formats read (--from)", Body: strings.Join(from, "\n\n")},
		{Title: "Formats written (--to)", Body: strings.Join(to, "\n\n")},
		{Title: "Hugging Face dataset folder (--hf)", Body: strings.TrimSpace(hfSink.Help)},
	}
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
