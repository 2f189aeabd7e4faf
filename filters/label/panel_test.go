package label

import (
	"context"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ngkit/ngkit/filters/label/labeltest"
	"github.com/ngkit/ngkit/pkg/agree"
	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/llm/llmtest"
	"github.com/ngkit/ngkit/pkg/record"
)

// variant is a fake labeller that answers as labeltest does, then changes
// the labels with edit.
func variant(edit func(p labeltest.Prompt, r *labeltest.Reply)) func(*llmtest.ChatRequest) string {
	return func(req *llmtest.ChatRequest) string {
		p := labeltest.Read(req)
		if p.Kind != "turns" && p.Kind != "" {
			return labeltest.Answer(req)
		}
		r := labeltest.Labels(p)
		edit(p, &r)
		b, _ := json.Marshal(r)
		return string(b)
	}
}

func panelClient(t *testing.T, srv *llmtest.Server, model string) *llm.Client {
	t.Helper()
	c, err := llm.New(llm.Config{BaseURL: srv.URL, Model: model, Stage: "nglabel", Concurrency: 4,
		MaxRetries: 1, MaxReasks: 1, Backoff: time.Millisecond, RetryAfterCap: 5 * time.Millisecond, Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A panel of three labellers on three fake servers: the majority of the
// panel per turn, each labeller's own label, and the agreement figures of
// labels_meta equal to the measures over the labels the labellers gave.
func TestPanelLabels(t *testing.T) {
	recs := sample(t)
	rec := pick(t, recs, "american", "violation")
	n := len(rec.Turns)
	a := newServer(t, labeltest.Answer)
	// b disagrees on intent in turn 0 and calls the violated turn casual.
	b := newServer(t, variant(func(p labeltest.Prompt, r *labeltest.Reply) {
		r.Turns[0].Intent = "ACK"
		r.Turns[1].Safety, r.Turns[1].Rots = "casual", nil
	}))
	// c disagrees on intent in turns 0 and 2.
	c := newServer(t, variant(func(p labeltest.Prompt, r *labeltest.Reply) {
		r.Turns[0].Intent, r.Turns[2].Intent = "ACK", "NR"
	}))
	tasks, _ := ParseTasks("norm,intent,safety")
	s := mustNew(t, nil, Options{Tasks: tasks, Panel: []Labeller{
		{Name: "a", Model: "ma", Caller: panelClient(t, a, "ma")},
		{Name: "b", Model: "mb", Caller: panelClient(t, b, "mb")},
		{Name: "c", Model: "mc", Caller: panelClient(t, c, "mc")},
	}})
	out, err := s.Process(context.Background(), rec)
	if err != nil {
		t.Fatal(err)
	}
	r := out[0]
	if a.Count() != 1 || b.Count() != 1 || c.Count() != 1 {
		t.Fatalf("requests %d %d %d", a.Count(), b.Count(), c.Count())
	}
	t0, t1, t2 := r.Turns[0].Labels, r.Turns[1].Labels, r.Turns[2].Labels
	// Turn 0: QUE, ACK, ACK -> ACK with 2/3.
	if t0.Intent != "ACK" || math.Abs(t0.IntentDist["ACK"]-2.0/3) > 1e-9 || math.Abs(t0.IntentDist["QUE"]-1.0/3) > 1e-9 {
		t.Errorf("turn 0: %+v", t0)
	}
	// Turn 1 safety: needs_caution, casual, needs_caution: two caution
	// votes of three -> probably_needs_caution (ProsocialDialog's rule).
	if t1.Safety != agree.SafetyProbablyCaution || t1.Norm != "violated" {
		t.Errorf("turn 1: %+v", t1)
	}
	// Turn 2: JUS... the fake's intents cycle; c says NR.
	wantOwn := []record.ModelLabels{
		{Labeller: "a", Norm: "adhered", Intent: "CRT", Safety: "casual"},
		{Labeller: "b", Norm: "adhered", Intent: "CRT", Safety: "casual"},
		{Labeller: "c", Norm: "adhered", Intent: "NR", Safety: "casual"},
	}
	if !slices.Equal(t2.ByModel, wantOwn) {
		t.Errorf("turn 2 by model %+v, want %+v", t2.ByModel, wantOwn)
	}
	// The agreement figures, from the labels each labeller gave.
	units := map[string][][]string{}
	for _, task := range []string{"norm", "intent", "safety"} {
		for i := range n {
			var u []string
			for _, m := range r.Turns[i].Labels.ByModel {
				u = append(u, map[string]string{"norm": m.Norm, "intent": m.Intent, "safety": m.Safety}[task])
			}
			units[task] = append(units[task], u)
		}
	}
	var fl, al []float64
	for _, task := range []string{"norm", "intent", "safety"} {
		if v, ok := agree.FleissKappaOf(units[task]); ok {
			fl = append(fl, v)
		}
		if v, ok := agree.KrippendorffAlpha(units[task]); ok {
			al = append(al, v)
		}
	}
	m := r.LabelsMeta
	if !slices.Equal(m.Panel, []string{"a", "b", "c"}) || len(m.Failed) != 0 || m.Samples != 3 || m.Model != "ma,mb,mc" {
		t.Errorf("meta %+v", m)
	}
	if m.FleissKappa == nil || math.Abs(*m.FleissKappa-avg(fl)) > 1e-12 || m.KrippendorffAlpha == nil || math.Abs(*m.KrippendorffAlpha-avg(al)) > 1e-12 {
		t.Errorf("fleiss %v (want %v), alpha %v (want %v)", m.FleissKappa, avg(fl), m.KrippendorffAlpha, avg(al))
	}
	if *m.FleissKappa >= 1 || *m.FleissKappa <= 0 {
		t.Errorf("fleiss %v: the panel mostly agrees, not always", *m.FleissKappa)
	}
	if len(m.CohenKappa) != 3 || m.CohenKappa[0].A != "a" || m.CohenKappa[0].B != "b" || m.CohenKappa[2].A != "b" || m.CohenKappa[2].B != "c" {
		t.Fatalf("pairs %+v", m.CohenKappa)
	}
	// a and b agree on norm throughout: norm's kappa is 1, intent's and
	// safety's lower; the mean is over the three tasks.
	var ks []float64
	for _, task := range []string{"norm", "intent", "safety"} {
		if k, _, ok := agree.CohenKappaOf(units[task], 0, 1); ok {
			ks = append(ks, k)
		}
	}
	if got := *m.CohenKappa[0].Kappa; math.Abs(got-avg(ks)) > 1e-12 || got >= 1 {
		t.Errorf("kappa a,b %v, want %v", got, avg(ks))
	}
	for i, g := range r.Gen {
		if g.Call != CallLabels || g.Model != []string{"ma", "mb", "mc"}[i] {
			t.Errorf("gen %d: %+v", i, g)
		}
	}
}

func avg(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// One labeller failing every call: the others' labels are kept, the
// record names the failed labeller, the agreement is over the others;
// with RequireAll the record fails naming it.
func TestPanelLabellerFails(t *testing.T) {
	recs := sample(t)
	a := newServer(t, labeltest.Answer)
	b := newServer(t, variant(func(p labeltest.Prompt, r *labeltest.Reply) { r.Turns[0].Intent = "ACK" }))
	dead := llmtest.New(llmtest.Options{Rules: []llmtest.Rule{{Status: 503, Message: "overloaded"}}})
	t.Cleanup(dead.Close)
	tasks, _ := ParseTasks("norm,intent")
	panel := []Labeller{
		{Name: "a", Caller: panelClient(t, a, "ma")},
		{Name: "dead", Caller: panelClient(t, dead, "md")},
		{Name: "b", Caller: panelClient(t, b, "mb")},
	}
	rec := pick(t, recs, "korean", "adherence")
	out, err := mustNew(t, nil, Options{Tasks: tasks, Panel: panel}).Process(context.Background(), rec)
	if err != nil {
		t.Fatal(err)
	}
	m := out[0].LabelsMeta
	if len(m.Failed) != 1 || m.Failed[0].Labeller != "dead" || !strings.Contains(m.Failed[0].Error, "503") || m.Samples != 2 {
		t.Fatalf("meta %+v", m)
	}
	if len(m.CohenKappa) != 1 || m.CohenKappa[0].A != "a" || m.CohenKappa[0].B != "b" || m.FleissKappa == nil || m.KrippendorffAlpha == nil {
		t.Fatalf("agreement over a and b: %+v", m)
	}
	for _, tr := range out[0].Turns {
		if len(tr.Labels.ByModel) != 2 || tr.Labels.ByModel[1].Labeller != "b" {
			t.Fatalf("by model %+v", tr.Labels.ByModel)
		}
	}
	_, err = mustNew(t, nil, Options{Tasks: tasks, Panel: panel, RequireAll: true}).Process(context.Background(), pick(t, recs, "korean", "adherence"))
	if err == nil || !strings.HasPrefix(err.Error(), "labeller dead gave no labels (--require-all-labellers): dead: ") {
		t.Fatalf("require all: %v", err)
	}
	// Every labeller failing fails the record.
	_, err = mustNew(t, nil, Options{Tasks: tasks, Panel: []Labeller{panel[1], panel[1]}}).Process(context.Background(), pick(t, recs, "korean", "adherence"))
	if err == nil || !strings.HasPrefix(err.Error(), "no labeller of the panel gave labels: dead: ") {
		t.Fatalf("all failed: %v", err)
	}
}

// The quality judge and the pairwise judge are callers of their own.
func TestJudgeCallerOfItsOwn(t *testing.T) {
	recs := sample(t)
	lab, judge := newServer(t, labeltest.Answer), newServer(t, labeltest.Answer)
	tasks, _ := ParseTasks("norm,quality")
	s := mustNew(t, panelClient(t, lab, "l"), Options{Tasks: tasks, Judge: panelClient(t, judge, "j")})
	out, err := s.Process(context.Background(), pick(t, recs, "chinese", "v2r"))
	if err != nil {
		t.Fatal(err)
	}
	if lab.Count() != 1 || judge.Count() != 1 || out[0].Quality == nil || out[0].Turns[0].Labels.ByModel != nil || out[0].LabelsMeta.Panel != nil {
		t.Fatalf("labeller %d, judge %d requests; %+v", lab.Count(), judge.Count(), out[0].LabelsMeta)
	}
}

func mustNew(t *testing.T, c llm.Caller, opt Options) *Stage {
	t.Helper()
	s, err := New(c, opt)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
