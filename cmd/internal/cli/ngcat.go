package cli

import (
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/ngkit/ngkit/cmd/internal/app"
	"github.com/ngkit/ngkit/filters/cat"
	"github.com/ngkit/ngkit/filters/export"
	"github.com/ngkit/ngkit/filters/hf"
	"github.com/ngkit/ngkit/filters/imports"
	"github.com/ngkit/ngkit/filters/review"
	"github.com/ngkit/ngkit/filters/stats"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/recio"
	"github.com/ngkit/ngkit/pkg/record"
)

// Ngcat converts between formats, imports foreign datasets and samples,
// splits and explodes record streams.
func Ngcat(env app.Env) error {
	p := app.NewProgram("ngcat", "convert, import, sample, split and explode ngkit record streams", "[flags] [FILE...]")
	p.Details = `
Reads the files named (or stdin; "-" is stdin too), in JSONL, Parquet or Arrow IPC,
sniffed from their first bytes (gzip/zstd-compressed JSONL is unpacked), and writes
them to stdout or -o FILE in the format of --format or of the -o extension (JSONL by
default). Binary formats are never written to a terminal. Fields that ngkit does not
own pass through unchanged.

--from normgenesis imports the NormGenesis release (<culture>_<type>.json files):
each dialogue is parsed into turns and narration with the markers removed; the
original text stays in the field "dialogue"; failed generations are kept, with
their defects listed in checks.defects.

--from prosocial imports ProsocialDialog rows as the Hugging Face Hub publishes them
(allenai/prosocial-dialog; JSONL, Parquet or Arrow): the rows of each dialogue_id
become one record, turns alternating "user" (context) and "assistant" (response) in
response_id order; the safety label, rules-of-thumb, annotators' votes (as shares)
and reasons go on the user turns' labels. The rows of a dialogue must be contiguous,
as in the Hub files; the split in a file's name (train, validation, test) is part of
the ids.

--from text imports plain "Name: text" transcripts: dialogues separated by blank
lines (--separator blank, the default), by a line of exactly SEP (--separator SEP),
or one per file (--separator none); each is parsed as for --from normgenesis. Two
separator lines with nothing between are an empty dialogue (empty_dialogue), so
that source_index counts the file's dialogues.

--from csv (and tsv, or a .tsv file) reads one dialogue per row: the transcript in
the column --text-column COLUMN, parsed as for --from text; --column FIELD=COLUMN
fills culture, lang, category, norm, norm_id, dialogue_type, scenario or situation
from a column; every other column goes to extra under its header name.

--from pact reads PACT trade-off items (for ngpact) from CSV (TSV for .tsv names) or
JSONL / a JSON array, one item per row or object: scenario, culture (or country: a
built-in culture's country becomes the culture, Korea -> korean), actor, receiver,
expectation, preference, follow_option, allow_option, optional human answers as
human: {follow_culture, n} or columns human_follow_culture and human_n (a share, or
a percentage such as 62%), persona: {attr: value} or persona_ATTR columns (age and
gender go to the persona too), id, lang (detected when absent), category, norm; other
fields go to extra. An item without its expectation, preference or options goes to
the errors file with the reason, file and line.

--from messages reads chat datasets: JSONL (or a JSON array) of {"messages":
[{role, content}]} (OpenAI fine-tuning files, Hugging Face chat sets) or ShareGPT's
{"conversations": [{from, value}]}, one dialogue per object, the roles as speakers,
the system message in extra "system".

--from episodes reads ngsim episode specs made elsewhere: JSONL objects, or CSV/TSV
rows under a header (.csv/.tsv, or stdin not starting with '{'), with culture,
lang (default: the culture's), subgroup, domain, goal, opening, and constraints
(a JSON list of texts or {id, text, norm_id, reveal}; in CSV also texts separated
by " | " or newlines, or columns constraint_N, reveal_N, norm_id_N). A spec that is
not valid (2-4 constraints, a goal and an opening that gives none away) goes to the
errors file with its file and line; the others are written.

Lines a parser cannot place are never dropped: they are kept verbatim in
checks.unplaced with the defect unplaced_lines. A text that holds several dialogues
keeps all their turns, in order, with the defect multiple_dialogues;
--split-dialogues writes each as its own record instead (ids from the source id
and the block index, extra "source_block"). --culture, --type, --lang, --category
and --norm set those fields on every imported record (lang defaults to the
culture's language for american, chinese and korean), so ngstats can check them.

--to prosocial writes the dialogues as ProsocialDialog rows (context, response, rots,
safety_label, safety_annotations, safety_annotation_reasons, source, etc, dialogue_id,
response_id, episode_done), one per pair of turns (0-1, 2-3, ...; a last turn without
a reply gets an empty response), labelled by the context turn's safety label, rules-
of-thumb, votes and explanation (nglabel --tasks safety), so they can be mixed with
ProsocialDialog for training. It is the inverse of --from prosocial.

--to messages writes OpenAI chat fine-tuning examples ({"messages": [{role,
content}]}): one per dialogue, or one per assistant turn with --per-turn (the
dialogue up to that turn). --assistant says who is the assistant: first (the first
turn's speaker), second (the first other speaker), a speaker's NAME, or auto (the
default: a speaker named "assistant", else second); everyone else is the user. A
system message comes from --system-template FILE (Go text/template over the record:
{{.Norm}}, {{.Situation}}, {{.Culture}}, ...) or, without it, from a messages
import's own system message. A dialogue where the assistant never speaks makes no
example. It is the inverse of --from messages.

--sample N keeps N records picked by a seeded hash of their ids (the same records
whatever the input order), --split assigns each id to a split deterministically:
with {split} in -o each split goes to its own file, otherwise a "split" field is
added. --explode turns writes one flat row per turn, for analytics.

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
rest of DIR (.gitattributes, .git). Then: huggingface-cli upload USER/NAME DIR . --repo-type dataset
` + ngcatQualityDetails
	p.Examples = `
ngcat --from normgenesis testdata/normgenesis/*.json -o normgenesis.parquet
ngcat normgenesis.parquet --head 3 | jq .turns[0]
ngcat --from prosocial train-00000-of-00001.parquet validation-00000-of-00001.parquet -o prosocial.parquet
ngcat --from text --separator '---' chats/*.txt -o chats.jsonl
ngcat --from csv --text-column Dialogue --culture american --type violation data.csv | ngstats
ngcat --from messages chat.jsonl --culture korean -o chat.parquet
ngcat corpus.jsonl --to messages --assistant second --system-template system.tmpl -o train.jsonl
ngcat labelled.jsonl --to labelstudio --review-config config.xml -o tasks.json
ngcat --from labelstudio export.json -o reviewed.jsonl && ngstats reviewed.jsonl
ngcat labelled.jsonl --to prosocial -o prosocial-rows.parquet
ngcat corpus.jsonl -o corpus.arrows
ngcat corpus.parquet --sample 100 --seed 7 -o sample.jsonl
ngcat corpus.parquet --split train=0.9,test=0.1 -o 'data/{split}.parquet'
ngcat corpus.parquet --explode turns -o turns.parquet
ngcat corpus.parquet --split train=0.9,test=0.1 --hf normgenesis-hf --pretty-name NormGenesis --license cc-by-sa-4.0
ngcat corpus.parquet --shard 0/4 -o part-0.parquet
ngcat corpus.jsonl --where 'dialogue_type == "adherence" && quality.norm >= 4 && checks.lang_ok && len(turns) <= 12' --errors dropped.jsonl -o good.jsonl
ngcat corpus.jsonl --drop-defects any -o clean.jsonl
ngcat corpus.jsonl --dedup near --errors dups.jsonl -o unique.jsonl`
	var quality ngcatQuality
	iof := &p.IO
	iof.Register(p.Flags)
	fs := p.Flags
	from := fs.String("from", "", "import a foreign `FORMAT`: normgenesis (the NormGenesis release JSON), prosocial (ProsocialDialog rows from the Hugging Face Hub), text (\"Name: text\" transcripts), csv or tsv (one transcript per row), messages (chat messages JSONL, OpenAI or ShareGPT), pact (PACT items, CSV or JSONL), episodes (ngsim episode specs, JSONL or CSV), labelstudio or argilla (review exports)")
	separator := fs.String("separator", imports.SeparatorBlank, "with --from text: the dialogues of a file are separated by blank lines (blank), not at all (none: one per file) or by lines of exactly `SEP`")
	culture := fs.String("culture", "", "with --from: the `CULTURE` of every record (--from normgenesis: default from the file name)")
	typ := fs.String("type", "", "with --from: the dialogue `TYPE` of every record, adherence, violation or v2r (--from normgenesis: default from the file name)")
	lang := fs.String("lang", "", "with --from: the `LANG` (BCP-47) of every record (default: the culture's language when known)")
	category := fs.String("category", "", "with --from: the norm `CATEGORY` of every record")
	norm := fs.String("norm", "", "with --from: the `NORM` of every record")
	textColumn := fs.String("text-column", "", "with --from csv or tsv: the `COLUMN` that holds the dialogue text")
	columns := fs.StringArray("column", nil, "with --from csv or tsv: fill a record field from a column, `FIELD=COLUMN` (culture, lang, category, norm, norm_id, dialogue_type, scenario, situation; repeatable)")
	splitDialogues := fs.Bool("split-dialogues", false, "with --from text, csv, tsv or normgenesis: write each dialogue of a text that holds several as its own record")
	perTurn := fs.Bool("per-turn", false, "with --to messages: one example per assistant turn instead of one per dialogue")
	assistant := fs.String("assistant", export.AssistantAuto, "with --to messages: who is the assistant: first, second, auto or a speaker's `NAME`")
	systemTemplate := fs.String("system-template", "", "with --to messages: make the system message from `FILE`, a Go template over the record ({{.Norm}}, {{.Situation}}, ...)")
	head := fs.Int("head", 0, "stop after `N` records")
	sample := fs.Int("sample", 0, "keep `N` records chosen by a seeded hash of their ids, in input order")
	seed := fs.Int64("seed", 1, "`SEED` of --sample")
	split := fs.String("split", "", "assign records to splits by id, e.g. `train=0.9,test=0.1`")
	explode := fs.String("explode", "", "write one flat row per `turns` instead of one per record")
	to := fs.String("to", "", "write rows of a foreign `FORMAT` instead of records: prosocial (ProsocialDialog rows, one per pair of turns), messages (OpenAI chat fine-tuning examples), labelstudio or argilla (review tasks, one per dialogue)")
	hfDir := fs.String("hf", "", "write a Hugging Face dataset folder `DIR`: DIR/data/<split>-0000K-of-0000N.parquet and the dataset card DIR/README.md")
	prettyName := fs.String("pretty-name", "", "with --hf: the dataset's `NAME` on its card (default: the folder's name)")
	license := fs.String("license", "unknown", "with --hf: the licence `ID` on the card, as the Hub names it (cc-by-sa-4.0, apache-2.0, ..., other)")
	licenseName := fs.String("license-name", "", "with --hf --license other: the licence's `NAME` (lower case, digits, '-')")
	licenseLink := fs.String("license-link", "", "with --hf --license other: the `URL` of the licence's text")
	shardMB := fs.Float64("shard-mb", hf.DefaultShardBytes>>20, "with --hf: `MB` of records per Parquet file, uncompressed")
	force := fs.Bool("force", false, "with --hf: replace DIR/data and DIR/README.md if they exist")
	quality.register(fs)
	return p.Run(env, func(b *app.Build) (app.RunSpec, error) {
		args := b.Args
		switch {
		case *head < 0 || *sample < 0:
			return app.RunSpec{}, p.Usagef("--head and --sample take a positive count")
		case *head > 0 && *sample > 0:
			return app.RunSpec{}, p.Usagef("use either --head or --sample, not both")
		case *explode != "" && *explode != "turns":
			return app.RunSpec{}, p.Usagef("--explode %q: only 'turns' can be exploded", *explode)
		case *to != "" && *to != "prosocial" && *to != "messages" && !isReviewTool(*to):
			return app.RunSpec{}, p.Usagef("--to %q: want prosocial, messages, labelstudio or argilla", *to)
		case *to != "messages" && (fs.Changed("per-turn") || fs.Changed("assistant") || fs.Changed("system-template")):
			return app.RunSpec{}, p.Usagef("--per-turn, --assistant and --system-template go with --to messages")
		case *to != "" && (*explode != "" || *hfDir != ""):
			return app.RunSpec{}, p.Usagef("--to goes with neither --explode nor --hf")
		case (*culture != "" || *typ != "" || *lang != "" || *category != "" || *norm != "") && *from == "":
			return app.RunSpec{}, p.Usagef("--culture, --type, --lang, --category and --norm go with --from")
		case (*textColumn != "" || len(*columns) > 0) && *from != "csv" && *from != "tsv":
			return app.RunSpec{}, p.Usagef("--text-column and --column go with --from csv or tsv")
		case *splitDialogues && *from != "text" && *from != "csv" && *from != "tsv" && *from != "normgenesis":
			return app.RunSpec{}, p.Usagef("--split-dialogues goes with --from text, csv, tsv or normgenesis")
		case fs.Changed("separator") && *from != "text":
			return app.RunSpec{}, p.Usagef("--separator goes with --from text")
		case *hfDir != "" && (iof.Output != "" || iof.Format != "" || *explode != ""):
			return app.RunSpec{}, p.Usagef("--hf writes its own files: it goes with neither -o, --format nor --explode")
		case *hfDir == "" && (fs.Changed("pretty-name") || fs.Changed("license") || fs.Changed("license-name") || fs.Changed("license-link") || fs.Changed("shard-mb") || fs.Changed("force")):
			return app.RunSpec{}, p.Usagef("--pretty-name, --license, --license-name, --license-link, --shard-mb and --force go with --hf")
		case *shardMB <= 0:
			return app.RunSpec{}, p.Usagef("--shard-mb takes a positive size")
		case *hfDir != "" && iof.Shard != "" && fs.Changed("shard-mb"):
			return app.RunSpec{}, p.Usagef("--hf with --shard writes one file per split (<split>-0000K-of-0000N.parquet): it takes no --shard-mb")
		}
		if *hfDir != "" {
			if err := hf.CheckLicense(*license, *licenseName, *licenseLink); err != nil {
				return app.RunSpec{}, p.Usagef("%v", err)
			}
		}
		hfShard, _ := pipeline.ParseShard(iof.Shard) // a bad --shard is reported by the runner
		var splits []record.Split
		if *split != "" {
			var err error
			if splits, err = record.ParseSplits(*split); err != nil {
				return app.RunSpec{}, p.Usagef("%v", err)
			}
		}
		format, err := iof.OutputFormat()
		if err != nil {
			return app.RunSpec{}, p.Usagef("%v", err)
		}
		if err := quality.checkReview(fs, *to, format); err != nil {
			return app.RunSpec{}, p.Usagef("%v", err)
		}
		if err := quality.check(fs); err != nil {
			return app.RunSpec{}, p.Usagef("%v", err)
		}
		filter, err := quality.stage()
		if err != nil {
			return app.RunSpec{}, p.Usagef("%v", err)
		}
		fields := imports.Fields{Culture: *culture, Type: *typ, Lang: *lang, Category: *category, Norm: *norm}
		if err := fields.Check(); err != nil {
			return app.RunSpec{}, p.Usagef("%v", err)
		}
		spec := app.RunSpec{Inputs: args}
		switch *from {
		case "":
		case "normgenesis":
			src, err := imports.NewNormGenesis(args, imports.NormGenesisOptions{Fields: fields, Stdin: env.Stdin})
			if err != nil {
				return app.RunSpec{}, p.Usagef("%v", err)
			}
			spec.Source = src
		case "prosocial":
			spec.Source = imports.NewProsocial(args, imports.ProsocialOptions{Fields: fields, Stdin: env.Stdin})
		case "text":
			src, err := imports.NewText(args, imports.TextOptions{Separator: *separator, Fields: fields, Stdin: env.Stdin})
			if err != nil {
				return app.RunSpec{}, p.Usagef("%v", err)
			}
			spec.Source = src
		case "csv", "tsv":
			opt := imports.CSVOptions{TextColumn: *textColumn, Columns: map[string]string{}, TSV: *from == "tsv", Fields: fields, Stdin: env.Stdin}
			for _, c := range *columns {
				f, col, ok := strings.Cut(c, "=")
				if !ok || f == "" || col == "" {
					return app.RunSpec{}, p.Usagef("--column %q: want FIELD=COLUMN", c)
				}
				opt.Columns[strings.TrimSpace(f)] = col
			}
			src, err := imports.NewCSV(args, opt)
			if err != nil {
				return app.RunSpec{}, p.Usagef("%v", err)
			}
			spec.Source = src
		case "messages":
			spec.Source = imports.NewMessages(args, imports.MessagesOptions{Fields: fields, Stdin: env.Stdin})
		case "pact":
			spec.Source = imports.NewPact(args, imports.PactOptions{Fields: fields, Stdin: env.Stdin})
		case "episodes":
			spec.Source = imports.NewEpisodes(args, imports.EpisodesOptions{Fields: fields, Stdin: env.Stdin})
		case review.ToolLabelStudio, review.ToolArgilla:
			src := review.NewLabelStudio(args, env.Stdin)
			if *from == review.ToolArgilla {
				src = review.NewArgilla(args, env.Stdin)
			}
			spec.Source = src
			// What the import left out (Argilla drafts, ...), before the last line.
			spec.Finish = func() error {
				if iof.Quiet {
					return nil
				}
				for _, n := range src.Notes() {
					fmt.Fprintf(env.Stderr, "%s: %s\n", p.Name, n)
				}
				return nil
			}
		default:
			return app.RunSpec{}, p.Usagef("--from %q: want normgenesis, prosocial, text, csv, tsv, messages, pact, episodes, labelstudio or argilla", *from)
		}
		if *splitDialogues {
			spec.Stage = imports.SplitDialogues
		}
		if *from == "pact" {
			spec.Stage = imports.CheckPactItems
		}
		// --where, --drop-defects: on each dialogue, after the split.
		spec.Stage = chain(spec.Stage, filter)
		var msgOpt export.MessagesOptions
		if *to == "messages" {
			msgOpt = export.MessagesOptions{PerTurn: *perTurn, Assistant: *assistant}
			if *systemTemplate != "" {
				b, err := os.ReadFile(*systemTemplate)
				if err != nil {
					return app.RunSpec{}, p.Usagef("--system-template: %v", err)
				}
				if msgOpt.System, err = export.ParseSystemTemplate(*systemTemplate, string(b)); err != nil {
					return app.RunSpec{}, p.Usagef("%v", err)
				}
			}
		}
		var warnOnce sync.Once
		templateFailed := func(rec *record.Record, err error) {
			warnOnce.Do(func() {
				fmt.Fprintf(env.Stderr, "ngcat: %s: %s (no example written; further failures not shown)\n", record.PrintableLine(rec.ID), record.PrintableLine(err.Error()))
			})
		}

		// One output file (or stdout) as records or exploded turns.
		open := func(path string) (pipeline.Sink, error) {
			out, err := recio.Create(path, format, env.Stdout)
			if err != nil {
				return nil, err
			}
			if *explode != "" {
				return pipeline.NewRowSink(out, iof.WriteOptions(), record.Explode)
			}
			if *to == "prosocial" {
				return pipeline.NewRowSink(out, iof.WriteOptions(), export.Prosocial)
			}
			if *to == "messages" {
				return pipeline.NewRowSink(out, iof.WriteOptions(), export.Messages(msgOpt, templateFailed))
			}
			if isReviewTool(*to) {
				return quality.reviewSink(*to, out)
			}
			return pipeline.NewRecordSink(out, iof.WriteOptions())
		}
		// The card's statistics: records are audited on the workers, except
		// with --sample, where most records never reach the card (and the
		// copies left by the stage would pile up).
		summary := stats.NewCardSummary()
		if *hfDir != "" && *sample == 0 {
			spec.Stage = chain(spec.Stage, summary.Stage())
		}
		spec.Sink = func() (pipeline.Sink, error) {
			var sink pipeline.Sink
			switch {
			case *hfDir != "":
				w, err := hf.New(hf.Options{
					Dir: *hfDir, Splits: splits, ShardBytes: int64(*shardMB * (1 << 20)),
					Write: iof.WriteOptions(), Force: *force,
					Card:  hf.CardInfo{PrettyName: *prettyName, License: *license, LicenseName: *licenseName, LicenseLink: *licenseLink},
					Shard: hfShard.K, Of: hfShard.N,
					Summary: summary,
				})
				if err != nil {
					return nil, err
				}
				sink = w
			case len(splits) > 0 && strings.Contains(iof.Output, "{split}"):
				files := &cat.SplitFiles{Splits: splits, Sinks: map[string]pipeline.Sink{}}
				for _, sp := range splits {
					s, err := open(strings.ReplaceAll(iof.Output, "{split}", sp.Name))
					if err != nil {
						files.Abort()
						return nil, err
					}
					files.Sinks[sp.Name] = s
				}
				sink = files
			default:
				s, err := open(iof.Output)
				if err != nil {
					return nil, err
				}
				sink = s
				if len(splits) > 0 {
					sink = &cat.SplitField{Sink: sink, Splits: splits}
				}
			}
			switch {
			case *sample > 0:
				sink = &cat.Sample{Sink: sink, N: *sample, Seed: *seed}
			case *head > 0:
				sink = &cat.Head{Sink: sink, N: *head}
			}
			return quality.sink(sink), nil
		}
		if strings.Contains(iof.Output, "{split}") && len(splits) == 0 {
			return app.RunSpec{}, p.Usagef("-o %q has {split} but no --split was given", iof.Output)
		}
		return spec, nil
	})
}
