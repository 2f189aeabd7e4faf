package pipeline

import (
	"fmt"
	"strings"
	"testing"
)

func envOf(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// slurmList is the environment of task id of --array=1,3,5-7, as Slurm
// 22.05 sets it (seen on a one-node cluster: scripts/slurm.sh).
func slurmList(id string) map[string]string {
	return map[string]string{"SLURM_ARRAY_TASK_ID": id, "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "7",
		"SLURM_ARRAY_TASK_STEP": "1", "SLURM_ARRAY_TASK_COUNT": "5"}
}

func withShards(env map[string]string, n string) map[string]string {
	env["NGKIT_SHARDS"] = n
	return env
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
		// --array=1-8: ids from 1, the shard is the id mod 8.
		{"auto", map[string]string{"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "8", "SLURM_ARRAY_TASK_COUNT": "8"}, "1/8", ""},
		{"auto", map[string]string{"SLURM_ARRAY_TASK_ID": "8", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "8", "SLURM_ARRAY_TASK_COUNT": "8"}, "0/8", ""},
		// --array=1,3,5-7 as Slurm 22.05 sets it: a list, whose tasks cannot
		// tell their place; with the count given, the id mod N.
		{"auto", slurmList("6"), "", "a list, and a task cannot tell its place in it: give the shard count"},
		{"auto/8", slurmList("6"), "6/8", ""},
		{"auto", withShards(slurmList("7"), "8"), "7/8", ""},
		{"auto/5", slurmList("6"), "", "ids 1 to 7 are more than 5 shards"},
		{"auto/8", withShards(slurmList("6"), "4"), "", "NGKIT_SHARDS=4 says otherwise"},
		// --array=3-5 submitted again, part of an array of 8.
		{"auto", map[string]string{"SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_MIN": "3", "SLURM_ARRAY_TASK_MAX": "5", "SLURM_ARRAY_TASK_COUNT": "3", "NGKIT_SHARDS": "8"}, "4/8", ""},
		{"auto", map[string]string{"SLURM_ARRAY_TASK_ID": "9", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "8", "SLURM_ARRAY_TASK_COUNT": "8"}, "", "not between"},
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
					if sh.Keep(int64(i)) {
						kept[fmt.Sprintf("rec-%d", i)]++
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

// An array of 8 whose tasks 1, 3 and 5-7 are submitted as a list (after
// they failed, say) with NGKIT_SHARDS=8, and tasks 2, 4 and 8 as another,
// keep every id once together, as the whole array does. The environments
// are those Slurm 22.05 sets (seen on a one-node cluster: scripts/slurm.sh).
func TestAutoShardSlurmListCoversOnce(t *testing.T) {
	lists := []struct {
		ids           []int
		lo, hi, count int
	}{{[]int{1, 3, 5, 6, 7}, 1, 7, 5}, {[]int{2, 4, 8}, 2, 8, 3}}
	kept := map[string]int{}
	for _, l := range lists {
		for _, id := range l.ids {
			spec, err := AutoShard("auto", envOf(map[string]string{"SLURM_ARRAY_TASK_ID": fmt.Sprint(id),
				"SLURM_ARRAY_TASK_MIN": fmt.Sprint(l.lo), "SLURM_ARRAY_TASK_MAX": fmt.Sprint(l.hi),
				"SLURM_ARRAY_TASK_STEP": "1", "SLURM_ARRAY_TASK_COUNT": fmt.Sprint(l.count), "NGKIT_SHARDS": "8"}))
			if err != nil {
				t.Fatal(err)
			}
			sh, err := ParseShard(spec)
			if err != nil {
				t.Fatal(err)
			}
			for i := range 2000 {
				if sh.Keep(int64(i)) {
					kept[fmt.Sprintf("rec-%d", i)]++
				}
			}
		}
	}
	for i := range 2000 {
		if id := fmt.Sprintf("rec-%d", i); kept[id] != 1 {
			t.Fatalf("%s kept %d times", id, kept[id])
		}
	}
}
