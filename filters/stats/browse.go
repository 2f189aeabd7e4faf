package stats

import (
	"slices"

	"github.com/ngkit/ngkit/pkg/record"
)

// Browser holds the dialogues the HTML report shows in full: the first
// Examples of each culture and dialogue type, and every record of the
// --show-defect class (up to maxShown). Not part of the JSON report.
type Browser struct {
	Examples   []BrowsedDialogue
	ShowDefect string
	Shown      []BrowsedDialogue
	ShownMore  int64
}

// BrowsedDialogue is one record kept for the browser, with every defect
// the report found in it.
type BrowsedDialogue struct {
	Group   string
	Record  *record.Record
	Defects []string
}

// maxShown bounds the records --show-defect keeps (memory: whole records).
const maxShown = 1000

type browseAcc struct {
	examples   int
	showDefect string
	perGroup   map[string]int
	b          Browser
}

func (a *browseAcc) add(rec *record.Record, group string, defects []string) {
	if a == nil {
		return
	}
	d := BrowsedDialogue{Group: group, Record: rec, Defects: slices.Clone(defects)}
	if a.showDefect != "" && slices.Contains(defects, a.showDefect) {
		if len(a.b.Shown) < maxShown {
			a.b.Shown = append(a.b.Shown, d)
		} else {
			a.b.ShownMore++
		}
	}
	if len(rec.Turns) > 0 && a.perGroup[group] < a.examples {
		a.perGroup[group]++
		a.b.Examples = append(a.b.Examples, d)
	}
}

func (a *browseAcc) report() *Browser {
	if a == nil {
		return nil
	}
	b := a.b
	b.ShowDefect = a.showDefect
	// Examples by group, in input order within a group.
	slices.SortStableFunc(b.Examples, func(x, y BrowsedDialogue) int {
		switch {
		case x.Group < y.Group:
			return -1
		case x.Group > y.Group:
			return 1
		}
		return 0
	})
	return &b
}
