// Package pactstats computes the PACT section of ngstats' report: for
// records with pact results (ngpact),
// per question framing, the culture-following rate of each model under
// test overall, by culture and by each persona attribute; the paired
// counterfactual effect of each attribute (variants of one item that
// differ only in it); the agreement between models; and, for items with a
// human distribution, how well each model matches it.
//
// The section keeps one small point per item, model and framing (the
// intervals and the correlations need them all), so its memory grows with
// the items, about 100 bytes each plus the persona.
//
// Acc is fed by stats' Collector as it folds each record; the section's
// text and HTML tables are the renderers' (filters/stats).
package pactstats

import (
	"cmp"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/ngkit/ngkit/filters/stats/evalmath"
	"github.com/ngkit/ngkit/pkg/agree"
	"github.com/ngkit/ngkit/pkg/record"
)

// Report is the PACT section of the report.
type Report struct {
	// Items are the records with pact results, but for the
	// persona-prompted ones (Persona.Items).
	Items     int64      `json:"items"`
	Questions []Question `json:"questions"`
	// HumanStudy: the human study's figures, from items with
	// human.answers (pacthuman.go).
	HumanStudy []HumanGroup `json:"human_study"`
	// FramingAverages: each model's alignment figures averaged over the
	// paper's two framings (pactpaper.go).
	FramingAverages []FramingAverage `json:"framing_averages"`
	// Persona: the persona-prompted run (items with persona_country or
	// persona_demo) and the paper's persona-subgroup alignment
	// (pactpersona.go); its records are not in Items nor in Questions.
	Persona *PersonaRun `json:"persona"`
	// HumanRegression: the human study's logistic regressions
	// (pactregress.go); absent without human answers.
	HumanRegression *Regression `json:"human_regression,omitempty"`
}

// Question holds every figure of one question framing ("choice",
// "norm").
type Question struct {
	Question string `json:"question"`
	// Rates: per model overall (Attr ""), by culture (Attr "culture") and
	// by each persona attribute.
	Rates []Rate `json:"rates"`
	// Effects: the counterfactual effect of each attribute, per model.
	Effects []Effect `json:"effects"`
	// Agreement between each pair of models.
	Agreement []Agreement `json:"agreement,omitempty"`
	// Human: each model against the items' human distributions.
	Human []Human `json:"human,omitempty"`
	// Paper: the PACT paper's figures, by its authors' definitions
	// (pactpaper.go).
	Paper Paper `json:"paper"`
}

// Rate is the culture-following rate of one model over a group of
// items (Attr = Value; Attr "" is all items).
type Rate struct {
	Model string `json:"model"`
	Attr  string `json:"attr"`
	Value string `json:"value"`
	// Results of the group; Invalid of them had no valid sample (no
	// p_follow), and count nowhere else.
	Results int64 `json:"results"`
	Invalid int64 `json:"invalid"`
	// PFollow is the mean p_follow over the items with one, with a 95%
	// t interval over items (meanT).
	PFollow evalmath.Interval `json:"p_follow"`
	// Majority counts the items' majorities; FollowShare is the share of
	// follow_culture majorities among them (ties count as not following),
	// with its 95% Wilson interval.
	Follow      int64             `json:"follow"`
	Allow       int64             `json:"allow"`
	Tie         int64             `json:"tie"`
	FollowShare evalmath.Interval `json:"follow_share"`
	// Entropy is the mean entropy of the distributions, in bits.
	Entropy *float64 `json:"entropy"`
}

// Effect is the counterfactual effect of one attribute on one model:
// among the variants of an item (records sharing variant_of, with the
// record whose id that is) that differ only in Attr, the mean absolute
// change of p_follow between two variants, in percentage points. Each
// item's pairs are averaged first, then the items, and the 95% interval
// is a t interval over items (item groups: meanT). Measurement noise (p_follow from
// K samples) adds to a mean absolute change: an attribute with no effect
// scores above 0; the signed Contrasts do not have that bias.
type Effect struct {
	Model string `json:"model"`
	Attr  string `json:"attr"`
	// Items with at least one pair, and the pairs in all.
	Items     int64             `json:"items"`
	Pairs     int64             `json:"pairs"`
	MeanAbsPP evalmath.Interval `json:"mean_abs_pp"`
	Contrasts []Contrast        `json:"contrasts"`
}

// Contrast is the signed mean change of p_follow from value A to
// value B of the attribute (B - A, percentage points), over the items
// with such a pair, with a 95% t interval over items (meanT).
type Contrast struct {
	A      string            `json:"a"`
	B      string            `json:"b"`
	Pairs  int64             `json:"pairs"`
	DiffPP evalmath.Interval `json:"diff_pp"`
}

// Agreement compares two models on the items both answered: the share
// of items with the same majority (follow, allow or tie), Cohen's kappa of
// the majorities, and Pearson's correlation of p_follow.
type Agreement struct {
	A         string   `json:"a"`
	B         string   `json:"b"`
	Items     int64    `json:"items"`
	Agreement float64  `json:"agreement"`
	Kappa     *float64 `json:"kappa"`
	Pearson   *float64 `json:"pearson"`
}

// Human compares one model with the human distributions: the share of
// items whose model majority is the human majority (human share above
// 0.5 follow, below allow, 0.5 a tie), Pearson's and Spearman's (ties at
// mean ranks) correlation of p_follow with the human follow share, and the
// mean Jensen-Shannon divergence of the two distributions (bits, 0-1).
type Human struct {
	Model     string   `json:"model"`
	Items     int64    `json:"items"`
	Agreement float64  `json:"agreement"`
	Pearson   *float64 `json:"pearson"`
	Spearman  *float64 `json:"spearman"`
	JSD       float64  `json:"jsd"`
}

// pactPoint is one item's result for one model and framing.
type pactPoint struct {
	id, group string            // the record id; variant_of, else the scenario_id, else the id
	attrs     map[string]string // persona, the item's actor/receiver fields, and the culture under "culture"
	p         float64           // p_follow; NaN when none
	majority  string
	entropy   float64 // NaN when none
	human     float64 // NaN when the item has none
	base      bool    // asked as a base model (PactResult.Base)
	source    string  // the item's dataset (metadata_source), lower case

	// actorCountry is the item's actor_country as it is (attrs has it
	// relative to the scenario's).
	actorCountry string
}

type pactAcc struct {
	items  int64
	points map[[2]string][]pactPoint // question, model
	human  map[[3]string]*humanGroupAcc
	// humanSeen: the items whose answers are folded in (pacthuman.go)
	humanSeen map[string]bool
	// subgroups: per item and framing, the human culture rate of each
	// respondent subgroup (country, demo) that answered it
	subgroups map[[2]string]map[[2]string]float64
	// itemShares: per item and framing, the human culture rate of all its
	// answers (the authors' item profile, human_item_profiles)
	itemShares map[[2]string]float64
	// persona: the persona-prompted run's results (pactpersona.go), per
	// question and model; personaItems its records
	persona      map[[2]string][]personaPoint
	personaItems int64
	// regPersonal, regNorm: the human answers as the rows of the
	// authors' regressions (pactregress.go), per framing
	regPersonal, regNorm []pactRegRow
}

// Culture is the attribute name under which an item's culture is
// analysed with its persona attributes.
const Culture = "culture"

// Acc folds records' PACT results and human answers into the PACT
// section; the zero Acc is empty and ready.
type Acc struct {
	a *pactAcc // nil until a record has PACT results or answers
}

// Add folds one record in; records without PACT results or human answers
// are skipped.
func (acc *Acc) Add(rec *record.Record) {
	answers := rec.PactItem != nil && rec.PactItem.Human != nil && len(rec.PactItem.Human.Answers) > 0
	if len(rec.Pact) == 0 && !answers {
		return
	}
	if acc.a == nil {
		acc.a = &pactAcc{points: map[[2]string][]pactPoint{}}
	}
	a := acc.a
	group := Group(rec)
	if answers {
		a.addHumanAnswers(rec, group)
	}
	if len(rec.Pact) == 0 {
		return
	}
	if it := rec.PactItem; it != nil && (it.PersonaCountry != "" || it.PersonaDemo != "") {
		a.addPersona(rec, group)
		return
	}
	a.items++
	attrs := maps.Clone(rec.Persona)
	if attrs == nil {
		attrs = map[string]string{}
	}
	scenarioCountry, actorCountry := rec.Culture, ""
	if it := rec.PactItem; it != nil {
		// The card's actor and receiver attributes. They win over the
		// persona's keys of those names.
		for k, v := range map[string]string{pactActorAge: it.ActorAge, pactActorGender: it.ActorGender,
			pactReceiverAge: it.ReceiverAge, pactReceiverGender: it.ReceiverGender} {
			if v != "" {
				attrs[k] = v
			}
		}
		// The receiver's country is the scenario's: analysed as the
		// culture. The actor's is analysed relative to it ("same" when
		// equal), so that varying both countries together (--vary
		// country=) is one change, of the culture, and varying the actor's
		// alone is a change of actor_country.
		if it.ReceiverCountry != "" {
			scenarioCountry = it.ReceiverCountry
		}
		if actorCountry = it.ActorCountry; actorCountry != "" {
			attrs[pactActorCountry] = actorCountry
			if actorCountry == scenarioCountry {
				attrs[pactActorCountry] = pactSameCountry
			}
		}
	}
	if scenarioCountry != "" {
		attrs[Culture] = scenarioCountry // wins over a persona key of that name
	}
	source := ""
	if rec.PactItem != nil {
		source = strings.ToLower(strings.TrimSpace(rec.PactItem.MetadataSource))
	}
	for _, r := range rec.Pact {
		human := humanShareFor(rec.PactItem, r.Question)
		pt := pactPoint{id: rec.ID, group: group, attrs: attrs, actorCountry: actorCountry, p: math.NaN(), entropy: math.NaN(), human: human, majority: r.Majority, base: r.Base, source: source}
		if r.PFollow != nil && isShare(*r.PFollow) {
			pt.p = *r.PFollow
			if pt.majority == "" {
				pt.majority = MajorityOf(pt.p)
			}
		} else {
			pt.majority = ""
		}
		if r.Entropy != nil {
			pt.entropy = *r.Entropy
		}
		k := [2]string{r.Question, r.Model}
		a.points[k] = append(a.points[k], pt)
	}
}

// addPersona keeps a persona-prompted record's results apart, for the
// persona-subgroup alignment only.
func (a *pactAcc) addPersona(rec *record.Record, group string) {
	if a.persona == nil {
		a.persona = map[[2]string][]personaPoint{}
	}
	a.personaItems++
	it := rec.PactItem
	for _, r := range rec.Pact {
		pt := personaPoint{pactPoint: pactPoint{id: rec.ID, group: group, p: math.NaN(), entropy: math.NaN(), human: humanShareFor(it, r.Question)},
			country: it.PersonaCountry, demo: it.PersonaDemo}
		if r.PFollow != nil && isShare(*r.PFollow) {
			pt.p = *r.PFollow
		}
		k := [2]string{r.Question, r.Model}
		a.persona[k] = append(a.persona[k], pt)
	}
}

// Group is the scenario item a record is a variant of: variant_of,
// else the item's scenario_id, else the record itself.
func Group(rec *record.Record) string {
	switch {
	case rec.VariantOf != "":
		return rec.VariantOf
	case rec.PactItem != nil && rec.PactItem.ScenarioID != "":
		return "scenario_id:" + rec.PactItem.ScenarioID
	}
	return rec.ID
}

// humanShareFor is the item's human follow share for a framing: the
// framing's own when the study asked it (personal, norm), else the
// overall one; NaN when none.
func humanShareFor(it *record.PactItem, question string) float64 {
	if it == nil || it.Human == nil {
		return math.NaN()
	}
	h := it.Human
	switch {
	case question == record.PactPersonal && h.Personal != nil && isShare(*h.Personal):
		return *h.Personal
	case question == record.PactNorm && h.Norm != nil && isShare(*h.Norm):
		return *h.Norm
	case isShare(h.FollowCulture):
		return h.FollowCulture
	}
	return math.NaN()
}

// isShare: a probability. A p_follow or human share outside [0, 1] counts
// as none (the result as one without a valid sample).
func isShare(p float64) bool { return p >= 0 && p <= 1 }

// MajorityOf is the majority option of a follow share.
func MajorityOf(p float64) string {
	switch {
	case p > 0.5:
		return record.PactFollow
	case p < 0.5:
		return record.PactAllow
	}
	return "tie"
}

// questionOrder puts the framings personal, norm, choice first, then
// others by name.
func questionOrder(q string) int {
	switch q {
	case record.PactPersonal:
		return 0
	case record.PactNorm:
		return 1
	case record.PactChoice:
		return 2
	}
	return 3
}

// Report is the PACT section of what was added; nil when nothing was.
func (acc *Acc) Report() *Report { return acc.a.report() }

func (a *pactAcc) report() *Report {
	if a == nil {
		return nil
	}
	out := &Report{Items: a.items, Questions: []Question{}, HumanStudy: a.humanReport()}
	byQ := map[string][]string{} // question -> models
	for k := range a.points {
		byQ[k[0]] = append(byQ[k[0]], k[1])
	}
	qs := slices.Collect(maps.Keys(byQ))
	slices.SortFunc(qs, func(x, y string) int {
		return cmp.Or(cmp.Compare(questionOrder(x), questionOrder(y)), cmp.Compare(x, y))
	})
	for _, q := range qs {
		models := byQ[q]
		slices.Sort(models)
		pq := Question{Question: q, Rates: []Rate{}, Effects: []Effect{}}
		for _, m := range models {
			pts := a.points[[2]string{q, m}]
			pq.Rates = append(pq.Rates, pactRates(m, pts)...)
			pq.Effects = append(pq.Effects, pactEffects(m, pts)...)
			if h, ok := pactHuman(m, pts); ok {
				pq.Human = append(pq.Human, h)
			}
		}
		pq.Paper = paperFigures(models, func(m string) []pactPoint { return a.points[[2]string{q, m}] })
		pq.Paper.Subgroups = a.closestSubgroups(q, models)
		for i, x := range models {
			for _, y := range models[i+1:] {
				pq.Agreement = append(pq.Agreement, pactAgree(x, y, a.points[[2]string{q, x}], a.points[[2]string{q, y}]))
			}
		}
		out.Questions = append(out.Questions, pq)
	}
	out.FramingAverages = framingAverages(out.Questions)
	out.Persona = a.personaRun()
	out.HumanRegression = pactRegression(a.regPersonal, a.regNorm)
	return out
}

// attrNames are the attributes the points carry: culture first, then the
// persona attributes by name.
func attrNames(pts []pactPoint) []string {
	seen := map[string]bool{}
	for _, p := range pts {
		for k := range p.attrs {
			seen[k] = true
		}
	}
	names := slices.Sorted(maps.Keys(seen))
	if i := slices.Index(names, Culture); i > 0 {
		names = append([]string{Culture}, slices.Delete(names, i, i+1)...)
	}
	return names
}

// pactRates is the model's rate over all items, then by each attribute's
// values (items without the attribute as "").
func pactRates(model string, pts []pactPoint) []Rate {
	out := []Rate{pactRate(model, "", "", pts)}
	for _, attr := range attrNames(pts) {
		groups := map[string][]pactPoint{}
		for _, p := range pts {
			v := p.attrs[attr]
			groups[v] = append(groups[v], p)
		}
		for _, v := range slices.SortedFunc(maps.Keys(groups), evalmath.NoneLast) {
			out = append(out, pactRate(model, attr, v, groups[v]))
		}
	}
	return out
}

func pactRate(model, attr, value string, pts []pactPoint) Rate {
	r := Rate{Model: model, Attr: attr, Value: value, Results: int64(len(pts))}
	var ps, hs []float64
	for _, p := range pts {
		if math.IsNaN(p.p) {
			r.Invalid++
			continue
		}
		ps = append(ps, p.p)
		if !math.IsNaN(p.entropy) {
			hs = append(hs, p.entropy)
		}
		switch p.majority {
		case record.PactFollow:
			r.Follow++
		case record.PactAllow:
			r.Allow++
		default:
			r.Tie++
		}
	}
	r.PFollow = evalmath.MeanT(ps)
	n := r.Follow + r.Allow + r.Tie
	r.FollowShare = evalmath.Interval{N: n}
	if n > 0 {
		r.FollowShare.Mean = float64(r.Follow) / float64(n)
		r.FollowShare.Low, r.FollowShare.High = evalmath.Wilson(r.Follow, n)
	}
	r.Entropy = evalmath.OptFloat(evalmath.Mean(hs), len(hs) > 0)
	return r
}

// pactEffects is the counterfactual effect of each attribute that varies
// within some item.
func pactEffects(model string, pts []pactPoint) []Effect {
	byGroup := map[string][]pactPoint{}
	for _, p := range pts {
		if !math.IsNaN(p.p) {
			byGroup[p.group] = append(byGroup[p.group], p)
		}
	}
	groups := slices.Sorted(maps.Keys(byGroup))
	var out []Effect
	for _, attr := range attrNames(pts) {
		e := Effect{Model: model, Attr: attr, Contrasts: []Contrast{}}
		var absPerItem []float64
		type contrastAcc struct {
			pairs int64
			diffs []float64 // per item
		}
		contrasts := map[[2]string]*contrastAcc{}
		for _, g := range groups {
			abs, n, diffs := pairsDifferingIn(byGroup[g], attr)
			if n == 0 {
				continue
			}
			e.Items++
			e.Pairs += n
			absPerItem = append(absPerItem, abs)
			for k, d := range diffs {
				ca := contrasts[k]
				if ca == nil {
					ca = &contrastAcc{}
					contrasts[k] = ca
				}
				ca.pairs += d.n
				ca.diffs = append(ca.diffs, d.sum/float64(d.n))
			}
		}
		if e.Items == 0 {
			continue
		}
		e.MeanAbsPP = evalmath.MeanT(absPerItem)
		for _, k := range slices.SortedFunc(maps.Keys(contrasts), func(x, y [2]string) int {
			return cmp.Or(cmp.Compare(x[0], y[0]), cmp.Compare(x[1], y[1]))
		}) {
			ca := contrasts[k]
			e.Contrasts = append(e.Contrasts, Contrast{A: k[0], B: k[1], Pairs: ca.pairs, DiffPP: evalmath.MeanT(ca.diffs)})
		}
		out = append(out, e)
	}
	return out
}

type diffSum struct {
	sum float64
	n   int64
}

// pairsDifferingIn finds, among the variants of one item, the pairs that
// have different values of attr and the same value (or the same absence)
// of every other attribute. It returns the mean absolute change of
// p_follow over those pairs in percentage points, their number, and per
// ordered value pair (A < B) the sum of the signed changes B - A.
func pairsDifferingIn(pts []pactPoint, attr string) (meanAbs float64, n int64, diffs map[[2]string]diffSum) {
	diffs = map[[2]string]diffSum{}
	var total float64
	for i := range pts {
		for j := i + 1; j < len(pts); j++ {
			a, b := pts[i], pts[j]
			va, oka := a.attrs[attr]
			vb, okb := b.attrs[attr]
			if !oka || !okb || va == vb || !sameExcept(a.attrs, b.attrs, attr) {
				continue
			}
			d := 100 * (b.p - a.p)
			if vb < va {
				va, vb, d = vb, va, -d
			}
			total += math.Abs(d)
			n++
			k := [2]string{va, vb}
			s := diffs[k]
			s.sum += d
			s.n++
			diffs[k] = s
		}
	}
	if n == 0 {
		return 0, 0, nil
	}
	return total / float64(n), n, diffs
}

// sameExcept says whether a and b have the same attributes and values but
// for attr.
func sameExcept(a, b map[string]string, attr string) bool {
	for k, v := range a {
		if k == attr {
			continue
		}
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok && k != attr {
			return false
		}
	}
	return true
}

var majorityClasses = []string{record.PactFollow, record.PactAllow, "tie"}

// pactAgree compares models a and b on the items (by id) both gave a
// valid distribution for.
func pactAgree(a, b string, pa, pb []pactPoint) Agreement {
	ag := Agreement{A: a, B: b}
	byID := map[string]pactPoint{}
	for _, p := range pb {
		if !math.IsNaN(p.p) {
			byID[p.id] = p
		}
	}
	conf := make([][]int64, len(majorityClasses))
	for i := range conf {
		conf[i] = make([]int64, len(majorityClasses))
	}
	var xs, ys []float64
	var same int64
	for _, p := range pa {
		q, ok := byID[p.id]
		if !ok || math.IsNaN(p.p) {
			continue
		}
		ag.Items++
		if p.majority == q.majority {
			same++
		}
		conf[classIndex(p.majority)][classIndex(q.majority)]++
		xs, ys = append(xs, p.p), append(ys, q.p)
	}
	if ag.Items > 0 {
		ag.Agreement = float64(same) / float64(ag.Items)
	}
	ag.Kappa = evalmath.OptFloat(agree.CohenKappa(conf))
	ag.Pearson = evalmath.OptFloat(evalmath.Pearson(xs, ys))
	return ag
}

func classIndex(majority string) int {
	if i := slices.Index(majorityClasses, majority); i >= 0 {
		return i
	}
	return 2
}

// pactHuman compares the model with the human distributions of the items
// that have one; ok is false when none has.
func pactHuman(model string, pts []pactPoint) (Human, bool) {
	h := Human{Model: model}
	var xs, ys []float64
	var same int64
	var jsd float64
	for _, p := range pts {
		if math.IsNaN(p.p) || math.IsNaN(p.human) {
			continue
		}
		h.Items++
		if p.majority == MajorityOf(p.human) {
			same++
		}
		jsd += evalmath.JSD2(p.p, p.human)
		xs, ys = append(xs, p.p), append(ys, p.human)
	}
	if h.Items == 0 {
		return h, false
	}
	h.Agreement = float64(same) / float64(h.Items)
	h.JSD = jsd / float64(h.Items)
	h.Pearson = evalmath.OptFloat(evalmath.Pearson(xs, ys))
	h.Spearman = evalmath.OptFloat(evalmath.Spearman(xs, ys))
	return h, true
}
