package label

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ngkit/ngkit/pkg/record"
)

// TaskQuality is the task (--tasks) that judges the whole dialogue, in a
// call of its own; the other tasks are the turn labels of
// record.LabelTasks, each labelled on every turn in one call per dialogue
// (and sample).
const TaskQuality = "quality"

// AllTasks lists the tasks in the order they are reported: the turn
// labels, then quality.
func AllTasks() []string { return append(record.LabelTaskNames(), TaskQuality) }

// DefaultTasks are labelled when --tasks is not given (the table's
// defaults); a label that applies to some dialogue types only, as stage,
// is asked of those only.
func DefaultTasks() []string { return record.DefaultLabelTasks() }

// Tasks is a set of label tasks.
type Tasks map[string]bool

// ParseTasks reads a comma-separated task list; a task's aliases are other
// names of it ("rots" of safety: a safety label always comes with its
// rules-of-thumb), "all" means every task, "default" the default ones.
func ParseTasks(s string) (Tasks, error) {
	t := Tasks{}
	all := AllTasks()
	for _, name := range strings.Split(s, ",") {
		name = strings.ToLower(strings.TrimSpace(name))
		switch name {
		case "":
			continue
		case "all":
			for _, a := range all {
				t[a] = true
			}
			continue
		case "default":
			for _, a := range DefaultTasks() {
				t[a] = true
			}
			continue
		}
		for _, lt := range record.LabelTasks {
			if slices.Contains(lt.Aliases, name) {
				name = lt.Name
			}
		}
		if !slices.Contains(all, name) {
			return nil, fmt.Errorf("--tasks: unknown task %q (tasks: %s)", name, strings.Join(all, ", "))
		}
		t[name] = true
	}
	if len(t) == 0 {
		return nil, fmt.Errorf("--tasks: no task given (tasks: %s)", strings.Join(all, ", "))
	}
	return t, nil
}

// List returns the tasks in report order.
func (t Tasks) List() []string {
	var out []string
	for _, a := range AllTasks() {
		if t[a] {
			out = append(out, a)
		}
	}
	return out
}

// String is the comma-separated list.
func (t Tasks) String() string { return strings.Join(t.List(), ",") }

// For returns the turn-level tasks that apply to a record, in order (a
// row's dialogue types and norm: stage only on V2R dialogues, the other
// types have no stages; norm only when the record has a norm to adhere
// to, a ProsocialDialog import has none).
func (t Tasks) For(rec *record.Record) []string {
	var out []string
	for i := range record.LabelTasks {
		if tt := &record.LabelTasks[i]; t[tt.Name] && tt.AppliesTo(rec) {
			out = append(out, tt.Name)
		}
	}
	return out
}

// rowOf is the table's row of a turn task; tasks have been checked, so
// there is one.
func rowOf(task string) *record.LabelTask { return record.LabelTaskOf(task) }
