package cli

import (
	"strings"

	"github.com/ngkit/ngkit/filters/cat"
	"github.com/ngkit/ngkit/filters/export"
	"github.com/ngkit/ngkit/filters/hf"
	"github.com/ngkit/ngkit/filters/imports"
	"github.com/ngkit/ngkit/filters/stats"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/recio"
	"github.com/ngkit/ngkit/pkg/record"
)

// Ngcat converts between formats, imports foreign datasets and samples,
// splits and explodes record streams.
func Ngcat(env pipeline.Env) int {
	p := pipeline.NewProgram("ngcat", "convert, import, sample, split and explode ngkit record streams", "[flags] [FILE...]")
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
or one per file (--separator none); each is parsed as for --from normgenesis.

--to prosocial writes the dialogues as ProsocialDialog rows (context, response, rots,
safety_label, safety_annotations, safety_annotation_reasons, source, etc, dialogue_id,
response_id, episode_done), one per pair of turns (0-1, 2-3, ...; a last turn without
a reply gets an empty response), labelled by the context turn's safety label, rules-
of-thumb, votes and explanation (nglabel --tasks safety), so they can be mixed with
ProsocialDialog for training. It is the inverse of --from prosocial.

--sample N keeps N records picked by a seeded hash of their ids (the same records
whatever the input order), --split assigns each id to a split deterministically:
with {split} in -o each split goes to its own file, otherwise a "split" field is
added. --explode turns writes one flat row per turn, for analytics.

--hf DIR writes a Hugging Face dataset folder: DIR/data/<split>-0000K-of-0000N.parquet
(one split, train, or those of --split) and DIR/README.md, the dataset card (licence,
languages, size category, the files of each split, the features, read from the
Parquet schema) with a description. Each file holds about --shard-mb MB of records
(uncompressed, as datasets' push_to_hub counts), in row groups of --row-group-mb.
Label distributions and other maps are lists of {key, value}, as in every ngkit
Parquet file: the datasets library cannot load Parquet maps. --license must be a Hub
licence id (other needs --license-name and --license-link). With --shard K/N each
split goes to one file, <split>-0000K-of-0000N.parquet, so that N machines' data/
folders copied together are one dataset; ngstats DIR/data/*.parquet --card then
writes the card of the whole. The folder is built beside DIR and moved
in at the end, so DIR never holds half an export; a non-empty DIR/data or an
existing DIR/README.md is refused unless --force, which replaces both and keeps the
rest of DIR (.gitattributes, .git). Then: huggingface-cli upload USER/NAME DIR . --repo-type dataset`
	p.Examples = `
ngcat --from normgenesis ../shared/data/normgenesis/*.json -o normgenesis.parquet
ngcat normgenesis.parquet --head 3 | jq .turns[0]
ngcat --from prosocial train-00000-of-00001.parquet validation-00000-of-00001.parquet -o prosocial.parquet
ngcat --from text --separator '---' chats/*.txt -o chats.jsonl
ngcat labelled.jsonl --to prosocial -o prosocial-rows.parquet
ngcat corpus.jsonl -o corpus.arrows
ngcat corpus.parquet --sample 100 --seed 7 -o sample.jsonl
ngcat corpus.parquet --split train=0.9,test=0.1 -o 'data/{split}.parquet'
ngcat corpus.parquet --explode turns -o turns.parquet
ngcat corpus.parquet --split train=0.9,test=0.1 --hf normgenesis-hf --pretty-name NormGenesis --license cc-by-sa-4.0
ngcat corpus.parquet --shard 0/4 -o part-0.parquet`
	var iof pipeline.IOFlags
	iof.Register(p.Flags)
	fs := p.Flags
	from := fs.String("from", "", "import a foreign `FORMAT`: normgenesis (the NormGenesis release JSON), prosocial (ProsocialDialog rows from the Hugging Face Hub), text (\"Name: text\" transcripts)")
	separator := fs.String("separator", imports.SeparatorBlank, "with --from text: the dialogues of a file are separated by blank lines (blank), not at all (none: one per file) or by lines of exactly `SEP`")
	culture := fs.String("culture", "", "with --from normgenesis: the `CULTURE` of the input (default: from the file name)")
	typ := fs.String("type", "", "with --from normgenesis: the dialogue `TYPE`, adherence, violation or v2r (default: from the file name)")
	head := fs.Int("head", 0, "stop after `N` records")
	sample := fs.Int("sample", 0, "keep `N` records chosen by a seeded hash of their ids, in input order")
	seed := fs.Int64("seed", 1, "`SEED` of --sample")
	split := fs.String("split", "", "assign records to splits by id, e.g. `train=0.9,test=0.1`")
	explode := fs.String("explode", "", "write one flat row per `turns` instead of one per record")
	to := fs.String("to", "", "write rows of a foreign `FORMAT` instead of records: prosocial (ProsocialDialog rows, one per pair of turns)")
	hfDir := fs.String("hf", "", "write a Hugging Face dataset folder `DIR`: DIR/data/<split>-0000K-of-0000N.parquet and the dataset card DIR/README.md")
	prettyName := fs.String("pretty-name", "", "with --hf: the dataset's `NAME` on its card (default: the folder's name)")
	license := fs.String("license", "unknown", "with --hf: the licence `ID` on the card, as the Hub names it (cc-by-sa-4.0, apache-2.0, ..., other)")
	licenseName := fs.String("license-name", "", "with --hf --license other: the licence's `NAME` (lower case, digits, '-')")
	licenseLink := fs.String("license-link", "", "with --hf --license other: the `URL` of the licence's text")
	shardMB := fs.Float64("shard-mb", hf.DefaultShardBytes>>20, "with --hf: `MB` of records per Parquet file, uncompressed")
	force := fs.Bool("force", false, "with --hf: replace DIR/data and DIR/README.md if they exist")
	args, code, ok := p.Parse(env)
	if !ok {
		return code
	}
	switch {
	case *head < 0 || *sample < 0:
		return p.Usagef(env, "--head and --sample take a positive count")
	case *head > 0 && *sample > 0:
		return p.Usagef(env, "use either --head or --sample, not both")
	case *explode != "" && *explode != "turns":
		return p.Usagef(env, "--explode %q: only 'turns' can be exploded", *explode)
	case *to != "" && *to != "prosocial":
		return p.Usagef(env, "--to %q: want prosocial", *to)
	case *to != "" && (*explode != "" || *hfDir != ""):
		return p.Usagef(env, "--to goes with neither --explode nor --hf")
	case (*culture != "" || *typ != "") && *from != "normgenesis":
		return p.Usagef(env, "--culture and --type go with --from normgenesis")
	case fs.Changed("separator") && *from != "text":
		return p.Usagef(env, "--separator goes with --from text")
	case *hfDir != "" && (iof.Output != "" || iof.Format != "" || *explode != ""):
		return p.Usagef(env, "--hf writes its own files: it goes with neither -o, --format nor --explode")
	case *hfDir == "" && (fs.Changed("pretty-name") || fs.Changed("license") || fs.Changed("license-name") || fs.Changed("license-link") || fs.Changed("shard-mb") || fs.Changed("force")):
		return p.Usagef(env, "--pretty-name, --license, --license-name, --license-link, --shard-mb and --force go with --hf")
	case *shardMB <= 0:
		return p.Usagef(env, "--shard-mb takes a positive size")
	case *hfDir != "" && iof.Shard != "" && fs.Changed("shard-mb"):
		return p.Usagef(env, "--hf with --shard writes one file per split (<split>-0000K-of-0000N.parquet): it takes no --shard-mb")
	}
	if *hfDir != "" {
		if err := hf.CheckLicense(*license, *licenseName, *licenseLink); err != nil {
			return p.Usagef(env, "%v", err)
		}
	}
	hfShard, _ := pipeline.ParseShard(iof.Shard) // a bad --shard is reported by the runner
	var splits []cat.Split
	if *split != "" {
		var err error
		if splits, err = cat.ParseSplits(*split); err != nil {
			return p.Usagef(env, "%v", err)
		}
	}
	format, err := iof.OutputFormat()
	if err != nil {
		return p.Usagef(env, "%v", err)
	}
	spec := pipeline.RunSpec{Inputs: args}
	switch *from {
	case "":
	case "normgenesis":
		src, err := imports.NewNormGenesis(args, imports.NormGenesisOptions{Culture: *culture, Type: *typ, Stdin: env.Stdin})
		if err != nil {
			return p.Usagef(env, "%v", err)
		}
		spec.Source = src
	case "prosocial":
		spec.Source = imports.NewProsocial(args, imports.ProsocialOptions{Stdin: env.Stdin})
	case "text":
		src, err := imports.NewText(args, imports.TextOptions{Separator: *separator, Stdin: env.Stdin})
		if err != nil {
			return p.Usagef(env, "%v", err)
		}
		spec.Source = src
	default:
		return p.Usagef(env, "--from %q: want normgenesis, prosocial or text", *from)
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
		return pipeline.NewRecordSink(out, iof.WriteOptions())
	}
	// The card's statistics: records are audited on the workers, except
	// with --sample, where most records never reach the card (and the
	// copies left by the stage would pile up).
	summary := stats.NewCardSummary()
	if *hfDir != "" && *sample == 0 {
		spec.Stage = summary.Stage()
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
		return sink, nil
	}
	if strings.Contains(iof.Output, "{split}") && len(splits) == 0 {
		return p.Usagef(env, "-o %q has {split} but no --split was given", iof.Output)
	}
	return iof.Execute(env, p.Name, spec)
}
