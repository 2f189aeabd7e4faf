package stats

import (
	"cmp"
	"slices"

	"github.com/ngkit/ngkit/pkg/agree"
	"github.com/ngkit/ngkit/pkg/record"
)

// Review compares the labels native-speaker reviewers gave (turns'
// labels_human, from ngcat --from labelstudio / argilla) with the model's
// (labels), and counts the dialogues reviewers rejected.
type Review struct {
	// Agreement per task, overall ("all") and per culture.
	Agreement []HumanAgreement `json:"agreement"`
	// Verdicts overall and per culture.
	Verdicts []Verdicts `json:"verdicts"`
}

// HumanAgreement is how often the model's label of a task matched the
// reviewers', over the turns that have both.
type HumanAgreement struct {
	Task  string `json:"task"`
	Group string `json:"group"`
	Turns int64  `json:"turns"`
	// Accuracy is the share of turns where the model's label is the
	// reviewers'; Kappa is Cohen's kappa (nil when undefined: one class).
	Accuracy float64  `json:"accuracy"`
	Kappa    *float64 `json:"kappa"`
	// Labels name the rows (model) and columns (reviewers) of Confusion.
	Labels    []string  `json:"labels"`
	Confusion [][]int64 `json:"confusion"`
}

// Verdicts count the reviewed dialogues of a group and those rejected.
type Verdicts struct {
	Group    string  `json:"group"`
	Reviewed int64   `json:"reviewed"`
	Rejected int64   `json:"rejected"`
	Share    float64 `json:"rejected_share"`
}

type reviewAcc struct {
	pairs    map[[2]string]map[[2]string]int64 // (task, group) -> (model, human) -> turns
	verdicts map[string]*Verdicts
}

func newReviewAcc() *reviewAcc {
	return &reviewAcc{pairs: map[[2]string]map[[2]string]int64{}, verdicts: map[string]*Verdicts{}}
}

func (a *reviewAcc) record(rec *record.Record) {
	if rec.Review == nil || rec.Review.Verdict == "" {
		return
	}
	for _, g := range []string{"all", rec.Culture} {
		v := a.verdicts[g]
		if v == nil {
			v = &Verdicts{Group: g}
			a.verdicts[g] = v
		}
		v.Reviewed++
		if rec.Review.Verdict == record.VerdictReject {
			v.Rejected++
		}
	}
}

func (a *reviewAcc) turn(rec *record.Record, t *record.Turn) {
	if t.LabelsHuman == nil || t.Labels == nil {
		return
	}
	for _, task := range record.LabelTaskNames() {
		m, h := t.Labels.Get(task), t.LabelsHuman.Get(task)
		if m == "" || h == "" {
			continue
		}
		for _, g := range []string{"all", rec.Culture} {
			k := [2]string{task, g}
			if a.pairs[k] == nil {
				a.pairs[k] = map[[2]string]int64{}
			}
			a.pairs[k][[2]string{m, h}]++
		}
	}
}

func (a *reviewAcc) report() *Review {
	if len(a.pairs) == 0 && len(a.verdicts) == 0 {
		return nil
	}
	r := &Review{Agreement: []HumanAgreement{}, Verdicts: []Verdicts{}}
	for k, pairs := range a.pairs {
		ag := HumanAgreement{Task: k[0], Group: k[1]}
		// The task's labels in their documented order, then any other.
		seen := map[string]bool{}
		for p := range pairs {
			seen[p[0]], seen[p[1]] = true, true
		}
		for _, l := range record.LabelSet(k[0]) {
			if seen[l] {
				ag.Labels = append(ag.Labels, l)
				delete(seen, l)
			}
		}
		var rest []string
		for l := range seen {
			rest = append(rest, l)
		}
		slices.Sort(rest)
		ag.Labels = append(ag.Labels, rest...)
		ag.Confusion = make([][]int64, len(ag.Labels))
		for i := range ag.Confusion {
			ag.Confusion[i] = make([]int64, len(ag.Labels))
		}
		var same int64
		for p, n := range pairs {
			ag.Confusion[slices.Index(ag.Labels, p[0])][slices.Index(ag.Labels, p[1])] += n
			ag.Turns += n
			if p[0] == p[1] {
				same += n
			}
		}
		ag.Accuracy = float64(same) / float64(ag.Turns)
		if k, ok := agree.CohenKappa(ag.Confusion); ok {
			ag.Kappa = &k
		}
		r.Agreement = append(r.Agreement, ag)
	}
	tasks := record.LabelTaskNames()
	slices.SortFunc(r.Agreement, func(a, b HumanAgreement) int {
		return cmp.Or(cmp.Compare(slices.Index(tasks, a.Task), slices.Index(tasks, b.Task)),
			cmp.Compare(groupOrder(a.Group), groupOrder(b.Group)), cmp.Compare(a.Group, b.Group))
	})
	for _, v := range a.verdicts {
		vv := *v
		vv.Share = float64(v.Rejected) / float64(v.Reviewed)
		r.Verdicts = append(r.Verdicts, vv)
	}
	slices.SortFunc(r.Verdicts, func(a, b Verdicts) int {
		return cmp.Or(cmp.Compare(groupOrder(a.Group), groupOrder(b.Group)), cmp.Compare(a.Group, b.Group))
	})
	return r
}
