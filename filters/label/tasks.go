package label

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ngkit/ngkit/pkg/record"
)

// Label tasks (--tasks). norm, intent, emotion, stage and safety label
// every turn in one call per dialogue (and sample); quality judges the
// whole dialogue in a call of its own.
const (
	TaskNorm    = "norm"
	TaskIntent  = "intent"
	TaskEmotion = "emotion"
	TaskStage   = "stage"
	TaskSafety  = "safety" // with rules-of-thumb
	TaskQuality = "quality"
)

// AllTasks lists the tasks in the order they are reported.
var AllTasks = []string{TaskNorm, TaskIntent, TaskEmotion, TaskStage, TaskSafety, TaskQuality}

// DefaultTasks are labelled when --tasks is not given; stage only on V2R
// dialogues, like every stage label.
var DefaultTasks = []string{TaskNorm, TaskIntent, TaskEmotion, TaskStage}

// turnTasks are the tasks labelled per turn, with their closed sets.
var turnTasks = []struct {
	name string
	set  []string
}{
	{TaskNorm, record.NormLabels},
	{TaskIntent, record.Intents},
	{TaskEmotion, record.Emotions},
	{TaskStage, record.Stages},
	{TaskSafety, record.SafetyLabels},
}

// Tasks is a set of label tasks.
type Tasks map[string]bool

// ParseTasks reads a comma-separated task list; "rots" is another name of
// safety (a safety label always comes with its rules-of-thumb), "all"
// means every task, "default" the default ones.
func ParseTasks(s string) (Tasks, error) {
	t := Tasks{}
	for _, name := range strings.Split(s, ",") {
		name = strings.ToLower(strings.TrimSpace(name))
		switch name {
		case "":
			continue
		case "rots", "safety+rots":
			name = TaskSafety
		case "all":
			for _, a := range AllTasks {
				t[a] = true
			}
			continue
		case "default":
			for _, a := range DefaultTasks {
				t[a] = true
			}
			continue
		}
		if !slices.Contains(AllTasks, name) {
			return nil, fmt.Errorf("--tasks: unknown task %q (tasks: %s)", name, strings.Join(AllTasks, ", "))
		}
		t[name] = true
	}
	if len(t) == 0 {
		return nil, fmt.Errorf("--tasks: no task given (tasks: %s)", strings.Join(AllTasks, ", "))
	}
	return t, nil
}

// List returns the tasks in report order.
func (t Tasks) List() []string {
	var out []string
	for _, a := range AllTasks {
		if t[a] {
			out = append(out, a)
		}
	}
	return out
}

// String is the comma-separated list.
func (t Tasks) String() string { return strings.Join(t.List(), ",") }

// For returns the turn-level tasks that apply to a record, in order:
// stage only on V2R dialogues (the other types have no stages), norm
// only when the record has a norm to adhere to (a ProsocialDialog import
// has none).
func (t Tasks) For(rec *record.Record) []string {
	var out []string
	for _, tt := range turnTasks {
		if !t[tt.name] || tt.name == TaskStage && rec.DialogueType != record.TypeV2R || tt.name == TaskNorm && rec.Norm == "" {
			continue
		}
		out = append(out, tt.name)
	}
	return out
}

// setOf is the closed label set of a turn task.
func setOf(task string) []string {
	for _, tt := range turnTasks {
		if tt.name == task {
			return tt.set
		}
	}
	return nil
}
