package stats

import (
	"cmp"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// The PACT paper's figures (Borah, Augenstein, Mihalcea 2026), by the
// definitions of its authors' released code (MichiganNLP/
// pact_culture_personalization: scripts/compute_current_eval_metrics.py,
// scripts/section5_metrics.py, scripts/plot_section4_demographics_pastel.py).
// A model's "allow rate" over a group of items is the mean of 1 - p_follow
// (with one decision per item, the authors' share of ALLOW_PREFERENCE);
// its decision on an item is follow_culture when p_follow >= 0.5, the
// authors' tie rule for a rate, and allow_preference below.

// The item attributes of the card's actor and receiver (addPact).
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

// pactAverage names the rows averaged over the models.
const pactAverage = "(average)"

// PactPaper holds the paper's figures for one question framing.
type PactPaper struct {
	// Spread: the country spread, per country attribute (culture: the
	// scenario's country; actor_country) and model, then averaged over
	// the models.
	Spread []PactSpread `json:"spread"`
	// Demographics: the signed demographic effects.
	Demographics []PactDemographic `json:"demographics"`
	// Alignment: each model against the items' human distributions.
	Alignment []PactAlignment `json:"alignment"`
	// Flips: paired decision changes between two models on the same
	// items (base vs instruct).
	Flips []PactFlip `json:"flips"`
}

// PactSpread is the paper's country (region) context effect: the allow
// rate of each country minus the model's allow rate over all items, in
// percentage points, and their range, max - min (the paper's 7.8). For
// Model "(average)" each country's delta is the mean of the models'
// deltas, and the range is that of those means, as the authors average
// over models before taking it.
type PactSpread struct {
	Attr      string             `json:"attr"`
	Model     string             `json:"model"`
	Items     int64              `json:"items"`
	AllowRate float64            `json:"allow_rate"`
	Countries []PactCountryDelta `json:"countries"`
	RangePP   *float64           `json:"range_pp"`
}

// PactCountryDelta is one country's allow rate and its delta from the
// model's overall rate (pp), with a cluster interval over item groups
// (clusterInterval); for the average over models, a t interval over the
// models.
type PactCountryDelta struct {
	Country   string   `json:"country"`
	Items     int64    `json:"items"`
	AllowRate float64  `json:"allow_rate"`
	DeltaPP   Interval `json:"delta_pp"`
}

// PactDemographic is a signed demographic effect: the allow rate of the
// items whose Role has value Plus minus that of the items with Minus
// (younger - older, female - male), in percentage points, with a cluster
// interval over item groups (clusterInterval). Role "both" is the mean of the actor's and the receiver's
// effect (the paper's figure: 1.0 for age and 0.7 for gender are this,
// averaged over models), its interval half-width the mean of the two
// (meanOf: conservative, the two share items). Model "(average)" is the
// mean over the models, likewise.
type PactDemographic struct {
	Model   string   `json:"model"`
	Factor  string   `json:"factor"` // age, gender
	Role    string   `json:"role"`   // actor, receiver, both
	Plus    string   `json:"plus"`
	Minus   string   `json:"minus"`
	DeltaPP Interval `json:"delta_pp"`
}

// PactAlignment is the paper's human-model alignment of one model, over
// the items with a human distribution (section5_metrics.py's
// summarize_alignment and model_uncertainty): the mean culture rates,
// majority alignment (the model's decision equals the human majority, a
// human rate >= 0.5 counting as culture), the distributional MAE, mean
// |p - h|, the signed gap, mean (p - h), in pp, the mean majority
// agreement max(r, 1-r) of humans and of the model, and the uncertainty
// correlation: Pearson, across items, of the two majority agreements (the
// paper's best, 0.24), with its Fisher-z interval. MAE and gap have
// cluster intervals over item groups, majority alignment a Wilson one.
type PactAlignment struct {
	Model            string   `json:"model"`
	Items            int64    `json:"items"`
	HumanCultureRate float64  `json:"human_culture_rate"`
	ModelCultureRate float64  `json:"model_culture_rate"`
	Majority         Interval `json:"majority_alignment"`
	MAE              Interval `json:"distributional_mae"`
	SignedGapPP      Interval `json:"signed_gap_pp"`
	HumanAgreement   float64  `json:"human_majority_agreement"`
	ModelAgreement   float64  `json:"model_majority_agreement"`
	Uncertainty      *float64 `json:"uncertainty_r"`
	UncertaintyLow   *float64 `json:"uncertainty_r_low"`
	UncertaintyHigh  *float64 `json:"uncertainty_r_high"`
}

// PactFlip is the paper's paired flip summary (compute_current_eval_metrics.py's
// paired_flip_summary) of model Left against model Right on the items
// both decided: each model's allow rate (share of allow decisions), the
// change Right - Left in pp, and the shares of items that flip from
// culture to preference (FlipPos: Left follow, Right allow), from
// preference to culture (FlipNeg) and keep their decision (Same), each
// with a Wilson interval. Pairs are every two models, Left first by name
// (name them so the base model sorts first, or read FlipNeg as FlipPos).
type PactFlip struct {
	Left         string   `json:"left"`
	Right        string   `json:"right"`
	Items        int64    `json:"items"`
	LeftAllow    float64  `json:"left_allow_rate"`
	RightAllow   float64  `json:"right_allow_rate"`
	AllowDeltaPP float64  `json:"allow_rate_delta_pp"`
	FlipPos      Interval `json:"flip_culture_to_preference"`
	FlipNeg      Interval `json:"flip_preference_to_culture"`
	Same         Interval `json:"same_decision"`
}

// decidesFollow is the model's decision on an item: the authors' rule
// for a rate (majority_choice: rate >= 0.5 is culture).
func decidesFollow(p float64) bool { return p >= 0.5 }

// paperFigures computes the paper's figures for one framing over its
// models (pts gives a model's points).
func paperFigures(models []string, pts func(string) []pactPoint) PactPaper {
	out := PactPaper{Spread: []PactSpread{}, Demographics: []PactDemographic{}, Alignment: []PactAlignment{}, Flips: []PactFlip{}}
	for _, attr := range []string{pactCulture, pactActorCountry} {
		var per []PactSpread
		for _, m := range models {
			if s, ok := countrySpread(attr, m, pts(m)); ok {
				per = append(per, s)
			}
		}
		out.Spread = append(out.Spread, per...)
		if len(per) > 1 {
			out.Spread = append(out.Spread, averageSpread(attr, per))
		}
	}
	for _, f := range []struct{ factor, actor, receiver string }{
		{"age", pactActorAge, pactReceiverAge}, {"gender", pactActorGender, pactReceiverGender},
	} {
		byRole := map[string][]Interval{}
		var rows []PactDemographic
		for _, m := range models {
			p := pts(m)
			var both []PactDemographic
			for _, role := range []struct{ name, attr string }{{"actor", f.actor}, {"receiver", f.receiver}} {
				if d, ok := demographic(m, f.factor, role.name, role.attr, p); ok {
					rows = append(rows, d)
					both = append(both, d)
					byRole[role.name] = append(byRole[role.name], d.DeltaPP)
				}
			}
			if len(both) > 0 {
				b := both[0]
				b.Role = "both"
				if len(both) == 2 {
					b.DeltaPP = meanOf([]Interval{both[0].DeltaPP, both[1].DeltaPP})
				}
				rows = append(rows, b)
				byRole["both"] = append(byRole["both"], b.DeltaPP)
			}
		}
		out.Demographics = append(out.Demographics, rows...)
		if len(models) > 1 && len(rows) > 0 {
			for _, role := range []string{"actor", "receiver", "both"} {
				if v := byRole[role]; len(v) > 0 {
					out.Demographics = append(out.Demographics, PactDemographic{Model: pactAverage, Factor: f.factor, Role: role,
						Plus: rows[0].Plus, Minus: rows[0].Minus, DeltaPP: meanOf(v)})
				}
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

// countrySpread: ok is false unless two countries have items.
func countrySpread(attr, model string, pts []pactPoint) (PactSpread, bool) {
	byC := map[string][]float64{}
	var all []float64
	var cs, groups []string
	for _, p := range valid(pts) {
		c := p.attrs[attr]
		if attr == pactActorCountry {
			c = p.actorCountry
		}
		if c == "" {
			continue
		}
		byC[c] = append(byC[c], 1-p.p)
		all = append(all, 1-p.p)
		cs, groups = append(cs, c), append(groups, p.group)
	}
	if len(byC) < 2 {
		return PactSpread{}, false
	}
	s := PactSpread{Attr: attr, Model: model, Items: int64(len(all)), AllowRate: mean(all)}
	n := float64(len(all))
	infl := make([]float64, len(all))
	for _, c := range slices.Sorted(maps.Keys(byC)) {
		mc, nc := mean(byC[c]), float64(len(byC[c]))
		for i, x := range all {
			// delta = mean_c - mean_all, linearized per item (pp)
			infl[i] = -100 * (x - s.AllowRate) / n
			if cs[i] == c {
				infl[i] += 100 * (x - mc) / nc
			}
		}
		s.Countries = append(s.Countries, PactCountryDelta{Country: c, Items: int64(nc), AllowRate: mc,
			DeltaPP: clusterInterval(100*(mc-s.AllowRate), infl, groups)})
	}
	s.RangePP = deltaRange(s.Countries)
	return s, true
}

func deltaRange(cs []PactCountryDelta) *float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, c := range cs {
		lo, hi = min(lo, c.DeltaPP.Mean), max(hi, c.DeltaPP.Mean)
	}
	return optFloat(hi-lo, len(cs) > 1)
}

// averageSpread averages each country's delta over the models that have
// it (meanOf).
func averageSpread(attr string, per []PactSpread) PactSpread {
	deltas := map[string][]Interval{}
	rates := map[string][]float64{}
	items := map[string]int64{}
	var overall []float64
	for _, s := range per {
		overall = append(overall, s.AllowRate)
		for _, c := range s.Countries {
			deltas[c.Country] = append(deltas[c.Country], c.DeltaPP)
			rates[c.Country] = append(rates[c.Country], c.AllowRate)
			items[c.Country] += c.Items
		}
	}
	avg := PactSpread{Attr: attr, Model: pactAverage, AllowRate: mean(overall)}
	for _, c := range slices.Sorted(maps.Keys(deltas)) {
		avg.Items += items[c]
		avg.Countries = append(avg.Countries, PactCountryDelta{Country: c, Items: items[c], AllowRate: mean(rates[c]), DeltaPP: meanOf(deltas[c])})
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
func demographic(model, factor, role, attr string, pts []pactPoint) (PactDemographic, bool) {
	val := func(p pactPoint) string {
		if v, ok := p.attrs[attr]; ok {
			return v
		}
		if role == "actor" {
			return p.attrs[factor]
		}
		return ""
	}
	byV := map[string][]float64{}
	vp := valid(pts)
	for _, p := range vp {
		if v := val(p); v != "" {
			byV[v] = append(byV[v], 1-p.p)
		}
	}
	plus, minus, ok := demographicPoles(factor, slices.Collect(maps.Keys(byV)))
	if !ok {
		return PactDemographic{}, false
	}
	mp, mm := mean(byV[plus]), mean(byV[minus])
	np, nm := float64(len(byV[plus])), float64(len(byV[minus]))
	var infl []float64
	var groups []string
	for _, p := range vp {
		switch val(p) {
		case plus:
			infl = append(infl, 100*((1-p.p)-mp)/np)
		case minus:
			infl = append(infl, -100*((1-p.p)-mm)/nm)
		default:
			continue
		}
		groups = append(groups, p.group)
	}
	d := clusterInterval(100*(mp-mm), infl, groups)
	return PactDemographic{Model: model, Factor: factor, Role: role, Plus: plus, Minus: minus, DeltaPP: d}, true
}

// meanOf is the mean of estimates made on the same items, its interval's
// half-widths the mean of theirs: conservative whatever their
// correlation (the standard deviation of a mean is at most the mean of
// the standard deviations).
func meanOf(ivs []Interval) Interval {
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
	return Interval{N: n, Mean: m, Low: m - lo, High: m + hi}
}

// agreementOf is a rate's majority agreement, max(r, 1-r).
func agreementOf(r float64) float64 { return max(r, 1-r) }

func alignment(model string, pts []pactPoint) (PactAlignment, bool) {
	var hs, ps, abs, gap, ha, ma []float64
	var groups []string
	var same int64
	for _, p := range valid(pts) {
		if math.IsNaN(p.human) {
			continue
		}
		groups = append(groups, p.group)
		hs, ps = append(hs, p.human), append(ps, p.p)
		abs, gap = append(abs, math.Abs(p.p-p.human)), append(gap, 100*(p.p-p.human))
		ha, ma = append(ha, agreementOf(p.human)), append(ma, agreementOf(p.p))
		if decidesFollow(p.p) == decidesFollow(p.human) {
			same++
		}
	}
	if len(hs) == 0 {
		return PactAlignment{}, false
	}
	n := int64(len(hs))
	a := PactAlignment{Model: model, Items: n, HumanCultureRate: mean(hs), ModelCultureRate: mean(ps),
		Majority: shareWilson(same, n), MAE: clusterMean(abs, groups), SignedGapPP: clusterMean(gap, groups),
		HumanAgreement: mean(ha), ModelAgreement: mean(ma)}
	if r, ok := pearson(ha, ma); ok {
		a.Uncertainty = &r
		if n > 3 && math.Abs(r) < 1 {
			z, h := math.Atanh(r), z95/math.Sqrt(float64(n-3))
			lo, hi := math.Tanh(z-h), math.Tanh(z+h)
			a.UncertaintyLow, a.UncertaintyHigh = &lo, &hi
		}
	}
	return a, true
}

// clusterMean is the mean of xs with its cluster interval over groups.
func clusterMean(xs []float64, groups []string) Interval {
	m := mean(xs)
	infl := make([]float64, len(xs))
	for i, x := range xs {
		infl[i] = (x - m) / float64(len(xs))
	}
	return clusterInterval(m, infl, groups)
}

// shareWilson is k of n with its Wilson interval.
func shareWilson(k, n int64) Interval {
	if n == 0 {
		return Interval{}
	}
	iv := Interval{N: n, Mean: float64(k) / float64(n)}
	iv.Low, iv.High = wilson(k, n)
	return iv
}

func flips(left, right string, pl, pr []pactPoint) (PactFlip, bool) {
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
		return PactFlip{}, false
	}
	f := PactFlip{Left: left, Right: right, Items: n, LeftAllow: float64(la) / float64(n), RightAllow: float64(ra) / float64(n),
		FlipPos: shareWilson(pos, n), FlipNeg: shareWilson(neg, n), Same: shareWilson(n-pos-neg, n)}
	f.AllowDeltaPP = 100 * (f.RightAllow - f.LeftAllow)
	return f, true
}

// paperTables lays out the paper's figures of one framing.
func paperTables(pre string, p PactPaper) []table {
	var ts []table
	if len(p.Spread) > 0 {
		t := table{title: pre + "the paper's country spread (allow-rate delta of each country from the model's overall rate)",
			header: []string{"model", "country attribute", "country", "items", "allow rate", "delta pp (95% CI)"}}
		r := table{title: pre + "the paper's country spread: range of the deltas (max - min)",
			header: []string{"model", "country attribute", "countries", "allow rate", "range pp"}}
		for _, s := range p.Spread {
			for _, c := range s.Countries {
				t.rows = append(t.rows, []string{s.Model, s.Attr, c.Country, num(c.Items), pct(c.AllowRate), ivNum(c.DeltaPP, f1)})
			}
			rng := "-"
			if s.RangePP != nil {
				rng = f1(*s.RangePP)
			}
			r.rows = append(r.rows, []string{s.Model, s.Attr, num(int64(len(s.Countries))), pct(s.AllowRate), rng})
		}
		t.notes = append(t.notes, "allow rate: mean of 1 - p_follow; culture is the scenario's country; (average): each country's delta averaged over the models, half-widths averaged (conservative)")
		r.notes = append(r.notes, "the paper's 7.8 is this range for (average)")
		ts = append(ts, t, r)
	}
	if len(p.Demographics) > 0 {
		t := table{title: pre + "the paper's demographic effects (signed allow-rate differences)",
			header: []string{"model", "factor", "role", "contrast", "delta pp (95% CI)"}}
		for _, d := range p.Demographics {
			t.rows = append(t.rows, []string{d.Model, d.Factor, d.Role, d.Plus + " - " + d.Minus, ivNum(d.DeltaPP, f2)})
		}
		t.notes = append(t.notes, "cluster interval over item groups; both: mean of actor and receiver; (average): mean over models; half-widths averaged (conservative); the paper's 1.0 (age) and 0.7 (gender) are (average), both")
		ts = append(ts, t)
	}
	if len(p.Alignment) > 0 {
		t := table{title: pre + "the paper's human-model alignment",
			header: []string{"model", "items", "human culture rate", "model culture rate", "majority alignment (95% CI)", "distributional MAE (95% CI)", "signed gap pp (95% CI)", "human agreement", "model agreement", "uncertainty r (95% CI)"}}
		for _, a := range p.Alignment {
			u := optStr(a.Uncertainty)
			if a.UncertaintyLow != nil {
				u += " [" + f3(*a.UncertaintyLow) + ", " + f3(*a.UncertaintyHigh) + "]"
			}
			t.rows = append(t.rows, []string{a.Model, num(a.Items), pct(a.HumanCultureRate), pct(a.ModelCultureRate), ivPct(a.Majority),
				ivNum(a.MAE, f3), ivNum(a.SignedGapPP, f1), pct(a.HumanAgreement), pct(a.ModelAgreement), u})
		}
		t.notes = append(t.notes, "a rate >= 0.5 counts as culture (human majority, model decision); MAE = mean |p_follow - human share|; gap = model - human;",
			"agreement = mean max(r, 1 - r); uncertainty r: Pearson across items of the two agreements, Fisher-z interval; - when undefined")
		ts = append(ts, t)
	}
	if len(p.Flips) > 0 {
		t := table{title: pre + "the paper's paired flips (left model -> right model, same items)",
			header: []string{"left", "right", "items", "left allow", "right allow", "delta pp", "culture -> preference (95% CI)", "preference -> culture (95% CI)", "same (95% CI)"}}
		for _, f := range p.Flips {
			t.rows = append(t.rows, []string{f.Left, f.Right, num(f.Items), pct(f.LeftAllow), pct(f.RightAllow), f1(f.AllowDeltaPP),
				ivPct(f.FlipPos), ivPct(f.FlipNeg), ivPct(f.Same)})
		}
		t.notes = append(t.notes, "decision: follow_culture when p_follow >= 0.5; Wilson intervals; pairs in name order (base vs instruct: the base model's name first)")
		ts = append(ts, t)
	}
	return ts
}
