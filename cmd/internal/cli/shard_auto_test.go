package cli

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/cmd/internal/app"
)

// ngcat --shard auto in the N tasks of a Slurm array and of a Kubernetes
// Indexed Job writes every record of the input once; with no engine's
// variables it is a usage error that says what to set.
func TestShardAuto(t *testing.T) {
	files := sampleFiles(t)
	args := append([]string{"--from", "normgenesis", "-q"}, files...)
	_, all, _ := run(t, Ngcat, "", args...)
	want := strings.Count(all, "\n")
	for name, env := range map[string]func(task int) map[string]string{
		"slurm": func(task int) map[string]string {
			return map[string]string{"SLURM_ARRAY_TASK_ID": fmt.Sprint(task + 1), "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_COUNT": "3"}
		},
		"kubernetes": func(task int) map[string]string {
			return map[string]string{"JOB_COMPLETION_INDEX": fmt.Sprint(task)}
		},
	} {
		seen := map[string]int{}
		for task := range 3 {
			vars := env(task)
			var out, errb strings.Builder
			code := exit(Ngcat, app.Env{Args: append([]string{"--shard", "auto/3"}, args...), Stdin: strings.NewReader(""),
				Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return vars[k] }})
			if code != 0 {
				t.Fatalf("%s task %d: exit %d: %s", name, task, code, errb.String())
			}
			for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
				seen[l]++
			}
		}
		if len(seen) != want {
			t.Errorf("%s: %d distinct records in 3 shards, want %d", name, len(seen), want)
		}
		for l, n := range seen {
			if n != 1 {
				t.Errorf("%s: a record written %d times: %.60s", name, n, l)
			}
		}
	}
	var out, errb strings.Builder
	code := exit(Ngcat, app.Env{Args: append([]string{"--shard", "auto"}, args...), Stdin: strings.NewReader(""),
		Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }})
	if code != 2 || !strings.Contains(errb.String(), "JOB_COMPLETION_INDEX") || out.Len() != 0 {
		t.Errorf("--shard auto without variables: exit %d, stderr %q", code, errb.String())
	}
}
