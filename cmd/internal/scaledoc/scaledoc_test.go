package scaledoc

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/cmd/internal/app"
	"github.com/ngkit/ngkit/cmd/internal/cli"
	"github.com/ngkit/ngkit/cmd/internal/demo"
	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/yaml"
)

// manifests are the YAML documents of docs/scale.md's Kubernetes section
// (its ```yaml block), as a user copies them.
func manifests(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../../../docs/scale.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?ms)^```yaml\n(.*?)^```\n").FindAllStringSubmatch(string(b), -1)
	if len(blocks) != 1 {
		t.Fatalf("docs/scale.md has %d ```yaml blocks, want the one of the Jobs", len(blocks))
	}
	return regexp.MustCompile(`(?m)^---\n`).Split(blocks[0][1], -1)
}

// job decodes one manifest strictly: a field batch/v1's Job does not know
// (misspelt, misplaced, of a newer Kubernetes) is an error, as a field
// given twice is.
func job(doc string) (*batchv1.Job, error) {
	var j batchv1.Job
	if err := yaml.UnmarshalStrict([]byte(doc), &j); err != nil {
		return nil, err
	}
	if j.APIVersion != "batch/v1" || j.Kind != "Job" {
		return nil, fmt.Errorf("apiVersion %q, kind %q: want batch/v1 Job", j.APIVersion, j.Kind)
	}
	return &j, nil
}

// The two Jobs of docs/scale.md are batch/v1 Jobs every field of which
// Kubernetes knows, the generate Job an Indexed one whose NGKIT_SHARDS is
// its completions; a misspelt or misplaced field would fail the decode.
func TestJobManifests(t *testing.T) {
	docs := manifests(t)
	if len(docs) != 2 {
		t.Fatalf("%d manifests, want the generate and merge Jobs", len(docs))
	}
	var names []string
	for _, d := range docs {
		j, err := job(d)
		if err != nil {
			t.Fatalf("docs/scale.md: %v\n%s", err, d)
		}
		names = append(names, j.Name)
		if c := j.Spec.Template.Spec.Containers; len(c) != 1 || len(c[0].Args) != 1 || !strings.Contains(c[0].Args[0], "ngstats") && !strings.Contains(c[0].Args[0], "ngseed") {
			t.Errorf("%s: containers %+v: want one running ngkit", j.Name, c)
		}
		if p := j.Spec.Template.Spec.RestartPolicy; p != "Never" && p != "OnFailure" {
			t.Errorf("%s: restartPolicy %q: a Job's must be Never or OnFailure", j.Name, p)
		}
	}
	if !slices.Equal(names, []string{"ngkit-generate", "ngkit-merge"}) {
		t.Errorf("Jobs %v", names)
	}
	gen, _ := job(docs[0])
	if gen.Spec.CompletionMode == nil || *gen.Spec.CompletionMode != batchv1.IndexedCompletion {
		t.Errorf("generate: completionMode %v, want Indexed (JOB_COMPLETION_INDEX is set in Indexed Jobs only)", gen.Spec.CompletionMode)
	}
	// The API server's validation of backoffLimitPerIndex (Kubernetes
	// >= 1.29), which a decode does not do.
	if gen.Spec.BackoffLimitPerIndex != nil && gen.Spec.Template.Spec.RestartPolicy != "Never" {
		t.Errorf("generate: backoffLimitPerIndex needs restartPolicy Never, not %q", gen.Spec.Template.Spec.RestartPolicy)
	}
	if gen.Spec.Completions == nil || env(gen)["NGKIT_SHARDS"] != strconv.Itoa(int(*gen.Spec.Completions)) {
		t.Errorf("generate: NGKIT_SHARDS %q, completions %v: want them equal", env(gen)["NGKIT_SHARDS"], gen.Spec.Completions)
	}

	// The check fails on what a user could get wrong.
	for _, c := range []struct{ name, from, to, want string }{
		{"misspelt field", "backoffLimitPerIndex:", "backofLimitPerIndex:", `unknown field "backofLimitPerIndex"`},
		{"misplaced field", "      restartPolicy: Never", "      restartPolicy: Never\n      completions: 8", `unknown field "completions"`},
		{"field of the container misspelt", "          volumeMounts:", "          volumeMount:", `unknown field "volumeMount"`},
		{"wrong type", "completions: 8", `completions: "eight"`, "cannot unmarshal string"},
		{"another kind", "kind: Job", "kind: CronJob", "want batch/v1 Job"},
	} {
		bad := strings.Replace(docs[0], c.from, c.to, 1)
		if bad == docs[0] {
			t.Fatalf("%s: the manifest has no %q", c.name, c.from)
		}
		if _, err := job(bad); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		}
	}
}

// env is the generate container's environment as the manifest gives it.
func env(j *batchv1.Job) map[string]string {
	m := map[string]string{}
	for _, e := range j.Spec.Template.Spec.Containers[0].Env {
		m[e.Name] = e.Value
	}
	return m
}

// ngseedArgs are the flags the generate Job's script gives ngseed.
func ngseedArgs(t *testing.T, j *batchv1.Job) []string {
	t.Helper()
	for line := range strings.SplitSeq(j.Spec.Template.Spec.Containers[0].Args[0], "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == "ngseed" {
			var args []string
			for _, a := range f[1:] {
				if a == "|" || a == `\` {
					break
				}
				args = append(args, a)
			}
			return args
		}
	}
	t.Fatal("the generate Job runs no ngseed")
	return nil
}

// Each task of the Indexed Job, in the environment Kubernetes gives it
// (the container's env of the manifest, and JOB_COMPLETION_INDEX from 0
// to completions-1), runs ngseed with the manifest's flags and does the
// shard --shard INDEX/COMPLETIONS gives; together, every seed of the run
// without shards once. The demo model stands in for the manifest's
// endpoint, and --limit 3 --per-norm 3 for the whole bank.
func TestIndexedJobShards(t *testing.T) {
	gen, err := job(manifests(t)[0])
	if err != nil {
		t.Fatal(err)
	}
	n := int(*gen.Spec.Completions)
	args := append(ngseedArgs(t, gen), "--limit", "3", "--per-norm", "3")
	if !slices.Contains(args, "--shard") || args[slices.Index(args, "--shard")+1] != "auto" {
		t.Fatalf("ngseed %v: want --shard auto", args)
	}
	run := func(vars map[string]string, args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		if code := app.Exit(app.Env{}, cli.Ngseed(app.Env{Args: args, Stdout: &out, Stderr: &errb, Stdin: strings.NewReader(""),
			Getenv: func(k string) string { return vars[k] }, Demo: demo.Endpoint})); code != 0 {
			t.Fatalf("ngseed %v with %v: exit %d: %s", args, vars, code, errb.String())
		}
		return out.String()
	}
	demo := map[string]string{"NG_MODEL": "demo"}
	whole := lines(run(demo, slices.DeleteFunc(slices.Clone(args), func(a string) bool { return a == "--shard" || a == "auto" })...))
	var all []string
	for k := range n {
		vars := env(gen)
		vars["JOB_COMPLETION_INDEX"] = strconv.Itoa(k)
		delete(vars, "NG_BASE_URL") // the demo model: no endpoint
		vars["NG_MODEL"] = "demo"
		got := lines(run(vars, args...))
		want := lines(run(demo, slices.Concat(args[:slices.Index(args, "--shard")], []string{"--shard", fmt.Sprintf("%d/%d", k, n)}, args[slices.Index(args, "--shard")+2:])...))
		if !slices.Equal(got, want) {
			t.Errorf("task %d: %d seeds, not the %d of --shard %d/%d", k, len(got), len(want), k, n)
		}
		all = append(all, got...)
	}
	slices.Sort(all)
	slices.Sort(whole)
	if len(whole) == 0 || !slices.Equal(all, whole) {
		t.Errorf("the %d tasks wrote %d seeds, the run without shards %d (or others)", n, len(all), len(whole))
	}
	// A task whose NGKIT_SHARDS is missing stops before any call, saying so.
	vars := env(gen)
	delete(vars, "NGKIT_SHARDS")
	vars["JOB_COMPLETION_INDEX"] = "0"
	var errb bytes.Buffer
	code := app.Exit(app.Env{Stderr: &errb}, cli.Ngseed(app.Env{Args: args, Stdout: &bytes.Buffer{}, Stderr: &errb,
		Getenv: func(k string) string { return vars[k] }}))
	if code != 2 || !strings.Contains(errb.String(), "set NGKIT_SHARDS to the Job's completions") {
		t.Errorf("without NGKIT_SHARDS: exit %d: %s", code, errb.String())
	}
}

// seconds is how long a call took: the only part of a seed that differs
// from run to run.
var seconds = regexp.MustCompile(`,"seconds":[0-9.eE+-]+`)

func lines(s string) []string {
	var out []string
	for l := range strings.SplitSeq(strings.TrimSpace(s), "\n") {
		if l != "" {
			out = append(out, seconds.ReplaceAllString(l, ""))
		}
	}
	return out
}
