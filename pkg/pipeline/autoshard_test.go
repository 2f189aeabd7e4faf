package pipeline

import (
	"fmt"
	"strings"
	"testing"
)

func envOf(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestAutoShard(t *testing.T) {
	for _, c := range []struct {
		spec string
		env  map[string]string
		want string // "" with err: an error containing err
		err  string
	}{
		{"2/4", nil, "2/4", ""},
		{"", nil, "", ""},
		{"auto/4", map[string]string{"JOB_COMPLETION_INDEX": "3"}, "3/4", ""},
		{"auto", map[string]string{"JOB_COMPLETION_INDEX": "0", "NGKIT_SHARDS": "2"}, "0/2", ""},
		{"auto", map[string]string{"JOB_COMPLETION_INDEX": "1"}, "", "NGKIT_SHARDS"},
		{"auto/4", map[string]string{"JOB_COMPLETION_INDEX": "4"}, "", "not below"},
		{"auto", map[string]string{"SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "8"}, "5/8", ""},
		// --array=1-8: ids from 1.
		{"auto", map[string]string{"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "8", "SLURM_ARRAY_TASK_COUNT": "8"}, "0/8", ""},
		// --array=0-12:4: four tasks.
		{"auto", map[string]string{"SLURM_ARRAY_TASK_ID": "8", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "12", "SLURM_ARRAY_TASK_STEP": "4"}, "2/4", ""},
		{"auto/3", map[string]string{"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "4"}, "", "has 4 tasks, not 3"},
		{"auto/4", map[string]string{"SLURM_ARRAY_TASK_ID": "2"}, "2/4", ""},
		{"auto", map[string]string{"SLURM_ARRAY_TASK_ID": "2"}, "", "SLURM_ARRAY_TASK_COUNT"},
		{"auto", map[string]string{"SLURM_ARRAY_TASK_ID": "x"}, "", "not a count"},
		{"auto", map[string]string{"SLURM_ARRAY_TASK_ID": "1", "JOB_COMPLETION_INDEX": "1"}, "", "both"},
		{"auto", nil, "", "no JOB_COMPLETION_INDEX (Kubernetes Indexed Job) nor SLURM_ARRAY_TASK_ID"},
		{"auto/0", map[string]string{"JOB_COMPLETION_INDEX": "0"}, "", "auto/N"},
		{"automatic", nil, "automatic", ""}, // not auto: ParseShard refuses it
	} {
		got, err := AutoShard(c.spec, envOf(c.env))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || !strings.HasPrefix(err.Error(), "--shard "+c.spec+": ") {
				t.Errorf("AutoShard(%q, %v) = %q, %v; want an error with %q", c.spec, c.env, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("AutoShard(%q, %v) = %q, %v; want %q", c.spec, c.env, got, err, c.want)
		}
	}
}

// N tasks of an engine, each resolving --shard auto from its own
// variables, keep every id exactly once.
func TestAutoShardCoversOnce(t *testing.T) {
	engines := map[string]func(task, n int) map[string]string{
		"kubernetes": func(task, n int) map[string]string {
			return map[string]string{"JOB_COMPLETION_INDEX": fmt.Sprint(task), "NGKIT_SHARDS": fmt.Sprint(n)}
		},
		"slurm --array=1-N": func(task, n int) map[string]string {
			return map[string]string{"SLURM_ARRAY_TASK_ID": fmt.Sprint(task + 1), "SLURM_ARRAY_TASK_MIN": "1",
				"SLURM_ARRAY_TASK_MAX": fmt.Sprint(n), "SLURM_ARRAY_TASK_COUNT": fmt.Sprint(n)}
		},
	}
	for name, env := range engines {
		for _, n := range []int{1, 3, 8} {
			kept := map[string]int{}
			for task := range n {
				spec, err := AutoShard("auto", envOf(env(task, n)))
				if err != nil {
					t.Fatal(err)
				}
				sh, err := ParseShard(spec)
				if err != nil {
					t.Fatal(err)
				}
				for i := range 2000 {
					if id := fmt.Sprintf("rec-%d", i); sh.Keep(id) {
						kept[id]++
					}
				}
			}
			for i := range 2000 {
				if id := fmt.Sprintf("rec-%d", i); kept[id] != 1 {
					t.Fatalf("%s, %d tasks: %s kept %d times", name, n, id, kept[id])
				}
			}
		}
	}
}
