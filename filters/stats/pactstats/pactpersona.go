package pactstats

import (
	"cmp"
	"maps"
	"slices"

	"github.com/ngkit/ngkit/filters/stats/evalmath"
	"github.com/ngkit/ngkit/pkg/record"
)

// The persona-subgroup alignment (section5_metrics.py, S5:728-741): a
// persona-prompted run, items with pact_item.persona_country and
// persona_demo (the model under test answers as a respondent of that
// country and demographic group), against the human subgroup of the same
// respondent_country and respondent_demo on the same item and framing,
// by summarize_alignment per framing, model and persona. A persona
// matches a subgroup by the exact strings, as the authors' merge does; a
// result whose subgroup did not answer its item in the framing is in no
// row (their inner join), nor is one that lacks either field (their
// subgroup profiles drop a missing country or demo). The persona-prompted
// results count in no other figure of the section: the rest is of the
// persona-free run, as the authors keep their two settings apart.

// PersonaRun is the persona-prompted run and its alignment.
type PersonaRun struct {
	// Items and Results are the persona-prompted records and their
	// results; Incomplete of the results lack persona_country or
	// persona_demo, Unmatched have both but no answer of their subgroup
	// on their item in the framing.
	Items      int64 `json:"items"`
	Results    int64 `json:"results"`
	Incomplete int64 `json:"incomplete"`
	Unmatched  int64 `json:"unmatched"`
	// Alignment has one row per framing, model and persona.
	Alignment []PersonaAlignment `json:"alignment"`
	// NotComputable says why Alignment is empty ("" when it is not).
	NotComputable string `json:"not_computable,omitempty"`
	// Uncertainty is the uncertainty alignment of the run
	// (model_uncertainty, S5:222-249, of its persona setting, S5:751-756),
	// per framing and model: every persona's results of an item pooled
	// into the item's model rate (those missing a field or of no subgroup
	// too), against the human rate of all the item's answers.
	// UncertaintyAverages averages its r and model agreement over the
	// framings per model: the site's uncertaintyAvg (corr, modelAgreement),
	// which the authors take from this run (plot_section5_acl_figures.py:
	// 245-248).
	Uncertainty         []PersonaUncertainty `json:"uncertainty"`
	UncertaintyAverages []PersonaUncertainty `json:"uncertainty_averages"`
}

// PersonaUncertainty is one model's uncertainty alignment in the
// persona-prompted run, as Alignment's fields of those names;
// Question is "" in an average over the framings, whose figures are
// Uncertainty (the mean of the framings' where defined, null when none)
// and ModelAgreement (the mean of the framings').
type PersonaUncertainty struct {
	Question               string   `json:"question,omitempty"`
	Model                  string   `json:"model"`
	Items                  int64    `json:"uncertainty_items,omitempty"`
	ModelAgreement         *float64 `json:"model_majority_agreement,omitempty"`
	ModelAgreementLowHuman *float64 `json:"model_majority_agreement_low_human_agreement,omitempty"`
	Uncertainty            *float64 `json:"uncertainty_r"`
	UncertaintyLow         *float64 `json:"uncertainty_r_low,omitempty"`
	UncertaintyHigh        *float64 `json:"uncertainty_r_high,omitempty"`
}

// PersonaAlignment is one model's alignment, answering as one persona,
// with that persona's human subgroup: the figures of Alignment
// (summarize_alignment, S5:188-219), the human share being the
// subgroup's on each item.
type PersonaAlignment struct {
	Question         string            `json:"question"`
	Model            string            `json:"model"`
	Country          string            `json:"persona_country"`
	Demo             string            `json:"persona_demo"`
	Rows             int64             `json:"rows"`
	Invalid          int64             `json:"invalid"`
	Items            int64             `json:"items"`
	HumanCultureRate float64           `json:"human_culture_rate"`
	ModelCultureRate *float64          `json:"model_culture_rate"`
	Majority         evalmath.Interval `json:"majority_alignment"`
	MAE              evalmath.Interval `json:"distributional_mae"`
	SignedGapPP      evalmath.Interval `json:"signed_gap_pp"`
	HumanAgreement   float64           `json:"human_majority_agreement"`
}

// personaPoint is a result of the persona-prompted run.
type personaPoint struct {
	pactPoint
	country, demo string
}

func (a *pactAcc) personaRun() *PersonaRun {
	run := &PersonaRun{Items: a.personaItems, Alignment: []PersonaAlignment{}, Uncertainty: []PersonaUncertainty{}, UncertaintyAverages: []PersonaUncertainty{}}
	type key struct{ question, model, country, demo string }
	rows := map[key][]pactPoint{}
	pooled := map[[2]string][]pactPoint{} // question, model: against the item's profile
	for qm, pts := range a.persona {
		for _, p := range pts {
			run.Results++
			q := p.pactPoint
			if h, ok := a.itemShares[[2]string{p.group, qm[0]}]; ok {
				q.human = h
			}
			pooled[qm] = append(pooled[qm], q)
			if p.country == "" || p.demo == "" {
				run.Incomplete++
				continue
			}
			h, ok := a.subgroups[[2]string{p.group, qm[0]}][[2]string{p.country, p.demo}]
			if !ok {
				run.Unmatched++
				continue
			}
			sp := p.pactPoint
			sp.human = h
			k := key{qm[0], qm[1], p.country, p.demo}
			rows[k] = append(rows[k], sp)
		}
	}
	for _, k := range slices.SortedFunc(maps.Keys(rows), func(x, y key) int {
		return cmp.Or(cmp.Compare(questionOrder(x.question), questionOrder(y.question)), cmp.Compare(x.question, y.question),
			cmp.Compare(x.model, y.model), cmp.Compare(x.country, y.country), cmp.Compare(x.demo, y.demo))
	}) {
		al, _ := alignment(k.model, rows[k]) // every row has a human share
		run.Alignment = append(run.Alignment, PersonaAlignment{Question: k.question, Model: k.model, Country: k.country, Demo: k.demo,
			Rows: al.Rows, Invalid: al.Invalid, Items: al.Items, HumanCultureRate: al.HumanCultureRate, ModelCultureRate: al.ModelCultureRate,
			Majority: al.Majority, MAE: al.MAE, SignedGapPP: al.SignedGapPP, HumanAgreement: al.HumanAgreement})
	}
	run.Uncertainty, run.UncertaintyAverages = personaUncertainty(pooled)
	switch {
	case len(run.Alignment) > 0:
	case run.Results == 0:
		run.NotComputable = "no result is of a persona-prompted run (an item with pact_item.persona_country and persona_demo)"
	case run.Incomplete == run.Results:
		run.NotComputable = "every persona-prompted result lacks pact_item.persona_country or persona_demo"
	case len(a.subgroups) == 0:
		run.NotComputable = "no item has human answers with a respondent country and demo (pact_item.human.answers: country, demo)"
	default:
		run.NotComputable = "no persona (persona_country, persona_demo) matches a respondent subgroup (country, demo) that answered its item"
	}
	return run
}

// personaUncertainty is the run's uncertainty alignment per framing and
// model, and its mean over the framings per model.
func personaUncertainty(pooled map[[2]string][]pactPoint) (rows, avgs []PersonaUncertainty) {
	rows, avgs = []PersonaUncertainty{}, []PersonaUncertainty{}
	byModel, agreeBy := map[string][]float64{}, map[string][]float64{}
	var models []string
	for _, k := range slices.SortedFunc(maps.Keys(pooled), func(x, y [2]string) int {
		return cmp.Or(cmp.Compare(questionOrder(x[0]), questionOrder(y[0])), cmp.Compare(x[0], y[0]), cmp.Compare(x[1], y[1]))
	}) {
		al, ok := alignment(k[1], pooled[k])
		if !ok || al.UncertaintyItems == 0 {
			continue
		}
		rows = append(rows, PersonaUncertainty{Question: k[0], Model: k[1], Items: al.UncertaintyItems, ModelAgreement: al.ModelAgreement,
			ModelAgreementLowHuman: al.ModelAgreementLowHuman, Uncertainty: al.Uncertainty, UncertaintyLow: al.UncertaintyLow, UncertaintyHigh: al.UncertaintyHigh})
		if _, seen := byModel[k[1]]; !seen {
			models = append(models, k[1])
			byModel[k[1]] = nil
		}
		if k[0] == record.PactPersonal || k[0] == record.PactNorm {
			if al.Uncertainty != nil {
				byModel[k[1]] = append(byModel[k[1]], *al.Uncertainty)
			}
			agreeBy[k[1]] = append(agreeBy[k[1]], *al.ModelAgreement)
		}
	}
	slices.Sort(models)
	for _, m := range models {
		rs := byModel[m]
		ag := agreeBy[m]
		avgs = append(avgs, PersonaUncertainty{Model: m, Uncertainty: evalmath.OptFloat(evalmath.Mean(rs), len(rs) > 0), ModelAgreement: evalmath.OptFloat(evalmath.Mean(ag), len(ag) > 0)})
	}
	return rows, avgs
}
