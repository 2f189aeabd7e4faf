package cli

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/ngkit/ngkit/cmd/internal/app"
	"github.com/ngkit/ngkit/filters/cat"
	"github.com/ngkit/ngkit/filters/imports"
	"github.com/ngkit/ngkit/filters/stats/render"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/recio"
	"github.com/ngkit/ngkit/pkg/record"
)

// Ngcat converts between formats, imports foreign datasets and samples,
// splits and explodes record streams.
func Ngcat(env app.Env) error {
	p := app.NewProgram("ngcat", "convert, import, sample, split and explode ngkit record streams", "[flags] [FILE...]")
	p.Details = Help("ngcat")
	p.Sections = ngcatSections()
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
	p.Sections = ngcatSections()
	iof := &p.IO
	iof.Register(p.Flags)
	o := &ngcatOptions{io: iof}
	quality := &ngcatQuality{}
	p.AddOptions(o, quality)
	return p.Run(env, func(b *app.Build) (app.RunSpec, error) {
		return ngcatRun(p, b, o, quality)
	})
}

// ngcatRun builds ngcat's run from its options: the importer's source,
// the stages, and the sink (an exporter's, the --hf folder's, or records).
func ngcatRun(p *app.Program, b *app.Build, o *ngcatOptions, quality *ngcatQuality) (app.RunSpec, error) {
	env, iof := b.Env, &p.IO
	hfShard, _ := pipeline.ParseShard(iof.Shard) // a bad --shard is reported by the runner
	var splits []record.Split
	if o.split != "" {
		var err error
		if splits, err = record.ParseSplits(o.split); err != nil {
			return app.RunSpec{}, err
		}
	}
	format, err := iof.OutputFormat()
	if err != nil {
		return app.RunSpec{}, err
	}
	if err := quality.checkReview(o.to, format); err != nil {
		return app.RunSpec{}, err
	}
	filter, err := quality.stage()
	if err != nil {
		return app.RunSpec{}, err
	}
	spec := app.RunSpec{Inputs: b.Args}
	if o.from != "" {
		if err := ngcatImport(p, b, o, &spec); err != nil {
			return app.RunSpec{}, err
		}
	}
	// --where, --drop-defects: on each dialogue, after the split.
	spec.Stage = chain(spec.Stage, filter)
	if quality.dropDefects != "" {
		notes := spec.Finish
		spec.Finish = func() error {
			if notes != nil {
				if err := notes(); err != nil {
					return err
				}
			}
			if n := quality.repaired.note(); n != "" && !iof.Quiet {
				fmt.Fprintf(env.Stderr, "%s: %s\n", p.Name, n)
			}
			return nil
		}
	}
	out := ngcatOut{p: p, env: env, o: o, quality: quality, splits: splits, format: format}
	out.ex = exportIn{Name: o.to, Write: iof.WriteOptions(), Quality: quality}
	if e := findExporter(o.to); e != nil {
		out.ex.Flags = o.toFlags[e.Names[0]]
	}
	var warnOnce sync.Once
	out.ex.Warn = func(rec *record.Record, err error) {
		warnOnce.Do(func() {
			fmt.Fprintf(env.Stderr, "ngcat: %s: %s (no example written; further failures not shown)\n", record.PrintableLine(rec.ID), record.PrintableLine(err.Error()))
		})
	}
	// The card's statistics: records are audited on the workers, except
	// with --sample, where most records never reach the card (and the
	// copies left by the stage would pile up).
	summary := render.NewCardSummary()
	if o.hfDir != "" && o.sample == 0 {
		spec.Stage = chain(spec.Stage, summary.Stage())
	}
	spec.Sink = func() (pipeline.Sink, error) { return out.sink(hfShard, summary) }
	if strings.Contains(iof.Output, "{split}") && len(splits) == 0 {
		return app.RunSpec{}, fmt.Errorf("-o %q has {split} but no --split was given", iof.Output)
	}
	return spec, nil
}

// ngcatImport sets the spec's source, notes and stage of --from.
func ngcatImport(p *app.Program, b *app.Build, o *ngcatOptions, spec *app.RunSpec) error {
	env, iof := b.Env, &p.IO
	im := findImporter(o.from)
	if im == nil {
		return fmt.Errorf("--from %q: want %s", o.from, orList(importerNames(), "or"))
	}
	in := importIn{Name: o.from, Args: b.Args, Stdin: env.Stdin, Fields: o.fields(), Flags: o.fromFlags[im.Names[0]]}
	src, err := im.New(in)
	if err != nil {
		return err
	}
	spec.Source = src
	if n, ok := src.(notes); ok {
		// What the import left out (Argilla drafts, ...), before the last line.
		spec.Finish = func() error {
			if iof.Quiet {
				return nil
			}
			for _, line := range n.Notes() {
				fmt.Fprintf(env.Stderr, "%s: %s\n", p.Name, line)
			}
			return nil
		}
	}
	if o.splitDialogues {
		spec.Stage = imports.SplitDialogues
	}
	if im.Stage != nil {
		spec.Stage = im.Stage(in)
	}
	return nil
}

// ngcatOut is what ngcat's output is made of: the files (one, or one per
// split, or the --hf folder) and what writes them (records, exploded
// turns, an exporter's rows), cut by --sample or --head.
type ngcatOut struct {
	p       *app.Program
	env     app.Env
	o       *ngcatOptions
	quality *ngcatQuality
	splits  []record.Split
	format  recio.Format
	ex      exportIn
}

// open is one output file (or stdout) as records, exploded turns or an
// exporter's rows.
func (n ngcatOut) open(path string) (pipeline.Sink, error) {
	iof := &n.p.IO
	out, err := recio.Create(path, n.format, n.env.Stdout)
	if err != nil {
		return nil, err
	}
	switch {
	case n.o.explode != "":
		return pipeline.NewRowSink(out, iof.WriteOptions(), record.Explode)
	case n.o.to != "":
		return findExporter(n.o.to).New(out, n.ex)
	}
	return pipeline.NewRecordSink(out, iof.WriteOptions())
}

// sink is the run's sink.
func (n ngcatOut) sink(hfShard pipeline.Shard, summary *render.CardSummary) (pipeline.Sink, error) {
	o, iof, splits := n.o, &n.p.IO, n.splits
	var sink pipeline.Sink
	switch {
	case o.hfDir != "":
		w, err := hfSink.New(o, splits, iof.WriteOptions(), hfShard, summary)
		if err != nil {
			return nil, err
		}
		sink = w
	case len(splits) > 0 && strings.Contains(iof.Output, "{split}"):
		files := &cat.SplitFiles{Splits: splits, Sinks: map[string]pipeline.Sink{}}
		for _, sp := range splits {
			s, err := n.open(strings.ReplaceAll(iof.Output, "{split}", sp.Name))
			if err != nil {
				files.Abort()
				return nil, err
			}
			files.Sinks[sp.Name] = s
		}
		sink = files
	default:
		s, err := n.open(iof.Output)
		if err != nil {
			return nil, err
		}
		sink = s
		if len(splits) > 0 {
			sink = &cat.SplitField{Sink: sink, Splits: splits}
		}
	}
	if len(splits) > 0 && iof.Shard == "" { // a shard may rightly miss a small split
		sink = &emptySplitWarning{Sink: sink, splits: splits, n: map[string]int64{}, w: n.env.Stderr, prog: n.p.Name}
	}
	switch {
	case o.sample > 0:
		sink = &cat.Sample{Sink: sink, N: o.sample, Seed: o.seed}
	case o.head > 0:
		sink = &cat.Head{Sink: sink, N: o.head}
	}
	return n.quality.sink(sink), nil
}

// emptySplitWarning says, when the output is committed, which splits got
// no record (--split train=0.8,test=0.2 over 3 records may leave test
// empty): the files are written, as asked, but not in silence.
type emptySplitWarning struct {
	pipeline.Sink
	splits []record.Split
	n      map[string]int64
	w      io.Writer
	prog   string
}

func (s *emptySplitWarning) Write(r *record.Record) error {
	s.n[record.AssignSplit(s.splits, r.ID)]++
	return s.Sink.Write(r)
}

func (s *emptySplitWarning) Close() error {
	if err := s.Sink.Close(); err != nil {
		return err
	}
	var total int64
	for _, n := range s.n {
		total += n
	}
	for _, sp := range s.splits {
		if s.n[sp.Name] == 0 {
			fmt.Fprintf(s.w, "%s: warning: split %s has no record (%s in all); give more records or change --split\n", s.prog, sp.Name, app.Plural(int(total), "record"))
		}
	}
	return nil
}
