package cli

import (
	"errors"
	"fmt"

	"github.com/ngkit/ngkit/cmd/internal/app"
	"github.com/ngkit/ngkit/filters/export"
	"github.com/ngkit/ngkit/filters/hf"
	"github.com/ngkit/ngkit/filters/imports"
	"github.com/spf13/pflag"
)

// ngcatOptions are ngcat's own flags (app.Options): Register adds them in
// --help's order, Check refuses the combinations that cannot make a run,
// one concern per method, in the order ngcat has always reported them.
type ngcatOptions struct {
	from           string
	separator      string
	culture        string
	typ            string
	lang           string
	category       string
	norm           string
	textColumn     string
	columns        []string
	splitDialogues bool
	perTurn        bool
	assistant      string
	systemTemplate string
	head           int
	sample         int
	seed           int64
	split          string
	explode        string
	to             string
	hfDir          string
	prettyName     string
	license        string
	licenseName    string
	licenseLink    string
	shardMB        float64
	force          bool

	io *app.IOFlags
	fs *pflag.FlagSet
}

// Register adds ngcat's flags to fs.
func (o *ngcatOptions) Register(fs *pflag.FlagSet) {
	o.fs = fs
	fs.StringVar(&o.from, "from", "", "import a foreign `FORMAT`: normgenesis (the NormGenesis release JSON), prosocial (ProsocialDialog rows from the Hugging Face Hub), text (\"Name: text\" transcripts), csv or tsv (one transcript per row), messages (chat messages JSONL, OpenAI or ShareGPT), pact (PACT items, CSV or JSONL), episodes (ngsim episode specs, JSONL or CSV), labelstudio or argilla (review exports)")
	fs.StringVar(&o.separator, "separator", imports.SeparatorBlank, "with --from text: the dialogues of a file are separated by blank lines (blank), not at all (none: one per file) or by lines of exactly `SEP`")
	fs.StringVar(&o.culture, "culture", "", "with --from: the `CULTURE` of every record (--from normgenesis: default from the file name)")
	fs.StringVar(&o.typ, "type", "", "with --from: the dialogue `TYPE` of every record, adherence, violation or v2r (--from normgenesis: default from the file name)")
	fs.StringVar(&o.lang, "lang", "", "with --from: the `LANG` (BCP-47) of every record (default: the culture's language when known)")
	fs.StringVar(&o.category, "category", "", "with --from: the norm `CATEGORY` of every record")
	fs.StringVar(&o.norm, "norm", "", "with --from: the `NORM` of every record")
	fs.StringVar(&o.textColumn, "text-column", "", "with --from csv or tsv: the `COLUMN` that holds the dialogue text")
	fs.StringArrayVar(&o.columns, "column", nil, "with --from csv or tsv: fill a record field from a column, `FIELD=COLUMN` (culture, lang, category, norm, norm_id, dialogue_type, scenario, situation; repeatable)")
	fs.BoolVar(&o.splitDialogues, "split-dialogues", false, "with --from text, csv, tsv or normgenesis: write each dialogue of a text that holds several as its own record")
	fs.BoolVar(&o.perTurn, "per-turn", false, "with --to messages: one example per assistant turn instead of one per dialogue")
	fs.StringVar(&o.assistant, "assistant", export.AssistantAuto, "with --to messages: who is the assistant: first, second, auto or a speaker's `NAME`")
	fs.StringVar(&o.systemTemplate, "system-template", "", "with --to messages: make the system message from `FILE`, a Go template over the record ({{.Norm}}, {{.Situation}}, ...)")
	fs.IntVar(&o.head, "head", 0, "stop after `N` records")
	fs.IntVar(&o.sample, "sample", 0, "keep `N` records chosen by a seeded hash of their ids, in input order")
	fs.Int64Var(&o.seed, "seed", 1, "`SEED` of --sample")
	fs.StringVar(&o.split, "split", "", "assign records to splits by id, e.g. `train=0.9,test=0.1`")
	fs.StringVar(&o.explode, "explode", "", "write one flat row per `turns` instead of one per record")
	fs.StringVar(&o.to, "to", "", "write rows of a foreign `FORMAT` instead of records: prosocial (ProsocialDialog rows, one per pair of turns), messages (OpenAI chat fine-tuning examples), labelstudio or argilla (review tasks, one per dialogue)")
	fs.StringVar(&o.hfDir, "hf", "", "write a Hugging Face dataset folder `DIR`: DIR/data/<split>-0000K-of-0000N.parquet and the dataset card DIR/README.md")
	fs.StringVar(&o.prettyName, "pretty-name", "", "with --hf: the dataset's `NAME` on its card (default: the folder's name)")
	fs.StringVar(&o.license, "license", "unknown", "with --hf: the licence `ID` on the card, as the Hub names it (cc-by-sa-4.0, apache-2.0, ..., other)")
	fs.StringVar(&o.licenseName, "license-name", "", "with --hf --license other: the licence's `NAME` (lower case, digits, '-')")
	fs.StringVar(&o.licenseLink, "license-link", "", "with --hf --license other: the `URL` of the licence's text")
	fs.Float64Var(&o.shardMB, "shard-mb", hf.DefaultShardBytes>>20, "with --hf: `MB` of records per Parquet file, uncompressed")
	fs.BoolVar(&o.force, "force", false, "with --hf: replace DIR/data and DIR/README.md if they exist")
}

// Check runs the checks of each concern.
func (o *ngcatOptions) Check() error {
	for _, check := range []func() error{o.checkSelect, o.checkTo, o.checkFrom, o.checkHF} {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

// checkSelect: --head, --sample and --explode.
func (o *ngcatOptions) checkSelect() error {
	switch {
	case o.head < 0 || o.sample < 0:
		return errors.New("--head and --sample take a positive count")
	case o.head > 0 && o.sample > 0:
		return errors.New("use either --head or --sample, not both")
	case o.explode != "" && o.explode != "turns":
		return fmt.Errorf("--explode %q: only 'turns' can be exploded", o.explode)
	}
	return nil
}

// checkTo: --to names an exporter, its flags go with it.
func (o *ngcatOptions) checkTo() error {
	var names []string
	var takes [][]string
	for _, ex := range exporters {
		names, takes = append(names, ex.Name), append(takes, ex.Flags)
	}
	if o.to != "" && findExporter(o.to) == nil {
		return fmt.Errorf("--to %q: want %s", o.to, orList(names, "or"))
	}
	if err := onlyWith("--to", o.to, names, takes, o.fs.Changed); err != nil {
		return err
	}
	if o.to != "" && (o.explode != "" || o.hfDir != "") {
		return errors.New("--to goes with neither --explode nor --hf")
	}
	return nil
}

// checkFrom: the record fields go with any --from, the other flags with
// the importers that take them. An unknown --from is reported by the build
// (after the output checks), as before.
func (o *ngcatOptions) checkFrom() error {
	if (o.culture != "" || o.typ != "" || o.lang != "" || o.category != "" || o.norm != "") && o.from == "" {
		return errors.New("--culture, --type, --lang, --category and --norm go with --from")
	}
	var names []string
	var takes [][]string
	for _, im := range importers {
		names, takes = append(names, im.Name), append(takes, im.Flags)
	}
	return onlyWith("--from", o.from, names, takes, o.fs.Changed)
}

// checkHF: --hf writes its own files; its flags go with it.
func (o *ngcatOptions) checkHF() error {
	switch {
	case o.hfDir != "" && (o.io.Output != "" || o.io.Format != "" || o.explode != ""):
		return errors.New("--hf writes its own files: it goes with neither -o, --format nor --explode")
	case o.hfDir == "":
		for _, f := range hfSink.Flags {
			if o.fs.Changed(f) {
				return fmt.Errorf("%s go with --hf", orList(dashed(hfSink.Flags), "and"))
			}
		}
	}
	switch {
	case o.shardMB <= 0:
		return errors.New("--shard-mb takes a positive size")
	case o.hfDir != "" && o.io.Shard != "" && o.fs.Changed("shard-mb"):
		return errors.New("--hf with --shard writes one file per split (<split>-0000K-of-0000N.parquet): it takes no --shard-mb")
	case o.hfDir != "":
		return hf.CheckLicense(o.license, o.licenseName, o.licenseLink)
	}
	return nil
}

// fields are the record fields every imported record gets.
func (o *ngcatOptions) fields() imports.Fields {
	return imports.Fields{Culture: o.culture, Type: o.typ, Lang: o.lang, Category: o.category, Norm: o.norm}
}

// dashed is the flags' names with their dashes.
func dashed(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "--" + n
	}
	return out
}
