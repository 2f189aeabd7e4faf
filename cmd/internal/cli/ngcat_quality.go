package cli

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/ngkit/ngkit/cmd/internal/app"
	"github.com/ngkit/ngkit/filters/cat"
	"github.com/ngkit/ngkit/filters/review"
	"github.com/ngkit/ngkit/filters/stats"
	"github.com/ngkit/ngkit/pkg/audit"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/recio"
	"github.com/ngkit/ngkit/pkg/record"
	"github.com/spf13/pflag"
)

// ngcatQuality holds ngcat's quality-loop flags (--where, --drop-defects,
// --dedup, the review flags), kept apart from the conversion flags of
// ngcat_options.go (app.Options).
type ngcatQuality struct {
	where, dropDefects, dedup string
	dupThreshold              float64
	reviewTasks               []string
	reviewTasksFlag           string
	reviewConfig              string
	fs                        *pflag.FlagSet
	repaired                  repairedCount
}

// repairedCount counts, over the workers, the records whose defects the
// parser had repaired, by class, for the line --drop-defects ends with.
type repairedCount struct {
	mu      sync.Mutex
	records int
	classes map[string]int
}

func (c *repairedCount) add(classes []string) {
	if len(classes) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.classes == nil {
		c.classes = map[string]int{}
	}
	c.records++
	for _, d := range classes {
		c.classes[d]++
	}
}

// note is the line that says which repaired defects did not drop records,
// "" when none did.
func (c *repairedCount) note() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.records == 0 {
		return ""
	}
	var parts []string
	for _, d := range slices.Sorted(maps.Keys(c.classes)) {
		parts = append(parts, fmt.Sprintf("%s %d", d, c.classes[d]))
	}
	return fmt.Sprintf("--drop-defects: %s had defects the parser repaired (%s): not a reason to drop, ngstats reports them",
		app.Plural(c.records, "record"), strings.Join(parts, ", "))
}

// Register adds the quality flags to fs.
func (q *ngcatQuality) Register(fs *pflag.FlagSet) {
	q.fs = fs
	fs.StringVar(&q.where, "where", "", "keep the records for which the expression `EXPR` holds, e.g. 'quality.norm >= 4 && checks.lang_ok && len(turns) <= 12'")
	fs.StringVar(&q.dedup, "dedup", "", "keep the first record of each cluster of duplicates: `MODE` exact (same turns, or same scenario) or near (as ngstats clusters them)")
	fs.Float64Var(&q.dupThreshold, "dup-threshold", stats.DefaultDupThreshold, "with --dedup near: texts at least this `SIMILAR` (estimated Jaccard of character shingles) are near-duplicates")
	fs.StringVar(&q.reviewTasksFlag, "review-tasks", strings.Join(review.DefaultReviewTasks(), ","), "with --to labelstudio or argilla: the turn label `TASKS` to review")
	fs.StringVar(&q.reviewConfig, "review-config", "", "with --to labelstudio: also write the project's labeling config (XML) to `FILE`")
	fs.StringVar(&q.dropDefects, "drop-defects", "", "drop the records with any of these defects: `CLASS,...` or any (ngstats' classes or kinds: content, format, ...; duplicates: see --dedup)")
}

// dropClasses are the classes --drop-defects accepts: every ngstats class
// but the duplicates, which need the whole stream (--dedup); kinds groups
// them by ngstats' kind (content, format, ...).
func dropClasses() (classes []string, kinds map[string][]string) {
	kinds = map[string][]string{}
	for kind, names := range audit.Kinds() {
		if kind != "duplicate" {
			kinds[kind] = names
			classes = append(classes, names...)
		}
	}
	slices.Sort(classes)
	return classes, kinds
}

func isReviewTool(s string) bool { return s == review.ToolLabelStudio || s == review.ToolArgilla }

// checkReview validates the review flags and writes --review-config; it
// is the run's, as it needs the output format.
func (q *ngcatQuality) checkReview(to string, format recio.Format) error {
	if !isReviewTool(to) {
		if q.fs.Changed("review-tasks") || q.reviewConfig != "" {
			return fmt.Errorf("--review-tasks and --review-config go with --to labelstudio or argilla")
		}
		return nil
	}
	if format != recio.JSONL {
		return fmt.Errorf("--to %s writes JSON (-o tasks.json), not %s", to, format)
	}
	tasks, err := review.ParseReviewTasks(q.reviewTasksFlag)
	if err != nil {
		return err
	}
	q.reviewTasks = tasks
	if to == review.ToolArgilla && slices.Contains(tasks, review.RubricTask) {
		return fmt.Errorf("--review-tasks %s goes with --to labelstudio", review.RubricTask)
	}
	if q.reviewConfig != "" {
		if to != review.ToolLabelStudio {
			return fmt.Errorf("--review-config goes with --to labelstudio (for Argilla, see the rg.Settings in docs/quality-loop.md)")
		}
		out, err := recio.Create(q.reviewConfig, recio.JSONL, nil)
		if err != nil {
			return err
		}
		if _, err := io.WriteString(out.Writer(), review.LabelStudioConfig(tasks)); err != nil {
			out.Abort()
			return err
		}
		return out.Commit()
	}
	return nil
}

// reviewSink writes review tasks as one JSON array.
func (q *ngcatQuality) reviewSink(to string, out *recio.Output) (pipeline.Sink, error) {
	if to == review.ToolLabelStudio {
		return review.NewArraySink(out, review.LabelStudio(q.reviewTasks)), nil
	}
	return review.NewArraySink(out, review.Argilla(q.reviewTasks)), nil
}

// Check refuses bad --dedup and --dup-threshold values.
func (q *ngcatQuality) Check() error {
	if q.dedup != "" {
		if err := cat.ParseDedup(q.dedup); err != nil {
			return err
		}
	}
	if q.fs.Changed("dup-threshold") && q.dedup != cat.DedupNear {
		return fmt.Errorf("--dup-threshold goes with --dedup near")
	}
	if q.dupThreshold <= 0 || q.dupThreshold > 1 {
		return fmt.Errorf("--dup-threshold %v: want a similarity above 0 and at most 1", q.dupThreshold)
	}
	return nil
}

// sink wraps the output: --dedup decides on records in input order, before
// --head or --sample count them.
func (q *ngcatQuality) sink(s pipeline.Sink) pipeline.Sink {
	if q.dedup == "" {
		return s
	}
	return &cat.Dedup{Sink: s, Mode: q.dedup, Threshold: q.dupThreshold}
}

// stage returns the stage that filters records, nil when none is asked for.
func (q *ngcatQuality) stage() (pipeline.Stage, error) {
	if q.where == "" && q.dropDefects == "" {
		return nil, nil
	}
	d := &cat.Drop{}
	if q.where != "" {
		w, err := cat.CompileWhere(q.where)
		if err != nil {
			return nil, err
		}
		d.Where = w
	}
	if q.dropDefects != "" {
		known, kinds := dropClasses()
		classes, err := cat.ParseDefects(q.dropDefects, known, kinds)
		if err != nil && strings.Contains(q.dropDefects, "dup") {
			return nil, fmt.Errorf("%w; for duplicates use --dedup exact|near", err)
		}
		if err != nil {
			return nil, err
		}
		d.Defects = classes
		audit := audit.Default()
		d.Find = func(rec *record.Record) []string {
			// Audit a copy: ngcat passes records through as they came. A
			// defect the parser repaired ([END] taken out of the text) is
			// counted for the summary, not a reason to drop.
			live, repaired := audit.Live(rec)
			q.repaired.add(repaired)
			return live
		}
	}
	return d, nil
}

// chain runs stage a, then b on each of its records (nil: none).
func chain(a, b pipeline.Stage) pipeline.Stage {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	return cat.Chain{a, b}
}
