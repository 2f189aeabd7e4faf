package render

import (
	"strconv"

	"github.com/ngkit/ngkit/filters/stats"
	"github.com/ngkit/ngkit/pkg/record"
)

// The HTML view of a dialogue.
type dlgView struct {
	ID, Group, Category, Norm, Scenario, Situation, Review string
	Seed, Quality                                          []scoreView
	Defects                                                []string
	Turns                                                  []turnView
	// Closing is the narration after the last turn (and all of a
	// record's narration when it says no place: record.NarrationPos).
	Closing []string
	Lang    string
}

type scoreView struct {
	Name  string
	Value string
}

type turnView struct {
	Index int
	// Before is the narration that stands before the turn.
	Before                       []string
	Speaker, Action, Text, Stage string
	StageClass                   string
	// Disagree: the writer gave the turn one V2R stage (Stage) and the
	// labeller another (the labels' stage).
	Disagree      bool
	Labels, Human []chipView
}

// chipView is one label of a turn; Task is what the chip calls it.
type chipView struct{ Task, Value, Class string }

// chipClass colours the labels whose meaning a colour helps with; the
// text always says the label too.
func chipClass(task, v string) string {
	switch task + "=" + v {
	case "norm=adhered", "stage=resolution":
		return "k-good"
	case "norm=violated", "stage=violation":
		return "k-bad"
	case "stage=recognition":
		return "k-warn"
	case "stage=repair":
		return "k-fix"
	}
	return "k-plain"
}

// chips are a turn's labels; stageName names whose the stage label is,
// since the writer's stage is shown beside it.
func chips(l *record.Labels, stageName string) []chipView {
	var out []chipView
	for _, task := range record.LabelTaskNames() {
		if v := l.Get(task); v != "" {
			name := task
			if task == "stage" {
				name = stageName
			}
			out = append(out, chipView{Task: name, Value: v, Class: chipClass(task, v)})
		}
	}
	return out
}

func newDlgView(d stats.BrowsedDialogue) dlgView {
	r := d.Record
	v := dlgView{ID: r.ID, Group: d.Group, Category: r.Category, Norm: r.Norm, Scenario: r.Scenario,
		Situation: r.Situation, Defects: d.Defects, Lang: r.Lang}
	if f := r.Refinement; f != nil && f.After != nil {
		for _, s := range []struct {
			n string
			v float64
		}{{"task relevance", f.After.TaskRelevance}, {"linguistic quality", f.After.LinguisticQuality}, {"semantic preservation", f.After.SemanticPreservation}} {
			if s.v > 0 {
				v.Seed = append(v.Seed, scoreView{s.n, strconv.FormatFloat(s.v, 'f', -1, 64)})
			}
		}
		if f.Accepted {
			v.Seed = append(v.Seed, scoreView{"accepted", "yes"})
		} else {
			v.Seed = append(v.Seed, scoreView{"accepted", "no"})
		}
	}
	if q := r.Quality; q != nil {
		for _, s := range []struct {
			n string
			v int
		}{{"consistency", q.Consistency}, {"naturalness", q.Naturalness}, {"relevance", q.Relevance}, {"coherence", q.Coherence}, {"emotion", q.Emotion}, {"norm", q.Norm}, {"fit", q.Fit}} {
			if s.v > 0 {
				v.Quality = append(v.Quality, scoreView{s.n, strconv.Itoa(s.v)})
			}
		}
	}
	if rv := r.Review; rv != nil && rv.Verdict != "" {
		v.Review = rv.Verdict + " (" + strconv.Itoa(rv.Reviewers) + " reviewers, " + rv.Tool + ")"
	}
	for _, t := range r.Turns {
		tv := turnView{Index: t.Index, Speaker: t.Speaker, Action: t.Action, Text: t.Text, Stage: t.Stage,
			Labels: chips(t.Labels, "labeller's stage"), Human: chips(t.LabelsHuman, "stage")}
		if t.Stage != "" {
			tv.StageClass = chipClass("stage", t.Stage)
			if l := t.Labels; l != nil && l.Stage != "" && l.Stage != t.Stage {
				tv.Disagree = true
			}
		}
		v.Turns = append(v.Turns, tv)
	}
	for i, l := range r.Narration {
		if at := r.NarrationPos(i); at < len(v.Turns) {
			v.Turns[at].Before = append(v.Turns[at].Before, l)
		} else {
			v.Closing = append(v.Closing, l)
		}
	}
	return v
}

type browseView struct {
	Examples   []dlgView
	ShowDefect string
	Shown      []dlgView
	ShownMore  int64
}

// newBrowseView is nil, and the report has no Dialogues section, when
// there is nothing to show: a file of PACT items or seeds.
func newBrowseView(b *stats.Browser) *browseView {
	if b == nil || len(b.Examples) == 0 && b.ShowDefect == "" {
		return nil
	}
	v := &browseView{ShowDefect: b.ShowDefect, ShownMore: b.ShownMore}
	for _, d := range b.Examples {
		v.Examples = append(v.Examples, newDlgView(d))
	}
	for _, d := range b.Shown {
		v.Shown = append(v.Shown, newDlgView(d))
	}
	return v
}
