package stats

import (
	"cmp"
	"slices"

	"github.com/ngkit/ngkit/pkg/agree"
	"github.com/ngkit/ngkit/pkg/record"
)

// The model-roles part of the report: the LLM calls of the
// whole corpus from every record's gen, totalled per stage, role and
// endpoint; and, for records labelled by a panel of models (nglabel
// --labellers), each labeller's label distribution, the agreement between
// them per task over the corpus, the labellers that failed, and the turns
// the panel disagrees on most.

// GenCost totals the calls of one stage, role and endpoint.
type GenCost struct {
	Stage    string `json:"stage"`
	Role     string `json:"role"`
	Endpoint string `json:"endpoint"`
	Model    string `json:"model"`
	// Calls counts the gen entries; a call whose reply several records
	// share (ngseed's scenarios call) counts in each.
	Calls     int64   `json:"calls"`
	CacheHits int64   `json:"cache_hits"`
	Retries   int64   `json:"retries"`
	TokensIn  int64   `json:"tokens_in"`
	TokensOut int64   `json:"tokens_out"`
	CostUSD   float64 `json:"cost_usd"`
	Seconds   float64 `json:"seconds"`
	// TokensCached are the prompt tokens the provider served from its
	// prompt cache, and CachedSavedUSD what that saved.
	TokensCached   int64   `json:"tokens_cached"`
	CachedSavedUSD float64 `json:"cached_saved_usd"`
}

// Panel summarises the labelling panels of the corpus.
type Panel struct {
	// Records labelled by a panel, and the labellers seen, in order.
	Records   int64    `json:"records"`
	Labellers []string `json:"labellers"`
	// Dist is each labeller's label distribution per task (Group = the
	// labeller).
	Dist []LabelDist `json:"dist"`
	// Agreement is per task over every turn the panel labelled.
	Agreement []PanelAgreement `json:"agreement"`
	// Failed counts, per labeller, the records where it gave no labels.
	Failed map[string]int64 `json:"failed,omitempty"`
	// Disagreements are the turns with the lowest share for the panel's
	// majority (--examples of them), most disagreed first.
	Disagreements []PanelTurn `json:"disagreements,omitempty"`
}

// PanelAgreement is the agreement of the panel on one task over the
// corpus: Fleiss' kappa and Krippendorff's alpha (nominal) across the
// labellers, Cohen's kappa per pair (null: undefined).
type PanelAgreement struct {
	Task   string      `json:"task"`
	Turns  int64       `json:"turns"`
	Fleiss *float64    `json:"fleiss_kappa"`
	Alpha  *float64    `json:"krippendorff_alpha"`
	Pairs  []PairKappa `json:"cohen_kappa"`
}

// PairKappa is Cohen's kappa of two labellers over the turns both labelled.
type PairKappa struct {
	A     string   `json:"a"`
	B     string   `json:"b"`
	Turns int64    `json:"turns"`
	Kappa *float64 `json:"kappa"`
}

// PanelTurn is a turn the panel disagreed on.
type PanelTurn struct {
	ID    string            `json:"id"`
	Turn  int               `json:"turn"`
	Task  string            `json:"task"`
	Share float64           `json:"share"` // the majority's share of the labellers
	Votes map[string]string `json:"votes"` // labeller -> label
	Text  string            `json:"text"`
}

type genKey struct{ stage, role, endpoint, model string }

type panelAcc struct {
	records   int64
	labellers []string
	dist      map[[2]string]*LabelDist // task, labeller
	fleiss    map[string]*agree.Kappa
	alpha     map[string]*agree.Alpha
	turns     map[string]int64
	pairs     map[[3]string]map[[2]string]int64 // task, a, b -> confusion
	failed    map[string]int64
	worst     []PanelTurn
	examples  int
}

func (c *Collector) addGen(rec *record.Record) {
	for _, g := range rec.Gen {
		if c.gens == nil {
			c.gens = map[genKey]*GenCost{}
		}
		k := genKey{g.Stage, g.Role, g.Endpoint, g.Model}
		a := c.gens[k]
		if a == nil {
			a = &GenCost{Stage: g.Stage, Role: g.Role, Endpoint: g.Endpoint, Model: g.Model}
			c.gens[k] = a
		}
		a.Calls++
		if g.CacheHit {
			a.CacheHits++
		} else {
			a.TokensIn += int64(g.TokensIn)
			a.TokensOut += int64(g.TokensOut)
			a.TokensCached += int64(g.TokensCached)
		}
		a.CachedSavedUSD += g.CachedSavedUSD
		a.Retries += int64(g.Retries)
		a.CostUSD += g.CostUSD
		a.Seconds += g.Seconds
	}
}

func (c *Collector) genReport() []GenCost {
	var out []GenCost
	for _, g := range c.gens {
		out = append(out, *g)
	}
	slices.SortFunc(out, func(a, b GenCost) int {
		return cmp.Or(cmp.Compare(a.Stage, b.Stage), cmp.Compare(a.Role, b.Role), cmp.Compare(a.Endpoint, b.Endpoint), cmp.Compare(a.Model, b.Model))
	})
	return out
}

// addPanel folds a record labelled by a panel.
func (c *Collector) addPanel(rec *record.Record) {
	m := rec.LabelsMeta
	if m == nil || len(m.Panel) < 2 {
		return
	}
	p := c.panel
	if p == nil {
		p = &panelAcc{dist: map[[2]string]*LabelDist{}, fleiss: map[string]*agree.Kappa{}, alpha: map[string]*agree.Alpha{},
			turns: map[string]int64{}, pairs: map[[3]string]map[[2]string]int64{}, failed: map[string]int64{}, examples: c.Examples}
		c.panel = p
	}
	p.records++
	for _, l := range m.Panel {
		if !slices.Contains(p.labellers, l) {
			p.labellers = append(p.labellers, l)
		}
	}
	for _, f := range m.Failed {
		p.failed[f.Labeller]++
	}
	for _, t := range rec.Turns {
		if t.Labels == nil || len(t.Labels.ByModel) == 0 {
			continue
		}
		bm := t.Labels.ByModel
		for _, task := range labelTasks() {
			votes := make([]string, len(bm))
			any := false
			for i := range bm {
				ml := &bm[i]
				votes[i] = ml.Get(task)
				any = any || votes[i] != ""
				if votes[i] == "" {
					continue
				}
				k := [2]string{task, ml.Labeller}
				d := p.dist[k]
				if d == nil {
					d = &LabelDist{Task: task, Group: ml.Labeller, Counts: map[string]int64{}}
					p.dist[k] = d
				}
				d.Turns++
				d.Counts[votes[i]]++
			}
			if !any {
				continue
			}
			p.turns[task]++
			if p.fleiss[task] == nil {
				p.fleiss[task], p.alpha[task] = &agree.Kappa{}, &agree.Alpha{}
			}
			counts := map[string]int{}
			for _, v := range votes {
				if v != "" {
					counts[v]++
				}
			}
			p.fleiss[task].Add(counts)
			p.alpha[task].Add(votes)
			for i := range bm {
				for j := i + 1; j < len(bm); j++ {
					if votes[i] == "" || votes[j] == "" {
						continue
					}
					a, b, va, vb := bm[i].Labeller, bm[j].Labeller, votes[i], votes[j]
					if a > b {
						a, b, va, vb = b, a, vb, va
					}
					k := [3]string{task, a, b}
					if p.pairs[k] == nil {
						p.pairs[k] = map[[2]string]int64{}
					}
					p.pairs[k][[2]string{va, vb}]++
				}
			}
			p.disagreement(rec, t, task, bm, votes, counts)
		}
	}
}

// disagreement keeps the turn among the examples when its majority share
// is among the lowest seen (ties: the earlier turn stays).
func (p *panelAcc) disagreement(rec *record.Record, t record.Turn, task string, bm []record.ModelLabels, votes []string, counts map[string]int) {
	n, best := 0, 0
	for _, c := range counts {
		n += c
		best = max(best, c)
	}
	if n < 2 || best == n || p.examples <= 0 {
		return
	}
	share := float64(best) / float64(n)
	if len(p.worst) >= p.examples && share >= p.worst[len(p.worst)-1].Share {
		return
	}
	pt := PanelTurn{ID: rec.ID, Turn: t.Index, Task: task, Share: share, Votes: map[string]string{}, Text: cutText(t.Speaker+": "+t.Text, 200)}
	for i, ml := range bm {
		if votes[i] != "" {
			pt.Votes[ml.Labeller] = votes[i]
		}
	}
	i, _ := slices.BinarySearchFunc(p.worst, share, func(e PanelTurn, s float64) int {
		if e.Share <= s {
			return -1
		}
		return 1
	})
	p.worst = slices.Insert(p.worst, i, pt)
	if len(p.worst) > p.examples {
		p.worst = p.worst[:p.examples]
	}
}

func cutText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

func (p *panelAcc) report() *Panel {
	if p == nil {
		return nil
	}
	r := &Panel{Records: p.records, Labellers: p.labellers, Dist: []LabelDist{}, Agreement: []PanelAgreement{}, Disagreements: p.worst}
	if len(p.failed) > 0 {
		r.Failed = p.failed
	}
	order := func(l string) int { return slices.Index(p.labellers, l) }
	for _, d := range p.dist {
		r.Dist = append(r.Dist, *d)
	}
	tasks := labelTasks()
	slices.SortFunc(r.Dist, func(a, b LabelDist) int {
		return cmp.Or(cmp.Compare(slices.Index(tasks, a.Task), slices.Index(tasks, b.Task)), cmp.Compare(order(a.Group), order(b.Group)))
	})
	for _, task := range labelTasks() {
		if p.turns[task] == 0 {
			continue
		}
		a := PanelAgreement{Task: task, Turns: p.turns[task], Pairs: []PairKappa{}}
		if v, ok := p.fleiss[task].Value(); ok {
			a.Fleiss = &v
		}
		if v, ok := p.alpha[task].Value(); ok {
			a.Alpha = &v
		}
		for i, x := range p.labellers {
			for _, y := range p.labellers[i+1:] {
				lo, hi := x, y
				if lo > hi {
					lo, hi = hi, lo
				}
				conf := p.pairs[[3]string{task, lo, hi}]
				if conf == nil {
					continue
				}
				k, n := cohenOf(conf)
				a.Pairs = append(a.Pairs, PairKappa{A: x, B: y, Turns: n, Kappa: k})
			}
		}
		r.Agreement = append(r.Agreement, a)
	}
	return r
}

// cohenOf is Cohen's kappa of a confusion given as (label a, label b) ->
// turns.
func cohenOf(conf map[[2]string]int64) (*float64, int64) {
	var cats []string
	var n int64
	for k, v := range conf {
		for _, c := range k {
			if !slices.Contains(cats, c) {
				cats = append(cats, c)
			}
		}
		n += v
	}
	slices.Sort(cats)
	m := make([][]int64, len(cats))
	for i := range m {
		m[i] = make([]int64, len(cats))
	}
	for k, v := range conf {
		m[slices.Index(cats, k[0])][slices.Index(cats, k[1])] += v
	}
	if k, ok := agree.CohenKappa(m); ok {
		return &k, n
	}
	return nil, n
}
