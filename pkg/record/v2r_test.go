package record

import "testing"

func TestStageIndex(t *testing.T) {
	for i, s := range Stages {
		if StageIndex(s) != i {
			t.Errorf("StageIndex(%q) = %d, want %d", s, StageIndex(s), i)
		}
	}
	if StageIndex("Repair") != -1 || StageIndex("") != -1 {
		t.Error("an unknown stage has an index")
	}
}

func TestV2RResolved(t *testing.T) {
	turn := func(stage, norm string) Turn { return Turn{Stage: stage, Labels: &Labels{Norm: norm}} }
	for _, c := range []struct {
		name  string
		turns []Turn
		want  bool
	}{
		{"recognised then repaired", []Turn{turn("violation", "violated"), turn("recognition", ""), turn("repair", "adhered")}, true},
		{"repair not adhered", []Turn{turn("violation", "violated"), turn("recognition", ""), turn("repair", "violated")}, false},
		{"repair before recognition", []Turn{turn("violation", "violated"), turn("repair", "adhered"), turn("recognition", "")}, false},
		{"no stages: a later adhered turn", []Turn{turn("", "violated"), turn("", "adhered")}, true},
		{"no stages, nothing adhered", []Turn{turn("", "violated"), turn("", "not_relevant")}, false},
	} {
		if got := V2RResolved(c.turns, 0); got != c.want {
			t.Errorf("%s: V2RResolved = %v, want %v", c.name, got, c.want)
		}
	}
	// the stage label wins over the generator's stage
	ts := []Turn{turn("violation", "violated"), {Stage: "context", Labels: &Labels{Stage: "recognition"}}, turn("repair", "adhered")}
	if !V2RResolved(ts, 0) {
		t.Error("the stage label is not the turn's stage")
	}
}
