package label

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/pkg/record"
)

// dlg builds a dialogue from "norm/stage" per turn ("-" = no label; an
// empty stage = none), the stage given as a label when labelStages.
func dlg(typ string, labelStages bool, turns ...string) *record.Record {
	r := &record.Record{ID: "x", DialogueType: typ}
	for i, s := range turns {
		norm, stage, _ := strings.Cut(s, "/")
		t := record.Turn{Index: i, Speaker: "A", Text: "t"}
		if norm != "-" {
			t.Labels = &record.Labels{Norm: norm}
		}
		if stage != "" {
			if labelStages {
				if t.Labels == nil {
					t.Labels = &record.Labels{}
				}
				t.Labels.Stage = stage
			} else {
				t.Stage = stage
			}
		}
		r.Turns = append(r.Turns, t)
	}
	return r
}

func TestConsistency(t *testing.T) {
	const (
		ad = "adhered"
		vi = "violated"
		nr = "not_relevant"
	)
	for _, c := range []struct {
		name   string
		rec    *record.Record
		defect string
	}{
		{"adherence ok", dlg("adherence", false, ad, nr, ad), ""},
		{"adherence violated", dlg("adherence", false, ad, vi, ad), DefectViolationInAdherence},
		{"violation ok", dlg("violation", false, nr, vi, nr), ""},
		{"violation without", dlg("violation", false, ad, nr, ad), DefectNoViolation},
		{"unlabelled", dlg("violation", false, "-", "-"), ""},
		{"v2r without violation", dlg("v2r", false, "nr/context", "ad/recognition"), DefectNoViolation},
		{"v2r full", dlg("v2r", false, nr+"/context", vi+"/violation", nr+"/recognition", ad+"/repair", ad+"/resolution"), ""},
		{"v2r stages as labels", dlg("v2r", true, nr+"/context", vi+"/violation", nr+"/recognition", ad+"/repair"), ""},
		{"v2r no recognition", dlg("v2r", false, nr+"/context", vi+"/violation", ad+"/repair", ad+"/resolution"), DefectUnresolved},
		{"v2r repair violated", dlg("v2r", false, vi+"/violation", nr+"/recognition", vi+"/repair", ad+"/resolution"), DefectUnresolved},
		{"v2r repair before recognition", dlg("v2r", false, vi+"/violation", ad+"/repair", nr+"/recognition", ad+"/resolution"), DefectUnresolved},
		{"v2r ends in violation", dlg("v2r", false, nr+"/context", nr+"/context", vi+"/violation"), DefectUnresolved},
		{"v2r no stages, repaired", dlg("v2r", false, nr, vi, nr, ad), ""},
		{"v2r no stages, unrepaired", dlg("v2r", false, nr, vi, nr, vi), DefectUnresolved},
		{"other type", dlg("", false, vi), ""},
	} {
		got := Consistency(c.rec)
		if c.defect == "" && len(got) > 0 || c.defect != "" && !slices.Equal(got, []string{c.defect}) {
			t.Errorf("%s: %v, want %q", c.name, got, c.defect)
		}
	}
}

// A relabelled record loses the consistency defects of its earlier
// labels and keeps the others.
func TestSetConsistencyReplaces(t *testing.T) {
	r := &record.Record{Checks: &record.Checks{Defects: []string{"end_marker", DefectNoViolation}}}
	setConsistency(r, nil)
	if !slices.Equal(r.Checks.Defects, []string{"end_marker"}) {
		t.Errorf("%v", r.Checks.Defects)
	}
	setConsistency(r, []string{DefectUnresolved})
	if !slices.Equal(r.Checks.Defects, []string{"end_marker", DefectUnresolved}) {
		t.Errorf("%v", r.Checks.Defects)
	}
	r = &record.Record{Checks: &record.Checks{Defects: []string{DefectNoViolation}}}
	if setConsistency(r, nil); r.Checks != nil {
		t.Errorf("empty checks kept: %+v", r.Checks)
	}
}

// applyTurns with hand-made samples: the majority per task, the shares,
// the agreement, explanation and rots from the sample that agrees most,
// and labels of other tasks left alone.
func TestApplyTurns(t *testing.T) {
	idx := func(i int) *int { return &i }
	rec := &record.Record{Turns: []record.Turn{
		{Index: 0, Speaker: "A", Text: "a", Labels: &record.Labels{Safety: "casual", Rots: []string{"old"}}},
		{Index: 1, Speaker: "B", Text: "b"},
	}}
	samples := [][]turnLabels{
		{{Index: idx(0), Labels: record.Labels{Norm: "adhered", Emotion: "joy", Explanation: "s1 t0"}}, {Index: idx(1), Labels: record.Labels{Norm: "violated", Emotion: "anger", Explanation: "s1 t1"}}},
		{{Index: idx(0), Labels: record.Labels{Norm: "adhered", Emotion: "neutral", Explanation: "s2 t0"}}, {Index: idx(1), Labels: record.Labels{Norm: "adhered", Emotion: "anger", Explanation: "s2 t1"}}},
		{{Index: idx(0), Labels: record.Labels{Norm: "not_relevant", Emotion: "neutral", Explanation: "s3 t0"}}, {Index: idx(1), Labels: record.Labels{Norm: "violated", Emotion: "anger", Explanation: "s3 t1"}}},
	}
	applyTurns(rec, []string{"norm", "emotion"}, samples)
	l0, l1 := rec.Turns[0].Labels, rec.Turns[1].Labels
	if l0.Norm != "adhered" || l0.Emotion != "neutral" || !near(l0.NormDist["adhered"], 2.0/3) || !near(l0.EmotionDist["joy"], 1.0/3) {
		t.Errorf("turn 0: %+v", l0)
	}
	// Sample 2 agrees on both tasks of turn 0.
	if l0.Explanation != "s2 t0" || !near(l0.Agreement, 2.0/3) {
		t.Errorf("turn 0: explanation %q agreement %v", l0.Explanation, l0.Agreement)
	}
	if l0.Safety != "casual" || l0.Rots[0] != "old" {
		t.Errorf("turn 0: labels of other tasks changed: %+v", l0)
	}
	if l1.Norm != "violated" || l1.Emotion != "anger" || l1.Explanation != "s1 t1" || !near(l1.Agreement, (2.0/3+1)/2) {
		t.Errorf("turn 1: %+v", l1)
	}
	agree, kappa := recordAgreement(rec, []string{"norm", "emotion"}, 3)
	if !near(agree, (l0.Agreement+l1.Agreement)/2) || kappa == 0 {
		t.Errorf("record agreement %v kappa %v", agree, kappa)
	}

	// One sample: labels as given, no shares, no agreement.
	applyTurns(rec, []string{"norm"}, samples[2:])
	if l := rec.Turns[0].Labels; l.Norm != "not_relevant" || l.NormDist != nil || l.Agreement != 0 || l.Explanation != "s3 t0" {
		t.Errorf("one sample: %+v", l)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
