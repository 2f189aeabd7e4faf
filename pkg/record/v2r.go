package record

import "slices"

// The Violation-to-Resolution rules, in one place: the stages in order
// (Stages), which stage a turn is in, and when a violation counts as
// resolved. ngv2r checks generated dialogues against them, nglabel checks
// labels against them, ngstats groups by them.

// StageIndex returns stage's place in Stages, the order a V2R dialogue
// passes through them (context, optional and first; violation; recognition;
// repair; resolution), or -1 for an unknown stage.
func StageIndex(stage string) int { return slices.Index(Stages, stage) }

// TurnStage is a turn's stage: its stage label, else the stage the
// generator gave it (turn.stage).
func TurnStage(t *Turn) string {
	if t.Labels != nil && t.Labels.Stage != "" {
		return t.Labels.Stage
	}
	return t.Stage
}

// V2RResolved reports whether the violation at turn v is recognised and
// then repaired: after it a turn in the recognition stage and, after that,
// one in the repair stage labelled adhered. When no turn has a stage at
// all, a later adhered turn is enough.
func V2RResolved(turns []Turn, v int) bool {
	staged := false
	for i := range turns {
		if TurnStage(&turns[i]) != "" {
			staged = true
			break
		}
	}
	if !staged {
		for i := v + 1; i < len(turns); i++ {
			if normOf(&turns[i]) == "adhered" {
				return true
			}
		}
		return false
	}
	recognised := false
	for i := v + 1; i < len(turns); i++ {
		t := &turns[i]
		switch TurnStage(t) {
		case "recognition":
			recognised = true
		case "repair":
			if recognised && normOf(t) == "adhered" {
				return true
			}
		}
	}
	return false
}

func normOf(t *Turn) string {
	if t.Labels == nil {
		return ""
	}
	return t.Labels.Norm
}
