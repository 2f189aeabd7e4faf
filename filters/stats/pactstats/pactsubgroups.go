package pactstats

import (
	"cmp"
	"maps"
	"slices"

	"github.com/ngkit/ngkit/filters/stats/evalmath"
)

// The closest human subgroups (section5_metrics.py, S5:758-778): each
// model's results in a framing against each respondent subgroup's human
// rate on the same items, a subgroup being a respondent country and
// demographic group (respondent_demo) with answers in that framing; the
// alignment figures of summarize_alignment per subgroup, ranked per model
// by majority alignment (high first), then MAE (low first). The authors
// take the models' persona-free run: give ngstats the results you mean.

// Subgroup is one model's alignment with one human subgroup.
type Subgroup struct {
	Model       string            `json:"model"`
	Country     string            `json:"respondent_country"`
	Demo        string            `json:"respondent_demo"`
	Rank        int               `json:"rank"`
	Rows        int64             `json:"rows"`
	Items       int64             `json:"items"`
	HumanRate   float64           `json:"human_culture_rate"`
	Majority    evalmath.Interval `json:"majority_alignment"`
	MAE         evalmath.Interval `json:"distributional_mae"`
	SignedGapPP evalmath.Interval `json:"signed_gap_pp"`
}

func (a *pactAcc) closestSubgroups(question string, models []string) []Subgroup {
	out := []Subgroup{}
	for _, m := range models {
		bySub := map[[2]string][]pactPoint{}
		for _, p := range a.points[[2]string{question, m}] {
			for k, h := range a.subgroups[[2]string{p.group, question}] {
				q := p
				q.human = h
				bySub[k] = append(bySub[k], q)
			}
		}
		var rows []Subgroup
		for _, k := range slices.SortedFunc(maps.Keys(bySub), func(x, y [2]string) int { return cmp.Or(cmp.Compare(x[0], y[0]), cmp.Compare(x[1], y[1])) }) {
			al, ok := alignment(m, bySub[k])
			if !ok {
				continue
			}
			rows = append(rows, Subgroup{Model: m, Country: k[0], Demo: k[1], Rows: al.Rows, Items: al.Items, HumanRate: al.HumanCultureRate,
				Majority: al.Majority, MAE: al.MAE, SignedGapPP: al.SignedGapPP})
		}
		slices.SortStableFunc(rows, func(x, y Subgroup) int {
			return cmp.Or(cmp.Compare(y.Majority.Mean, x.Majority.Mean), cmp.Compare(x.MAE.Mean, y.MAE.Mean))
		})
		for i := range rows {
			rows[i].Rank = i + 1
		}
		out = append(out, rows...)
	}
	return out
}
