package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ngkit/ngkit/cmd/internal/app"
	"github.com/ngkit/ngkit/filters/hf"
	"github.com/ngkit/ngkit/filters/stats"
	"github.com/ngkit/ngkit/filters/stats/simstats"
	"github.com/ngkit/ngkit/pkg/audit"
	"github.com/ngkit/ngkit/pkg/record"
	"github.com/spf13/pflag"
)

// ngstatsOptions are ngstats' own flags (app.Options). Check also
// resolves the report format and the --fail-on rules.
type ngstatsOptions struct {
	asJSON       bool
	asMD         bool
	asHTML       bool
	ids          int
	examples     int
	showDefect   string
	minTurns     int
	maxTurns     int
	minShare     float64
	card         bool
	prettyName   string
	license      string
	licenseName  string
	licenseLink  string
	split        string
	dupThreshold float64
	by           []string
	rankBy       string
	failOn       string

	// format is the report's (text, json, markdown, html or card) and
	// thresholds the --fail-on rules, set by Check.
	format     string
	thresholds []stats.Threshold

	io *app.IOFlags
	fs *pflag.FlagSet
}

// Register adds ngstats' flags to fs.
func (o *ngstatsOptions) Register(fs *pflag.FlagSet) {
	o.fs = fs
	fs.BoolVar(&o.asJSON, "json", false, "the report as JSON with stable keys (same as -f json)")
	fs.BoolVar(&o.asMD, "markdown", false, "the report as Markdown tables (same as -f markdown)")
	fs.BoolVar(&o.asHTML, "html", false, "the report as one self-contained HTML file with charts (same as -f html)")
	fs.IntVar(&o.ids, "ids", 100, "list at most `N` ids per defect class (0: all); text and Markdown show 5 unless set")
	fs.IntVar(&o.examples, "examples", 3, "show `N` example turns per language mismatch, and with --html `N` whole dialogues per culture and type")
	fs.StringVar(&o.showDefect, "show-defect", "", "with --html: also show every record with the defect `CLASS` (at most 1,000)")
	fs.IntVar(&o.minTurns, "min-turns", record.DefaultMinTurns, "dialogues with fewer than `N` turns have the too_few_turns defect (0: no bound)")
	fs.IntVar(&o.maxTurns, "max-turns", record.DefaultMaxTurns, "dialogues with more than `N` turns have the too_many_turns defect (0: no bound)")
	fs.Float64Var(&o.minShare, "min-lang-share", audit.DefaultMinLangShare, "dialogues with a smaller `SHARE` of turns in the expected language have the wrong_language defect")
	fs.BoolVar(&o.card, "card", false, "write a Hugging Face dataset card (YAML front matter + the report in Markdown) for these records as one split")
	fs.StringVar(&o.prettyName, "pretty-name", "", "with --card: the dataset's `NAME`")
	fs.StringVar(&o.license, "license", "", "with --card: the Hub licence `ID` (cc-by-sa-4.0, apache-2.0, ..., other; default unknown)")
	fs.StringVar(&o.licenseName, "license-name", "", "with --card --license other: the licence's `NAME`")
	fs.StringVar(&o.licenseLink, "license-link", "", "with --card --license other: the `URL` of the licence's text")
	fs.StringVar(&o.split, "split-name", "train", "with --card: the `SPLIT` the records are")
	fs.Float64Var(&o.dupThreshold, "dup-threshold", stats.DefaultDupThreshold, "texts at least this `SIMILAR` (estimated Jaccard of character shingles, 0-1) are near-duplicates")
	fs.StringSliceVar(&o.by, "by", nil, "also report counts and every metric by each value of the persona attribute `ATTR` (comma-separated or repeated; records without it as (none))")
	fs.StringVar(&o.rankBy, "rank-by", simstats.RankBys[0], "order the simulation leaderboard by `FIGURE`: "+strings.Join(simstats.RankBys, ", ")+" (assistance: the CultureConverse paper's)")
	fs.StringVar(&o.failOn, "fail-on", "", "exit 1 when a defect rate is above its limit: `DEFECT=RATE,...` (rate 0.01 or 1%; \"any\" = any defect)")
}

// Check refuses the flags that cannot make a report.
func (o *ngstatsOptions) Check() error {
	if err := o.checkFormat(); err != nil {
		return err
	}
	if o.failOn != "" {
		var err error
		if o.thresholds, err = stats.ParseFailOn(o.failOn); err != nil {
			return err
		}
	}
	return o.checkBounds()
}

// checkFormat: one report format, and --card's flags.
func (o *ngstatsOptions) checkFormat() error {
	format, err := reportFormat(o.io.Format, o.io.Output, o.asJSON, o.asMD, o.asHTML)
	if err != nil {
		return err
	}
	if !slices.Contains(simstats.RankBys, o.rankBy) {
		return fmt.Errorf("--rank-by %q: want one of %s", o.rankBy, strings.Join(simstats.RankBys, ", "))
	}
	if o.card {
		if o.fs.Changed("format") || o.asJSON || o.asMD || o.asHTML {
			return fmt.Errorf("--card writes Markdown with YAML front matter; it takes no report format")
		}
		if err := hf.CheckSplitName(o.split); err != nil {
			return err
		}
		if err := hf.CheckLicense(o.license, o.licenseName, o.licenseLink); err != nil {
			return err
		}
		format = "card"
	} else if o.prettyName != "" || o.license != "" || o.licenseName != "" || o.licenseLink != "" || o.fs.Changed("split-name") {
		return fmt.Errorf("--pretty-name, --license, --license-name, --license-link and --split-name go with --card")
	}
	o.format = format
	return nil
}

// checkBounds: counts, shares and --show-defect.
func (o *ngstatsOptions) checkBounds() error {
	switch {
	case o.ids < 0 || o.examples < 0 || o.minTurns < 0 || o.maxTurns < 0:
		return fmt.Errorf("--ids, --examples, --min-turns and --max-turns take counts of 0 or more")
	case o.dupThreshold <= 0 || o.dupThreshold > 1:
		return fmt.Errorf("--dup-threshold %v: want a similarity above 0 and at most 1", o.dupThreshold)
	case o.minShare < 0 || o.minShare > 1:
		return fmt.Errorf("--min-lang-share %v: want a share between 0 and 1", o.minShare)
	case o.maxTurns > 0 && o.minTurns > o.maxTurns:
		return fmt.Errorf("--min-turns %d is above --max-turns %d", o.minTurns, o.maxTurns)
	}
	if o.showDefect != "" {
		if o.format != "html" {
			return fmt.Errorf("--show-defect goes with --html")
		}
		if !slices.Contains(audit.DefectNames(), o.showDefect) {
			return fmt.Errorf("--show-defect %q: not a defect class (see --help)", o.showDefect)
		}
	}
	return nil
}
