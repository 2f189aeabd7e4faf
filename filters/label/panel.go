package label

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ngkit/ngkit/pkg/agree"
	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/prompt"
	"github.com/ngkit/ngkit/pkg/record"
)

// Labeller is one labelling model of a panel (nglabel --labellers).
type Labeller struct {
	// Name is the endpoint alias: in labels.by_model and labels_meta.
	Name   string
	Caller llm.Caller
	// Model is the model it serves, for labels_meta.model.
	Model string
}

// panelResult is what the labellers of one record gave: per labeller that
// answered, its samples; and those that failed.
type panelResult struct {
	panel    bool // two or more labellers
	names    []string
	models   []string
	answered []string
	samples  [][][]turnLabels // by answered labeller
	failed   []record.PanelFailure
}

// all is every labelling of every labeller that answered.
func (p *panelResult) all() [][]turnLabels {
	var out [][]turnLabels
	for _, s := range p.samples {
		out = append(out, s...)
	}
	return out
}

// askPanel has each labeller label the dialogue Samples times. With one
// labeller, as before panels: any failure fails the record. With a panel,
// a labeller whose call fails is named in failed and the others' labels
// are kept (with RequireAll the record fails); when none answers the
// record fails.
func (s *Stage) askPanel(ctx context.Context, rec *record.Record, spec turnsSpec, p prompt.Prompt, keep func(*llm.Response, error) (bool, error)) (*panelResult, error) {
	res := &panelResult{panel: len(s.opt.Panel) > 1}
	sch, err := s.turnsSchema(spec.tasks)
	if err != nil {
		return nil, err
	}
	for _, l := range s.opt.Panel {
		res.names = append(res.names, l.Name)
		res.models = append(res.models, l.Model)
		var mine [][]turnLabels
		var lerr error
		for i := range s.opt.Samples {
			resp, err := l.Caller.Call(ctx, llm.Request{
				ID: rec.ID, Call: s.callName(i), Schema: "label_turns", ReplySchema: sch, PromptPack: s.opt.Pack.Version(),
				Messages: []llm.Message{llm.System(p.System), llm.User(p.User)},
				Sampling: s.sampling(i),
				Check:    func(r *llm.Response) (any, error) { return parseTurns(r.JSON, spec) },
			})
			ok, err := keep(resp, err)
			var got []turnLabels
			if err == nil && ok {
				if got, _ = resp.Checked.([]turnLabels); got == nil { // a caller that kept no value
					got, err = parseTurns(resp.JSON, spec)
				}
			}
			if err != nil {
				if !res.panel || ctx.Err() != nil {
					return nil, err
				}
				lerr = err
				break
			}
			if ok {
				mine = append(mine, got)
			}
		}
		switch {
		case lerr != nil:
			res.failed = append(res.failed, record.PanelFailure{Labeller: l.Name, Error: cutError(lerr.Error(), 300)})
		case len(mine) > 0:
			res.answered = append(res.answered, l.Name)
			res.samples = append(res.samples, mine)
		}
	}
	if len(res.failed) == 0 {
		return res, nil
	}
	var why []string
	for _, f := range res.failed {
		why = append(why, f.Labeller+": "+f.Error)
	}
	switch {
	case s.opt.RequireAll:
		return nil, fmt.Errorf("labeller %s gave no labels (--require-all-labellers): %s", names(res.failed), strings.Join(why, "; "))
	case len(res.answered) == 0 && len(res.samples) == 0:
		return nil, errors.New("no labeller of the panel gave labels: " + strings.Join(why, "; "))
	}
	return res, nil
}

func names(f []record.PanelFailure) string {
	var n []string
	for _, x := range f {
		n = append(n, x.Labeller)
	}
	return strings.Join(n, ", ")
}

func cutError(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "..."
}

// own is labeller a's own label of every turn and task: the majority of
// its samples (safety: ProsocialDialog's rule), as one vote of the panel.
func (p *panelResult) own(a int, turn int, task string) string {
	votes := make([]string, len(p.samples[a]))
	for s := range p.samples[a] {
		votes[s] = p.samples[a][s][turn].get(task)
	}
	if rowOf(task).Merge == record.MergeSafety {
		return agree.Safety(votes)
	}
	l, _, _ := agree.Majority(votes)
	return l
}

// apply writes each labeller's own labels into labels.by_model (panels
// only).
func (p *panelResult) apply(rec *record.Record, tasks []string) {
	if p == nil || !p.panel || len(p.answered) == 0 {
		return
	}
	for i := range rec.Turns {
		l := rec.Turns[i].Labels
		l.ByModel = slices.Grow(l.ByModel[:0], len(p.answered)) // room for all: entries are written in place and do not move
		for a, name := range p.answered {
			l.ByModel = append(l.ByModel, record.ModelLabels{Labeller: name})
			m := &l.ByModel[len(l.ByModel)-1]
			for _, task := range tasks {
				*rowOf(task).ByModel(m) = p.own(a, i, task)
			}
		}
	}
}

// setMeta writes the panel into labels_meta: who was asked, who failed,
// and the agreement of those that answered: Fleiss' kappa and
// Krippendorff's alpha across them and Cohen's kappa of each pair, each
// over the record's turns and averaged over the tasks where defined.
func (p *panelResult) setMeta(rec *record.Record, tasks []string) {
	if p == nil || !p.panel || rec.LabelsMeta == nil {
		return
	}
	m := rec.LabelsMeta
	m.Panel, m.Failed = p.names, p.failed
	m.FleissKappa, m.KrippendorffAlpha, m.CohenKappa = nil, nil, nil
	var models []string
	for i, n := range p.names {
		for _, a := range p.answered {
			if a == n && p.models[i] != "" {
				models = append(models, p.models[i])
			}
		}
	}
	if len(models) > 0 {
		m.Model = strings.Join(models, ",")
	}
	if len(p.answered) < 2 || len(tasks) == 0 {
		return
	}
	table := func(task string) [][]string {
		units := make([][]string, len(rec.Turns))
		for i := range rec.Turns {
			for a := range p.answered {
				units[i] = append(units[i], p.own(a, i, task))
			}
		}
		return units
	}
	var fl, al mean
	pairs := make([]mean, len(p.answered)*len(p.answered))
	for _, task := range tasks {
		u := table(task)
		fl.add(agree.FleissKappaOf(u))
		al.add(agree.KrippendorffAlpha(u))
		for a := range p.answered {
			for b := a + 1; b < len(p.answered); b++ {
				k, _, ok := agree.CohenKappaOf(u, a, b)
				pairs[a*len(p.answered)+b].add(k, ok)
			}
		}
	}
	m.FleissKappa, m.KrippendorffAlpha = fl.value(), al.value()
	for a := range p.answered {
		for b := a + 1; b < len(p.answered); b++ {
			m.CohenKappa = append(m.CohenKappa, record.PairAgreement{A: p.answered[a], B: p.answered[b], Kappa: pairs[a*len(p.answered)+b].value()})
		}
	}
}

// mean averages the defined values of a measure.
type mean struct {
	sum float64
	n   int
}

func (m *mean) add(v float64, ok bool) {
	if ok {
		m.sum += v
		m.n++
	}
}

func (m *mean) value() *float64 {
	if m.n == 0 {
		return nil
	}
	v := m.sum / float64(m.n)
	return &v
}

// LabelsTurns reports whether the tasks include a turn task (any but
// quality): whether the run needs its labellers.
func (t Tasks) LabelsTurns() bool {
	for _, tt := range record.LabelTasks {
		if t[tt.Name] {
			return true
		}
	}
	return false
}
