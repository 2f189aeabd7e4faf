package cli

import (
	"errors"
	"fmt"

	"github.com/ngkit/ngkit/cmd/internal/app"
	"github.com/ngkit/ngkit/filters/hf"
	"github.com/ngkit/ngkit/filters/imports"
	"github.com/spf13/pflag"
)

// ngcatOptions are ngcat's own flags (app.Options): Register adds them in
// --help's order, Check refuses the combinations that cannot make a run,
// one concern per method, in the order ngcat has always reported them.
type ngcatOptions struct {
	from           string
	culture        string
	typ            string
	lang           string
	category       string
	norm           string
	splitDialogues bool
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

	// fromFlags and toFlags are the formats' own flags, by entry, and
	// fromTakes and toTakes the names of the flags each format name takes.
	fromFlags, toFlags map[string]formatFlags
	fromTakes, toTakes map[string][]string

	io *app.IOFlags
	fs *pflag.FlagSet
}

// Register adds ngcat's flags to fs: --from, the record fields and each
// importer's flags; the selections; --to and each exporter's; --hf and
// its.
func (o *ngcatOptions) Register(fs *pflag.FlagSet) {
	o.fs = fs
	var names, about [][]string
	var splitters []string // the importers that take --split-dialogues
	for _, im := range importers {
		names, about = append(names, im.Names), append(about, []string{im.About})
		if im.SplitDialogues {
			splitters = append(splitters, im.Names...)
		}
	}
	fs.StringVar(&o.from, "from", "", "import a foreign `FORMAT`: "+formatList(names, flat(about)))
	fs.StringVar(&o.culture, "culture", "", "with --from: the `CULTURE` of every record (--from normgenesis: default from the file name)")
	fs.StringVar(&o.typ, "type", "", "with --from: the dialogue `TYPE` of every record, adherence, violation or v2r (--from normgenesis: default from the file name)")
	fs.StringVar(&o.lang, "lang", "", "with --from: the `LANG` (BCP-47) of every record (default: the culture's language when known)")
	fs.StringVar(&o.category, "category", "", "with --from: the norm `CATEGORY` of every record")
	fs.StringVar(&o.norm, "norm", "", "with --from: the `NORM` of every record")
	fs.BoolVar(&o.splitDialogues, "split-dialogues", false, "with --from "+orList(splitters, "or")+": write each dialogue of a text that holds several as its own record")
	o.fromFlags, o.fromTakes = map[string]formatFlags{}, map[string][]string{}
	for i := range importers {
		im := importers[i]
		takes := registerFormat(fs, im.Flags, im.Names[0], o.fromFlags)
		if im.SplitDialogues {
			takes = append(takes, "split-dialogues")
		}
		for _, n := range im.Names {
			o.fromTakes[n] = takes
		}
	}
	fs.IntVar(&o.head, "head", 0, "stop after `N` records")
	fs.IntVar(&o.sample, "sample", 0, "keep `N` records chosen by a seeded hash of their ids, in input order")
	fs.Int64Var(&o.seed, "seed", 1, "`SEED` of --sample")
	fs.StringVar(&o.split, "split", "", "assign records to splits by id, e.g. `train=0.9,test=0.1`")
	fs.StringVar(&o.explode, "explode", "", "write one flat row per `turns` instead of one per record")
	names, about = nil, nil
	for _, ex := range exporters {
		names, about = append(names, ex.Names), append(about, []string{ex.About})
	}
	fs.StringVar(&o.to, "to", "", "write rows of a foreign `FORMAT` instead of records: "+formatList(names, flat(about)))
	o.toFlags, o.toTakes = map[string]formatFlags{}, map[string][]string{}
	for i := range exporters {
		ex := exporters[i]
		takes := registerFormat(fs, ex.Flags, ex.Names[0], o.toFlags)
		for _, n := range ex.Names {
			o.toTakes[n] = takes
		}
	}
	fs.StringVar(&o.hfDir, "hf", "", "write a Hugging Face dataset folder `DIR`: DIR/data/<split>-0000K-of-0000N.parquet and the dataset card DIR/README.md")
	fs.StringVar(&o.prettyName, "pretty-name", "", "with --hf: the dataset's `NAME` on its card (default: the folder's name)")
	fs.StringVar(&o.license, "license", "unknown", "with --hf: the licence `ID` on the card, as the Hub names it (cc-by-sa-4.0, apache-2.0, ..., other)")
	fs.StringVar(&o.licenseName, "license-name", "", "with --hf --license other: the licence's `NAME` (lower case, digits, '-')")
	fs.StringVar(&o.licenseLink, "license-link", "", "with --hf --license other: the `URL` of the licence's text")
	fs.Float64Var(&o.shardMB, "shard-mb", hf.DefaultShardBytes>>20, "with --hf: `MB` of records per Parquet file, uncompressed")
	fs.BoolVar(&o.force, "force", false, "with --hf: replace DIR/data and DIR/README.md if they exist")
}

// registerFormat makes a format's own flags (none when mk is nil), adds
// them to fs, keeps them in made under the entry's key, and returns their
// names.
func registerFormat(fs *pflag.FlagSet, mk func() formatFlags, key string, made map[string]formatFlags) []string {
	if mk == nil {
		return nil
	}
	f := mk()
	own := pflag.NewFlagSet("", pflag.ContinueOnError)
	own.SortFlags = false // as they are registered, in help too
	f.Register(own)
	var names []string
	own.VisitAll(func(fl *pflag.Flag) { names = append(names, fl.Name) })
	fs.AddFlagSet(own)
	made[key] = f
	return names
}

// flat is the one-word lists' words.
func flat(lists [][]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
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

// checkTo: --to names an exporter, its flags go with it and are read.
func (o *ngcatOptions) checkTo() error {
	names := exporterNames()
	if o.to != "" && findExporter(o.to) == nil {
		return fmt.Errorf("--to %q: want %s", o.to, orList(names, "or"))
	}
	if err := onlyWith("--to", o.to, names, takes(names, o.toTakes), o.fs.Changed); err != nil {
		return err
	}
	if o.to != "" && (o.explode != "" || o.hfDir != "") {
		return errors.New("--to goes with neither --explode nor --hf")
	}
	if ex := findExporter(o.to); ex != nil && o.toFlags[ex.Names[0]] != nil {
		return o.toFlags[ex.Names[0]].Check()
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
	names := importerNames()
	if err := onlyWith("--from", o.from, names, takes(names, o.fromTakes), o.fs.Changed); err != nil {
		return err
	}
	if im := findImporter(o.from); im != nil && o.fromFlags[im.Names[0]] != nil {
		return o.fromFlags[im.Names[0]].Check()
	}
	return nil
}

// takes is, per name, the flags it takes.
func takes(names []string, by map[string][]string) [][]string {
	out := make([][]string, len(names))
	for i, n := range names {
		out[i] = by[n]
	}
	return out
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
