package pactstats

import (
	"cmp"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ngkit/ngkit/filters/stats/evalmath"
	"github.com/ngkit/ngkit/pkg/record"
)

// The PACT paper's figures (Borah, Augenstein, Mihalcea 2026), by the
// definitions of its authors' released code (MichiganNLP/
// pact_culture_personalization: scripts/compute_current_eval_metrics.py,
// scripts/section5_metrics.py, scripts/plot_section4_demographics_pastel.py).
// The paper has one decision per model and item: a model's decision on a
// result is the argmax of its distribution, follow_culture when p_follow
// >= 0.5 (the authors' tie rule for a rate, majority_choice) and
// allow_preference below; with logprobs or K samples the distribution is
// reduced to that one choice. A model's "allow rate" over a group of
// items is the share of allow decisions among its valid results (the
// authors' allow_rate_valid). The "(average)" rows average over model
// families, as the authors' headline figures do: the models that are not
// base models (all of them when every one is), grouped by family
// (pactFamily), averaged within a family, then over the families.

// The item attributes of the card's actor and receiver (Acc.Add).
const (
	pactActorCountry   = "actor_country"
	pactActorAge       = "actor_age"
	pactActorGender    = "actor_gender"
	pactReceiverAge    = "receiver_age"
	pactReceiverGender = "receiver_gender"
)

// pactSameCountry is the actor_country attribute of an actor of the
// scenario's own country.
const pactSameCountry = "(same as the scenario's)"

// pactRegion is the spread over world regions of the scenario's country
// (pactregions.go).
const pactRegion = "region"

// Average names the rows averaged over the model families (headline).
const Average = "(average)"

// Paper holds the paper's figures for one question framing.
type Paper struct {
	// Models: each model's family, stage, UNKNOWN rate and decision
	// conflict.
	Models []PaperModel `json:"models"`
	// Spread: the country spread, per country attribute (culture: the
	// scenario's country; region: its world region; actor_country) and
	// model, then averaged over the families.
	Spread []Spread `json:"spread"`
	// Demographics: the signed demographic effects.
	Demographics []Demographic `json:"demographics"`
	// Alignment: each model against the items' human distributions.
	Alignment []Alignment `json:"alignment"`
	// Flips: paired decision changes between two models on the same
	// items (base vs instruct).
	Flips []Flip `json:"flips"`
	// Subgroups: each model against each human subgroup, ranked
	// (pactsubgroups.go).
	Subgroups []Subgroup `json:"subgroups"`
}

// PaperModel is one model as the authors' scripts see it
// (compute_current_eval_metrics.py): its family and stage (classify_family,
// classify_stage on its name; a model ngpact asked as a base model is
// base), its results, those without a valid answer and their share of
// all (unknown_rate_all, EV:197), its allow rate over the valid ones, and
// the decision conflict among the variants of each item (variability_metrics,
// EV:215-237): per item, the entropy in bits of its valid results'
// decisions; their mean over the items with one, and the share of those
// items whose decisions differ (entropy > 0).
type PaperModel struct {
	Model            string   `json:"model"`
	Family           string   `json:"family"`
	Stage            string   `json:"stage"` // base, instruct, unknown
	Results          int64    `json:"results"`
	Invalid          int64    `json:"invalid"`
	UnknownRate      float64  `json:"unknown_rate"`
	AllowRate        *float64 `json:"allow_rate"`
	Items            int64    `json:"items"`
	DecisionEntropy  *float64 `json:"decision_entropy"`
	DecisionConflict *float64 `json:"decision_conflict_rate"`
}

// pactFamily is the authors' classify_family of a model's name.
func pactFamily(model string) string {
	low := strings.ToLower(model)
	for _, f := range []string{"llama", "qwen", "mistral", "deepseek", "olmo", "gpt"} {
		if strings.Contains(low, f) {
			return f
		}
	}
	return "unknown"
}

// pactStage is the authors' classify_stage of a model's name (their
// file-name half does not apply); base when ngpact asked it as one.
func pactStage(model string, base bool) string {
	low := strings.ToLower(model)
	switch {
	case base || strings.Contains(low, "base") && !strings.Contains(low, "instruct") && !strings.Contains(low, "chat"):
		return "base"
	case strings.Contains(low, "instruct") || strings.Contains(low, "chat") || strings.Contains(low, "gpt4o") || strings.Contains(low, "gpt-4o"):
		return "instruct"
	}
	return "unknown"
}

func paperModel(model string, pts []pactPoint) PaperModel {
	m := PaperModel{Model: model, Family: pactFamily(model), Results: int64(len(pts))}
	base := false
	var allow []float64
	decs := map[string][]float64{}
	var order []string
	for _, p := range pts {
		base = base || p.base
		if _, ok := decs[p.group]; !ok {
			order = append(order, p.group)
			decs[p.group] = nil
		}
		if math.IsNaN(p.p) {
			m.Invalid++
			continue
		}
		allow = append(allow, allowOf(p))
		decs[p.group] = append(decs[p.group], decision(p.p))
	}
	m.Stage = pactStage(model, base)
	m.Items = int64(len(order))
	if m.Results > 0 {
		m.UnknownRate = float64(m.Invalid) / float64(m.Results)
	}
	m.AllowRate = evalmath.OptFloat(evalmath.Mean(allow), len(allow) > 0)
	var ent []float64
	conflict := 0
	for _, g := range order {
		d := decs[g]
		if len(d) == 0 {
			continue
		}
		e := 0.0
		for _, q := range []float64{evalmath.Mean(d), 1 - evalmath.Mean(d)} {
			if q > 0 {
				e -= q * math.Log2(q)
			}
		}
		ent = append(ent, e)
		if e > 0 {
			conflict++
		}
	}
	if len(ent) > 0 {
		m.DecisionEntropy = evalmath.OptFloat(evalmath.Mean(ent), true)
		m.DecisionConflict = evalmath.OptFloat(float64(conflict)/float64(len(ent)), true)
	}
	return m
}

// headline are the models the "(average)" rows average over, with their
// families: those that are not base models, or all when every one is.
func headline(ms []PaperModel) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		if m.Stage != "base" {
			out[m.Model] = m.Family
		}
	}
	if len(out) == 0 {
		for _, m := range ms {
			out[m.Model] = m.Family
		}
	}
	return out
}

// familyMean averages the models' values within each family (an unknown
// family is the model alone), then over the families (meanOf).
func familyMean(fam map[string]string, vals map[string]evalmath.Interval) (evalmath.Interval, bool) {
	byF := map[string][]evalmath.Interval{}
	for _, m := range slices.Sorted(maps.Keys(vals)) {
		f, ok := fam[m]
		if !ok {
			continue
		}
		if f == "unknown" {
			f = "model:" + m
		}
		byF[f] = append(byF[f], vals[m])
	}
	if len(byF) == 0 {
		return evalmath.Interval{}, false
	}
	var per []evalmath.Interval
	for _, f := range slices.Sorted(maps.Keys(byF)) {
		per = append(per, meanOf(byF[f]))
	}
	return meanOf(per), true
}

// Spread is the paper's country (region) context effect: the allow
// rate of each country minus the model's allow rate over all items, in
// percentage points, and their range, max - min (the paper's 7.8, of
// the regions). For Model "(average)" each country's delta is the mean
// over the families of the models' deltas (familyMean), and the range is
// that of those means, as the authors average before taking it.
type Spread struct {
	Attr      string         `json:"attr"`
	Model     string         `json:"model"`
	Items     int64          `json:"items"`
	AllowRate float64        `json:"allow_rate"`
	Countries []CountryDelta `json:"countries"`
	RangePP   *float64       `json:"range_pp"`
}

// CountryDelta is one country's allow rate and its delta from the
// model's overall rate (pp), with a cluster interval over item groups
// (clusterInterval); for the average, the half-widths averaged (meanOf).
type CountryDelta struct {
	Country   string            `json:"country"`
	Items     int64             `json:"items"`
	AllowRate float64           `json:"allow_rate"`
	DeltaPP   evalmath.Interval `json:"delta_pp"`
}

// Demographic is a signed demographic effect: the allow rate of the
// items whose Role has value Plus minus that of the items with Minus
// (younger - older, female - male), in percentage points, with a cluster
// interval over item groups (clusterInterval). Role "both" is, for a
// model, the mean of the roles it has (averaged_demographic_delta_table);
// for Model "(average)", each role is first averaged over the families
// (demographic_delta_table) and "both" is the mean of those two (the
// paper's 1.0 for age and 0.7 for gender). Averaged intervals take the
// mean half-width (meanOf: conservative, the values share items).
type Demographic struct {
	Model   string            `json:"model"`
	Factor  string            `json:"factor"` // age, gender
	Role    string            `json:"role"`   // actor, receiver, both
	Plus    string            `json:"plus"`
	Minus   string            `json:"minus"`
	DeltaPP evalmath.Interval `json:"delta_pp"`
}

// Alignment is the paper's human-model alignment of one model, over
// the items with a human share (section5_metrics.py's summarize_alignment
// and model_uncertainty). The model's decision on a result is the argmax
// of its distribution, follow_culture when p_follow >= 0.5 (the authors'
// tie rule, majority_choice): the one choice per item of the paper.
// Rows are the results (persona variants of an item are rows of one
// item); Items the items, the variants of one scenario item (variant_of,
// else scenario_id) pooled, as the authors pool a scenario_item_id.
// A result without a valid answer stays in Rows, Items, the human rate
// and the human agreement, and counts as a mismatch in the majority
// alignment (S5:205-214); the model rate, MAE and gap skip it, as pandas'
// mean skips NaN.
//
//   - Majority: the share of rows whose decision is the human majority
//     (human share >= 0.5: culture), Wilson interval;
//   - MAE: mean |decision - human share| over the valid rows (the
//     paper's distributional MAE, a 0/1 choice against the share);
//     PFollowMAE is the same with p_follow for the decision, ngkit's
//     distributional variant (not a paper figure);
//   - SignedGapPP: per item, the mean decision of its valid rows minus
//     its human share, averaged over items, in pp;
//   - HumanAgreement: mean max(h, 1-h) over rows;
//   - the uncertainty figures (model_uncertainty), per item over its
//     valid rows: the model's rate (mean decision) and its majority
//     agreement max(r, 1-r); ModelAgreement is their mean over items,
//     ModelAgreementLowHuman the mean over the items whose human
//     agreement is at most the median (humans disagree most), and
//     Uncertainty Pearson's r across items of the human and model
//     agreements (the paper's best, 0.24), with a Fisher-z interval;
//     null when undefined (one decision per item gives agreement 1
//     everywhere).
//
// MAE and gap have cluster intervals over items.
type Alignment struct {
	Model                  string            `json:"model"`
	Rows                   int64             `json:"rows"`
	Invalid                int64             `json:"invalid"`
	Items                  int64             `json:"items"`
	HumanCultureRate       float64           `json:"human_culture_rate"`
	ModelCultureRate       *float64          `json:"model_culture_rate"`
	Majority               evalmath.Interval `json:"majority_alignment"`
	MAE                    evalmath.Interval `json:"distributional_mae"`
	PFollowMAE             evalmath.Interval `json:"p_follow_mae"`
	SignedGapPP            evalmath.Interval `json:"signed_gap_pp"`
	HumanAgreement         float64           `json:"human_majority_agreement"`
	UncertaintyItems       int64             `json:"uncertainty_items"`
	ModelAgreement         *float64          `json:"model_majority_agreement"`
	ModelAgreementLowHuman *float64          `json:"model_majority_agreement_low_human_agreement"`
	Uncertainty            *float64          `json:"uncertainty_r"`
	UncertaintyLow         *float64          `json:"uncertainty_r_low"`
	UncertaintyHigh        *float64          `json:"uncertainty_r_high"`
}

// Flip is the paper's paired flip summary (compute_current_eval_metrics.py's
// paired_flip_summary) of model Left against model Right on the items
// both decided: each model's allow rate (share of allow decisions), the
// change Right - Left in pp, and the shares of items that flip from
// culture to preference (FlipPos: Left follow, Right allow), from
// preference to culture (FlipNeg) and keep their decision (Same), each
// with a Wilson interval. Pairs are every two models, Left first by name
// (name them so the base model sorts first, or read FlipNeg as FlipPos).
type Flip struct {
	Left         string            `json:"left"`
	Right        string            `json:"right"`
	Items        int64             `json:"items"`
	LeftAllow    float64           `json:"left_allow_rate"`
	RightAllow   float64           `json:"right_allow_rate"`
	AllowDeltaPP float64           `json:"allow_rate_delta_pp"`
	FlipPos      evalmath.Interval `json:"flip_culture_to_preference"`
	FlipNeg      evalmath.Interval `json:"flip_preference_to_culture"`
	Same         evalmath.Interval `json:"same_decision"`
}

// FramingAverage is one model's alignment averaged over the paper's
// two framings, personal and norm (the site's alignmentAvg;
// plot_section5_acl_figures.py groups by model and takes the mean):
// majority alignment, MAE and signed gap, the mean of the framings that
// have them; uncertainty r, the mean of the framings where it is defined
// (pandas' mean skips NaN), null when none is. The r is of the
// persona-free run; the paper's uncertaintyAvg is of the persona-prompted
// one (PersonaRun.UncertaintyAverages).
type FramingAverage struct {
	Model       string   `json:"model"`
	Framings    int64    `json:"framings"`
	Majority    float64  `json:"majority_alignment"`
	MAE         *float64 `json:"distributional_mae"`
	SignedGapPP *float64 `json:"signed_gap_pp"`
	Uncertainty *float64 `json:"uncertainty_r"`
}

func framingAverages(qs []Question) []FramingAverage {
	type acc struct {
		n                  int64
		maj, mae, gap, unc []float64
	}
	byM := map[string]*acc{}
	for _, q := range qs {
		if q.Question != record.PactPersonal && q.Question != record.PactNorm {
			continue
		}
		for _, a := range q.Paper.Alignment {
			c := byM[a.Model]
			if c == nil {
				c = &acc{}
				byM[a.Model] = c
			}
			c.n++
			c.maj = append(c.maj, a.Majority.Mean)
			if a.MAE.N > 0 {
				c.mae = append(c.mae, a.MAE.Mean)
			}
			if a.SignedGapPP.N > 0 {
				c.gap = append(c.gap, a.SignedGapPP.Mean)
			}
			if a.Uncertainty != nil {
				c.unc = append(c.unc, *a.Uncertainty)
			}
		}
	}
	out := []FramingAverage{}
	for _, m := range slices.Sorted(maps.Keys(byM)) {
		c := byM[m]
		if c.n < 2 {
			continue
		}
		out = append(out, FramingAverage{Model: m, Framings: c.n, Majority: evalmath.Mean(c.maj),
			MAE: evalmath.OptFloat(evalmath.Mean(c.mae), len(c.mae) > 0), SignedGapPP: evalmath.OptFloat(evalmath.Mean(c.gap), len(c.gap) > 0), Uncertainty: evalmath.OptFloat(evalmath.Mean(c.unc), len(c.unc) > 0)})
	}
	return out
}

// decidesFollow is the model's decision on an item: the authors' rule
// for a rate (majority_choice: rate >= 0.5 is culture).
func decidesFollow(p float64) bool { return p >= 0.5 }

// paperFigures computes the paper's figures for one framing over its
// models (pts gives a model's points).
func paperFigures(models []string, pts func(string) []pactPoint) Paper {
	out := Paper{Models: []PaperModel{}, Spread: []Spread{}, Demographics: []Demographic{}, Alignment: []Alignment{}, Flips: []Flip{}, Subgroups: []Subgroup{}}
	for _, m := range models {
		out.Models = append(out.Models, paperModel(m, pts(m)))
	}
	fam := headline(out.Models)
	for _, attr := range []string{Culture, pactRegion, pactActorCountry} {
		var per []Spread
		for _, m := range models {
			if s, ok := countrySpread(attr, m, pts(m)); ok {
				per = append(per, s)
			}
		}
		out.Spread = append(out.Spread, per...)
		switch {
		case attr == pactRegion && len(per) > 0:
			out.Spread = append(out.Spread, regionAverage(models, pts, fam))
		case len(per) > 1:
			out.Spread = append(out.Spread, averageSpread(attr, per, fam))
		}
	}
	for _, f := range []struct{ factor, actor, receiver string }{
		{"age", pactActorAge, pactReceiverAge}, {"gender", pactActorGender, pactReceiverGender},
	} {
		// byRole: each model's effect per role (demographic_delta_table)
		byRole := map[string]map[string]evalmath.Interval{"actor": {}, "receiver": {}}
		var rows []Demographic
		for _, m := range models {
			p := pts(m)
			var both []Demographic
			for _, role := range []struct{ name, attr string }{{"actor", f.actor}, {"receiver", f.receiver}} {
				if d, ok := demographic(m, f.factor, role.name, role.attr, p); ok {
					rows = append(rows, d)
					both = append(both, d)
					byRole[role.name][m] = d.DeltaPP
				}
			}
			if len(both) > 0 {
				// averaged_demographic_delta_table: the mean of the roles
				// the model has
				b := both[0]
				b.Role = "both"
				if len(both) == 2 {
					b.DeltaPP = meanOf([]evalmath.Interval{both[0].DeltaPP, both[1].DeltaPP})
				}
				rows = append(rows, b)
			}
		}
		out.Demographics = append(out.Demographics, rows...)
		if len(models) > 1 && len(rows) > 0 {
			// Each role averaged over the families first (S4D:135-139),
			// then the two roles (S4D:217-223).
			var roles []evalmath.Interval
			for _, role := range []string{"actor", "receiver"} {
				if iv, ok := familyMean(fam, byRole[role]); ok {
					out.Demographics = append(out.Demographics, Demographic{Model: Average, Factor: f.factor, Role: role,
						Plus: rows[0].Plus, Minus: rows[0].Minus, DeltaPP: iv})
					roles = append(roles, iv)
				}
			}
			if len(roles) > 0 {
				out.Demographics = append(out.Demographics, Demographic{Model: Average, Factor: f.factor, Role: "both",
					Plus: rows[0].Plus, Minus: rows[0].Minus, DeltaPP: meanOf(roles)})
			}
		}
	}
	for _, m := range models {
		if a, ok := alignment(m, pts(m)); ok {
			out.Alignment = append(out.Alignment, a)
		}
	}
	for i, l := range models {
		for _, r := range models[i+1:] {
			if f, ok := flips(l, r, pts(l), pts(r)); ok {
				out.Flips = append(out.Flips, f)
			}
		}
	}
	return out
}

// allowOf is a valid result's allow decision, 1 or 0: the authors' rates
// are shares of decisions.
func allowOf(p pactPoint) float64 { return 1 - decision(p.p) }

// valid are the points with a p_follow.
func valid(pts []pactPoint) []pactPoint {
	var out []pactPoint
	for _, p := range pts {
		if !math.IsNaN(p.p) {
			out = append(out, p)
		}
	}
	return out
}

// countrySpread: ok is false unless two countries (one region) have items.
func countrySpread(attr, model string, pts []pactPoint) (Spread, bool) {
	byC := map[string][]float64{}
	var all []float64
	var cs, groups []string
	for _, p := range valid(pts) {
		c := p.attrs[attr]
		switch attr {
		case pactActorCountry:
			c = p.actorCountry
		case pactRegion:
			// an item of no region counts in the overall rate only
			c = regionOf(p.attrs[Culture])
			if c == "" && p.attrs[Culture] == "" {
				continue
			}
		}
		if c == "" && attr != pactRegion {
			continue
		}
		if c != "" {
			byC[c] = append(byC[c], allowOf(p))
		}
		all = append(all, allowOf(p))
		cs, groups = append(cs, c), append(groups, p.group)
	}
	// a region's delta is defined with one region (the overall rate
	// counts the items of no region too); a country's needs two
	if len(byC) < 2 && (attr != pactRegion || len(byC) == 0) {
		return Spread{}, false
	}
	s := Spread{Attr: attr, Model: model, Items: int64(len(all)), AllowRate: evalmath.Mean(all)}
	n := float64(len(all))
	infl := make([]float64, len(all))
	for _, c := range slices.Sorted(maps.Keys(byC)) {
		mc, nc := evalmath.Mean(byC[c]), float64(len(byC[c]))
		for i, x := range all {
			// delta = mean_c - mean_all, linearized per item (pp)
			infl[i] = -100 * (x - s.AllowRate) / n
			if cs[i] == c {
				infl[i] += 100 * (x - mc) / nc
			}
		}
		s.Countries = append(s.Countries, CountryDelta{Country: c, Items: int64(nc), AllowRate: mc,
			DeltaPP: evalmath.ClusterInterval(100*(mc-s.AllowRate), infl, groups)})
	}
	s.RangePP = deltaRange(s.Countries)
	return s, true
}

func deltaRange(cs []CountryDelta) *float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, c := range cs {
		lo, hi = min(lo, c.DeltaPP.Mean), max(hi, c.DeltaPP.Mean)
	}
	return evalmath.OptFloat(hi-lo, len(cs) > 1)
}

// averageSpread averages each country's delta over the families of the
// headline models (familyMean), as the authors average the region deltas
// over the model families (S4D:292-299).
func averageSpread(attr string, per []Spread, fam map[string]string) Spread {
	deltas := map[string]map[string]evalmath.Interval{}
	rates := map[string][]float64{}
	items := map[string]int64{}
	var overall []float64
	for _, s := range per {
		if _, ok := fam[s.Model]; !ok {
			continue
		}
		overall = append(overall, s.AllowRate)
		for _, c := range s.Countries {
			if deltas[c.Country] == nil {
				deltas[c.Country] = map[string]evalmath.Interval{}
			}
			deltas[c.Country][s.Model] = c.DeltaPP
			rates[c.Country] = append(rates[c.Country], c.AllowRate)
			items[c.Country] += c.Items
		}
	}
	avg := Spread{Attr: attr, Model: Average}
	if len(overall) > 0 {
		avg.AllowRate = evalmath.Mean(overall)
	}
	for _, c := range slices.Sorted(maps.Keys(deltas)) {
		d, _ := familyMean(fam, deltas[c])
		avg.Items += items[c]
		avg.Countries = append(avg.Countries, CountryDelta{Country: c, Items: items[c], AllowRate: evalmath.Mean(rates[c]), DeltaPP: d})
	}
	avg.RangePP = deltaRange(avg.Countries)
	return avg
}

// regionAverage is the paper's region figure (region_context_table,
// S4D:285-301): each region's delta per model family and dataset (the
// items' metadata_source), a family's models averaged, then the mean
// over those (family, dataset) rows; its range, max - min.
func regionAverage(models []string, pts func(string) []pactPoint, fam map[string]string) Spread {
	type key struct{ family, source string }
	per := map[string]map[key][]evalmath.Interval{} // region -> (family, dataset) -> the models' deltas
	rates := map[string][]float64{}
	items := map[string]int64{}
	var overall []float64
	for _, m := range models {
		f, ok := fam[m]
		if !ok {
			continue
		}
		if f == "unknown" {
			f = "model:" + m
		}
		bySource := map[string][]pactPoint{}
		for _, p := range pts(m) {
			bySource[p.source] = append(bySource[p.source], p)
		}
		for _, src := range slices.Sorted(maps.Keys(bySource)) {
			s, ok := countrySpread(pactRegion, m, bySource[src])
			if !ok {
				continue
			}
			overall = append(overall, s.AllowRate)
			for _, c := range s.Countries {
				if per[c.Country] == nil {
					per[c.Country] = map[key][]evalmath.Interval{}
				}
				k := key{f, src}
				per[c.Country][k] = append(per[c.Country][k], c.DeltaPP)
				rates[c.Country] = append(rates[c.Country], c.AllowRate)
				items[c.Country] += c.Items
			}
		}
	}
	avg := Spread{Attr: pactRegion, Model: Average, Countries: []CountryDelta{}}
	if len(overall) > 0 {
		avg.AllowRate = evalmath.Mean(overall)
	}
	for _, c := range slices.Sorted(maps.Keys(per)) {
		var rows []evalmath.Interval
		for _, k := range slices.SortedFunc(maps.Keys(per[c]), func(x, y key) int {
			return cmp.Or(cmp.Compare(x.family, y.family), cmp.Compare(x.source, y.source))
		}) {
			rows = append(rows, meanOf(per[c][k]))
		}
		avg.Items += items[c]
		avg.Countries = append(avg.Countries, CountryDelta{Country: c, Items: items[c], AllowRate: evalmath.Mean(rates[c]), DeltaPP: meanOf(rows)})
	}
	avg.RangePP = deltaRange(avg.Countries)
	return avg
}

// demographicPoles are the two values a factor's signed effect compares,
// plus first: younger/older, female/male (the authors' values); age
// bands ("18-29", "50+") compare the youngest with the oldest.
func demographicPoles(factor string, values []string) (plus, minus string, ok bool) {
	has := func(v string) bool { return slices.Contains(values, v) }
	switch factor {
	case "gender":
		for _, p := range [][2]string{{"female", "male"}, {"woman", "man"}, {"Female", "Male"}} {
			if has(p[0]) && has(p[1]) {
				return p[0], p[1], true
			}
		}
		return "", "", false
	case "age":
		for _, p := range [][2]string{{"younger", "older"}, {"young", "old"}, {"Younger", "Older"}} {
			if has(p[0]) && has(p[1]) {
				return p[0], p[1], true
			}
		}
		// bands: by their first number
		first := func(v string) (float64, bool) {
			i := strings.IndexFunc(v, func(r rune) bool { return r < '0' || r > '9' })
			if i < 0 {
				i = len(v)
			}
			f, err := strconv.ParseFloat(v[:i], 64)
			return f, err == nil && i > 0
		}
		var bands []string
		for _, v := range values {
			if _, ok := first(v); ok {
				bands = append(bands, v)
			}
		}
		if len(bands) < 2 {
			return "", "", false
		}
		slices.SortFunc(bands, func(a, b string) int {
			x, _ := first(a)
			y, _ := first(b)
			return cmp.Compare(x, y)
		})
		return bands[0], bands[len(bands)-1], true
	}
	return "", "", false
}

// demographic is one model's signed effect of factor in role. The actor's
// age and gender are the item's actor_age/actor_gender, else the
// persona's age/gender.
func demographic(model, factor, role, attr string, pts []pactPoint) (Demographic, bool) {
	val := func(p pactPoint) string {
		if v, ok := p.attrs[attr]; ok {
			return v
		}
		if role == "actor" {
			return p.attrs[factor]
		}
		return ""
	}
	// A value's allow rate is the mean over the datasets (the items'
	// metadata_source) of its rate in each, as the authors average
	// CultureAtlas and NormAD (aggregate_group_rates, S4D:87-107); with
	// one dataset, the plain rate.
	bySV := map[[2]string][]float64{}
	sources := map[string]map[string]bool{} // value -> datasets
	vp := valid(pts)
	for _, p := range vp {
		if v := val(p); v != "" {
			k := [2]string{p.source, v}
			bySV[k] = append(bySV[k], allowOf(p))
			if sources[v] == nil {
				sources[v] = map[string]bool{}
			}
			sources[v][p.source] = true
		}
	}
	plus, minus, ok := demographicPoles(factor, slices.Collect(maps.Keys(sources)))
	if !ok {
		return Demographic{}, false
	}
	rate := func(v string) float64 {
		var rs []float64
		for _, src := range slices.Sorted(maps.Keys(sources[v])) {
			rs = append(rs, evalmath.Mean(bySV[[2]string{src, v}]))
		}
		return evalmath.Mean(rs)
	}
	mp, mm := rate(plus), rate(minus)
	var infl []float64
	var groups []string
	for _, p := range vp {
		v := val(p)
		sign := 1.0
		switch v {
		case plus:
		case minus:
			sign = -1
		default:
			continue
		}
		// rate(v) = (1/D) sum_d mean_{d,v}: a point's share of it
		xs := bySV[[2]string{p.source, v}]
		infl = append(infl, sign*100*(allowOf(p)-evalmath.Mean(xs))/(float64(len(xs))*float64(len(sources[v]))))
		groups = append(groups, p.group)
	}
	d := evalmath.ClusterInterval(100*(mp-mm), infl, groups)
	return Demographic{Model: model, Factor: factor, Role: role, Plus: plus, Minus: minus, DeltaPP: d}, true
}

// meanOf is the mean of estimates made on the same items, its interval's
// half-widths the mean of theirs: conservative whatever their
// correlation (the standard deviation of a mean is at most the mean of
// the standard deviations).
func meanOf(ivs []evalmath.Interval) evalmath.Interval {
	var m, lo, hi float64
	var n int64
	for _, iv := range ivs {
		m += iv.Mean
		lo += iv.Mean - iv.Low
		hi += iv.High - iv.Mean
		n = max(n, iv.N)
	}
	k := float64(len(ivs))
	m, lo, hi = m/k, lo/k, hi/k
	return evalmath.Interval{N: n, Mean: m, Low: m - lo, High: m + hi}
}

// agreementOf is a rate's majority agreement, max(r, 1-r).
func agreementOf(r float64) float64 { return max(r, 1-r) }

// decision is a result's one choice, 1 for follow_culture and 0 for
// allow_preference (decidesFollow), NaN when it has none.
func decision(p float64) float64 {
	switch {
	case math.IsNaN(p):
		return math.NaN()
	case decidesFollow(p):
		return 1
	}
	return 0
}

func alignment(model string, pts []pactPoint) (Alignment, bool) {
	type item struct {
		h    float64   // the first row's human share (the authors' "first")
		decs []float64 // the valid rows' decisions
	}
	var hs, ds, abs, pabs, ha []float64
	var absGroups []string
	var order []string
	items := map[string]*item{}
	var same, invalid int64
	for _, p := range pts {
		if math.IsNaN(p.human) {
			continue
		}
		it := items[p.group]
		if it == nil {
			it = &item{h: p.human}
			items[p.group] = it
			order = append(order, p.group)
		}
		hs, ha = append(hs, p.human), append(ha, agreementOf(p.human))
		d := decision(p.p)
		if math.IsNaN(d) {
			invalid++ // a mismatch, kept in the counts
			continue
		}
		it.decs = append(it.decs, d)
		ds = append(ds, d)
		abs, pabs = append(abs, math.Abs(d-p.human)), append(pabs, math.Abs(p.p-p.human))
		absGroups = append(absGroups, p.group)
		if d == decision(p.human) {
			same++
		}
	}
	if len(hs) == 0 {
		return Alignment{}, false
	}
	n := int64(len(hs))
	a := Alignment{Model: model, Rows: n, Invalid: invalid, Items: int64(len(items)), HumanCultureRate: evalmath.Mean(hs),
		Majority: evalmath.ShareWilson(same, n), HumanAgreement: evalmath.Mean(ha)}
	if len(ds) > 0 {
		a.ModelCultureRate = evalmath.OptFloat(evalmath.Mean(ds), true)
		a.MAE, a.PFollowMAE = clusterMean(abs, absGroups), clusterMean(pabs, absGroups)
	}
	var gap, hAgree, mAgree []float64
	var gapGroups []string
	for _, g := range order {
		it := items[g]
		if len(it.decs) == 0 {
			continue
		}
		r := evalmath.Mean(it.decs)
		gap, gapGroups = append(gap, 100*(r-it.h)), append(gapGroups, g)
		hAgree, mAgree = append(hAgree, agreementOf(it.h)), append(mAgree, agreementOf(r))
	}
	if len(gap) == 0 {
		return a, true
	}
	a.SignedGapPP = clusterMean(gap, gapGroups)
	a.UncertaintyItems = int64(len(gap))
	a.ModelAgreement = evalmath.OptFloat(evalmath.Mean(mAgree), true)
	med := median(hAgree)
	var low []float64
	for i, h := range hAgree {
		if h <= med {
			low = append(low, mAgree[i])
		}
	}
	a.ModelAgreementLowHuman = evalmath.OptFloat(evalmath.Mean(low), len(low) > 0)
	if r, ok := evalmath.Pearson(hAgree, mAgree); ok {
		a.Uncertainty = &r
		if k := len(gap); k > 3 && math.Abs(r) < 1 {
			z, h := math.Atanh(r), evalmath.Z95/math.Sqrt(float64(k-3))
			lo, hi := math.Tanh(z-h), math.Tanh(z+h)
			a.UncertaintyLow, a.UncertaintyHigh = &lo, &hi
		}
	}
	return a, true
}

// median is pandas' Series.median: the mean of the two middle values of
// an even count.
func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	k := len(s)
	if k%2 == 1 {
		return s[k/2]
	}
	return (s[k/2-1] + s[k/2]) / 2
}

// clusterMean is the mean of xs with its cluster interval over groups.
func clusterMean(xs []float64, groups []string) evalmath.Interval {
	m := evalmath.Mean(xs)
	infl := make([]float64, len(xs))
	for i, x := range xs {
		infl[i] = (x - m) / float64(len(xs))
	}
	return evalmath.ClusterInterval(m, infl, groups)
}

func flips(left, right string, pl, pr []pactPoint) (Flip, bool) {
	byID := map[string]float64{}
	for _, p := range valid(pr) {
		byID[p.id] = p.p
	}
	var n, pos, neg, la, ra int64
	for _, p := range valid(pl) {
		q, ok := byID[p.id]
		if !ok {
			continue
		}
		n++
		lf, rf := decidesFollow(p.p), decidesFollow(q)
		switch {
		case lf && !rf:
			pos++
		case !lf && rf:
			neg++
		}
		if !lf {
			la++
		}
		if !rf {
			ra++
		}
	}
	if n == 0 {
		return Flip{}, false
	}
	f := Flip{Left: left, Right: right, Items: n, LeftAllow: float64(la) / float64(n), RightAllow: float64(ra) / float64(n),
		FlipPos: evalmath.ShareWilson(pos, n), FlipNeg: evalmath.ShareWilson(neg, n), Same: evalmath.ShareWilson(n-pos-neg, n)}
	f.AllowDeltaPP = 100 * (f.RightAllow - f.LeftAllow)
	return f, true
}
