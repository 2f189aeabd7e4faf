package label

import (
	"github.com/ngkit/ngkit/pkg/agree"
	"github.com/ngkit/ngkit/pkg/record"
)

// applyTurns writes the labels of the samples into the turns: with one
// sample its labels as they are; with several, per task the majority
// label (a row's merge: safety by ProsocialDialog's rule), the distribution of the votes
// and, per turn, the agreement: the majority's share, averaged over the
// tasks. The explanation and rules-of-thumb come from the sample that
// agrees most with the final labels (the earliest on a tie), but for the
// explanation of safety votes that are not relabelled. Labels of tasks
// not run this time are left as they were.
func applyTurns(rec *record.Record, tasks []string, samples [][]turnLabels) {
	k := len(samples)
	votes := make([]string, k)
	for i := range rec.Turns {
		t := &rec.Turns[i]
		if t.Labels == nil {
			t.Labels = &record.Labels{}
		}
		l := t.Labels
		final := map[string]string{}
		sumAgree := 0.0
		for _, task := range tasks {
			for s := range samples {
				votes[s] = samples[s][i].get(task)
			}
			label, dist, share := agree.Majority(votes)
			row := rowOf(task)
			if row.Merge == record.MergeSafety {
				label = agree.Safety(votes)
			}
			final[task] = label
			sumAgree += share
			if k == 1 {
				dist = nil
			}
			*row.Field(l), *row.Dist(l) = label, dist
		}
		if k > 1 && len(tasks) > 0 {
			l.Agreement = sumAgree / float64(len(tasks))
		} else if k == 1 && len(tasks) > 0 {
			l.Agreement = 0 // a single labelling has no agreement
		}
		rep := representative(samples, i, tasks, final)
		// The reasons of earlier votes of a label with rules-of-thumb
		// (safety: ProsocialDialog's annotators) stay with their votes
		// unless it is relabelled.
		keep, relabelled := false, false
		for _, row := range record.LabelTasks {
			if row.Rots {
				keep = keep || *row.Dist(l) != nil
				relabelled = relabelled || final[row.Name] != ""
			}
		}
		if !keep || l.Explanation == "" || relabelled {
			l.Explanation = rep.Explanation
		}
		if relabelled {
			l.Rots = rep.Rots
		}
	}
}

// representative is the sample whose labels of turn i match the final
// ones most often; a safety vote matches when it is of the same kind
// (casual, a caution, intervention).
func representative(samples [][]turnLabels, i int, tasks []string, final map[string]string) *turnLabels {
	best, bestN := 0, -1
	for s := range samples {
		n := 0
		for _, task := range tasks {
			v := samples[s][i].get(task)
			if v == final[task] || rowOf(task).Merge == record.MergeSafety && safetyKind(v) == safetyKind(final[task]) {
				n++
			}
		}
		if n > bestN {
			best, bestN = s, n
		}
	}
	return &samples[best][i]
}

func safetyKind(v string) string {
	switch v {
	case agree.SafetyPossiblyCaution, agree.SafetyProbablyCaution, agree.SafetyNeedsCaution:
		return "caution"
	}
	return v
}

// recordAgreement summarises a record's sampled labels: the mean of the
// turns' agreement, and Fleiss' kappa over its turns, averaged over the
// tasks where it is defined (a task whose votes all fell in one label has
// none); 0 when no task has one.
func recordAgreement(rec *record.Record, tasks []string, samples int) (agreement, kappa float64) {
	n := 0
	for _, t := range rec.Turns {
		if t.Labels != nil {
			agreement += t.Labels.Agreement
			n++
		}
	}
	if n > 0 {
		agreement /= float64(n)
	}
	defined := 0
	for _, task := range tasks {
		var k agree.Kappa
		for _, t := range rec.Turns {
			if t.Labels != nil {
				k.AddShares(t.Labels.GetDist(task), samples)
			}
		}
		if v, ok := k.Value(); ok {
			kappa += v
			defined++
		}
	}
	if defined > 0 {
		kappa /= float64(defined)
	}
	return agreement, kappa
}
