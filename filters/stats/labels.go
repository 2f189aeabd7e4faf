package stats

import (
	"cmp"
	"encoding/json"
	"slices"

	"github.com/ngkit/ngkit/filters/stats/evalmath"
	"github.com/ngkit/ngkit/pkg/agree"
	"github.com/ngkit/ngkit/pkg/record"
)

// The label statistics beyond the distributions: intent by V2R stage,
// agreement between sampled labellings, pairwise win rates.

// labelExtras accumulates them; its memory is bounded by the label sets.
type labelExtras struct {
	stageIntents map[string]*LabelDist
	agreement    map[string]*agreeAcc
	pairwise     map[[2]string]*PairwiseRate
	oneClasses   map[[2]string]*OneClass // model, task
}

type agreeAcc struct {
	turns                     int64
	samples, agree, entropies float64
	kappa                     agree.Kappa
	lastN                     int // raters of the last inferred distribution
}

func newLabelExtras() labelExtras {
	return labelExtras{stageIntents: map[string]*LabelDist{}, agreement: map[string]*agreeAcc{}, pairwise: map[[2]string]*PairwiseRate{}}
}

func (x *labelExtras) empty() bool {
	return len(x.stageIntents) == 0 && len(x.agreement) == 0 && len(x.pairwise) == 0 && len(x.oneClasses) == 0
}

// turn adds one labelled turn of rec.
func (x *labelExtras) turn(rec *record.Record, t *record.Turn) {
	l := t.Labels
	stage := record.TurnStage(t)
	if l.Intent != "" && stage != "" && rec.DialogueType == record.TypeV2R {
		d := x.stageIntents[stage]
		if d == nil {
			d = &LabelDist{Task: "intent", Group: stage, Counts: map[string]int64{}}
			x.stageIntents[stage] = d
		}
		d.Turns++
		d.Counts[l.Intent]++
	}
	samples := 0
	if rec.LabelsMeta != nil {
		samples = rec.LabelsMeta.Samples
	}
	for _, row := range record.LabelTasks {
		dist := *row.Dist(l)
		if len(dist) == 0 {
			continue
		}
		task := row.Name
		a := x.agreement[task]
		if a == nil {
			a = &agreeAcc{lastN: 3} // ProsocialDialog's three annotators
			x.agreement[task] = a
		}
		// A distribution means several labellings. Without labels_meta
		// their number is inferred from the shares (thirds: 3); a
		// unanimous one says nothing, so it takes the last number seen.
		n := samples
		if n < 2 {
			if n = agree.Raters(dist, 20); n >= 2 {
				a.lastN = n
			} else if len(dist) == 1 {
				n = a.lastN
			}
		}
		if n < 2 {
			continue
		}
		best := 0.0
		for _, p := range dist {
			best = max(best, p)
		}
		a.turns++
		a.samples += float64(n)
		a.agree += best
		a.entropies += agree.Entropy(dist)
		a.kappa.AddShares(dist, n)
	}
}

// PairwiseKey is the extra field where nglabel --pairwise writes a
// record's judgement ("win", "tie" or "loss" per criterion).
const PairwiseKey = "pairwise"

var pairwiseCriteria = []string{"naturalness", "norm"}

// record adds the pairwise judgement of rec, if any.
func (x *labelExtras) record(rec *record.Record) {
	x.oneClass(rec)
	raw, ok := rec.Extra[PairwiseKey]
	if !ok {
		return
	}
	var pw map[string]json.RawMessage
	if json.Unmarshal(raw, &pw) != nil {
		return
	}
	for _, crit := range pairwiseCriteria {
		var outcome string
		if json.Unmarshal(pw[crit], &outcome) != nil {
			continue
		}
		for _, g := range []string{"all", rec.Culture} {
			k := [2]string{crit, g}
			p := x.pairwise[k]
			if p == nil {
				p = &PairwiseRate{Criterion: crit, Group: g}
				x.pairwise[k] = p
			}
			switch outcome {
			case "win":
				p.Win++
			case "tie":
				p.Tie++
			case "loss":
				p.Loss++
			default:
				continue
			}
			p.N++
		}
	}
}

// report fills the label extras of l.
func (x *labelExtras) report(l *Labels) {
	l.OneClass = x.oneClassReport()
	for _, d := range x.stageIntents {
		l.IntentByStage = append(l.IntentByStage, *d)
	}
	slices.SortFunc(l.IntentByStage, func(a, b LabelDist) int {
		return cmp.Compare(slices.Index(record.Stages, a.Group), slices.Index(record.Stages, b.Group))
	})
	for _, task := range labelTasks() {
		a := x.agreement[task]
		if a == nil {
			continue
		}
		n := float64(a.turns)
		ta := TaskAgreement{Task: task, Turns: a.turns, Samples: a.samples / n, Agreement: a.agree / n, Entropy: a.entropies / n}
		if k, ok := a.kappa.Value(); ok {
			ta.Kappa = &k
		}
		l.Agreement = append(l.Agreement, ta)
	}
	for _, p := range x.pairwise {
		if p.N == 0 {
			continue
		}
		q := *p
		q.WinRate = float64(q.Win) / float64(q.N)
		q.Low, q.High = evalmath.Wilson(q.Win, q.N)
		l.Pairwise = append(l.Pairwise, q)
	}
	slices.SortFunc(l.Pairwise, func(a, b PairwiseRate) int {
		return cmp.Or(cmp.Compare(slices.Index(pairwiseCriteria, a.Criterion), slices.Index(pairwiseCriteria, b.Criterion)),
			cmp.Compare(groupOrder(a.Group), groupOrder(b.Group)), cmp.Compare(a.Group, b.Group))
	})
}
