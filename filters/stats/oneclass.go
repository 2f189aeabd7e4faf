package stats

import (
	"cmp"
	"slices"

	"github.com/ngkit/ngkit/pkg/record"
)

// One-class labellings: a model that gives every turn of a
// dialogue the same label writes labels valid by the closed sets and
// useless (Qwen2.5-Coder-1.5B labelled every turn of a Korean dialogue
// not_relevant / NR). Only norm and intent are counted: a NormGenesis
// dialogue is made around a norm and its turns do different things, while
// one emotion or one safety class throughout may be right (a calm, casual
// talk).

// OneClass counts, for one model and task, the dialogues it labelled (at
// least MinOneClassTurns turns) and those whose every turn it gave one
// label, with which labels.
type OneClass struct {
	Model     string           `json:"model"`
	Task      string           `json:"task"`
	Dialogues int64            `json:"dialogues"`
	OneClass  int64            `json:"one_class"`
	Share     float64          `json:"share"`
	Labels    map[string]int64 `json:"labels"` // the one label -> dialogues
}

// MinOneClassTurns is the fewest labelled turns of a dialogue that counts
// (OneClass): a shorter dialogue may well be one class.
const MinOneClassTurns = 3

// OneClassWarnShare is the share of a model's dialogues labelled with one
// class above which the reports warn.
const OneClassWarnShare = 0.5

var oneClassTasks = []string{"norm", "intent"}

// oneClass adds the labellings of rec: the record's labels under
// labels_meta.model, and each panel member's (turn.labels.by_model).
func (x *labelExtras) oneClass(rec *record.Record) {
	if len(rec.Turns) < MinOneClassTurns {
		return
	}
	type key struct{ model, task string }
	seen := map[key][]string{}
	var order []key
	add := func(model, task, label string) {
		if label == "" {
			return
		}
		k := key{model, task}
		if _, ok := seen[k]; !ok {
			order = append(order, k)
		}
		seen[k] = append(seen[k], label)
	}
	panel := rec.LabelsMeta != nil && len(rec.LabelsMeta.Panel) >= 2
	model := "(unnamed)"
	if rec.LabelsMeta != nil && rec.LabelsMeta.Model != "" {
		model = rec.LabelsMeta.Model
	}
	for _, t := range rec.Turns {
		if t.Labels == nil {
			continue
		}
		for _, task := range oneClassTasks {
			if !panel { // a panel's own labels are its majority, not a model's
				l := t.Labels
				add(model, task, l.Get(task))
			}
			for i := range t.Labels.ByModel {
				ml := &t.Labels.ByModel[i]
				add(ml.Labeller, task, ml.Get(task))
			}
		}
	}
	for _, k := range order {
		labels := seen[k]
		if len(labels) < MinOneClassTurns {
			continue
		}
		if x.oneClasses == nil {
			x.oneClasses = map[[2]string]*OneClass{}
		}
		o := x.oneClasses[[2]string{k.model, k.task}]
		if o == nil {
			o = &OneClass{Model: k.model, Task: k.task, Labels: map[string]int64{}}
			x.oneClasses[[2]string{k.model, k.task}] = o
		}
		o.Dialogues++
		if !slices.ContainsFunc(labels, func(l string) bool { return l != labels[0] }) {
			o.OneClass++
			o.Labels[labels[0]]++
		}
	}
}

func (x *labelExtras) oneClassReport() []OneClass {
	var out []OneClass
	for _, o := range x.oneClasses {
		q := *o
		q.Share = float64(q.OneClass) / float64(q.Dialogues)
		out = append(out, q)
	}
	slices.SortFunc(out, func(a, b OneClass) int {
		return cmp.Or(cmp.Compare(a.Model, b.Model), cmp.Compare(slices.Index(oneClassTasks, a.Task), slices.Index(oneClassTasks, b.Task)))
	})
	return out
}
