package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/cmd/internal/app"
	"github.com/ngkit/ngkit/cmd/internal/demo"
)

// demoRun runs a program on the built-in demo model with stdin; it must
// exit 0.
func demoRun(t *testing.T, prog string, stdin []byte, args ...string) []byte {
	t.Helper()
	var out, errb bytes.Buffer
	env := app.Env{Args: append([]string{"-q"}, args...), Stdin: bytes.NewReader(stdin), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string { return map[string]string{"NG_MODEL": "demo"}[k] }, Demo: demo.Endpoint}
	if code := exit(Programs[prog], env); code != 0 {
		t.Fatalf("%s %s: exit %d: %s", prog, strings.Join(args, " "), code, errb.String())
	}
	return out.Bytes()
}

// seconds is how long a call took, the only part of a record that differs
// from run to run.
var seconds = regexp.MustCompile(`,"seconds":[0-9.eE+-]+`)

// lines are a JSONL output's records, call times left out.
func lines(b []byte) []string {
	var out []string
	for l := range strings.SplitSeq(strings.TrimSpace(string(b)), "\n") {
		if l != "" {
			out = append(out, seconds.ReplaceAllString(l, ""))
		}
	}
	return out
}

// withoutDialogues is lines without the records' dialogues (turns,
// narration, their checks) and the calls that wrote them.
func withoutDialogues(t *testing.T, b []byte) []string {
	var out []string
	for _, l := range lines(b) {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		if m["turns"] == nil {
			t.Fatalf("a record without turns: %s", l)
		}
		for _, f := range []string{"turns", "narration", "checks", "gen"} {
			delete(m, f)
		}
		j, _ := json.Marshal(m)
		out = append(out, string(j))
	}
	return out
}

// N runs of a program with --shard K/N, for K from 0 to N-1, write
// together exactly the records of one run without shards (the same
// records, each once), and each run within one work item of an equal
// share, whatever the input's size (N larger than it too): ngseed's items
// are the norm x scenario slots (so --limit 3 over 4 tasks gives 8, 8, 7
// and 7 scenarios, where dealing norms gave 0, 10, 10, 10), the other
// programs' the input records (ngsim's: an episode spec against one
// assistant).
func TestShardBalance(t *testing.T) {
	seeds := demoRun(t, "ngseed", nil, "--culture", "korean", "--limit", "4", "--per-norm", "2", "--types", "adherence,v2r")
	dialogues := demoRun(t, "ngv2r", seeds)
	items := demoRun(t, "ngseed", nil, "--culture", "korean", "--limit", "4", "--per-norm", "2", "--types", "pact")
	specs := demoRun(t, "ngseed", nil, "--types", "episode", "--culture", "korean", "--per-domain", "1")
	// first keeps the first n records of a JSONL input.
	first := func(b []byte, n int) []byte {
		ls := strings.SplitAfter(string(b), "\n")
		if len(ls) < n {
			t.Fatalf("%d records, want %d", len(ls), n)
		}
		return []byte(strings.Join(ls[:n], ""))
	}
	type run struct {
		name  string
		prog  string
		args  []string
		input []byte
		per   int // records written per work item
		// dialogue: the demo writer gives each seed the first release
		// dialogue from a hash of its scenario that no seed asked for before
		// (so that no two share one): which one depends on the seeds asked
		// before, so the dialogues are left out of the comparison.
		dialogue bool
	}
	var runs []run
	for _, c := range []struct{ limit, perNorm, types string }{{"1", "3", "adherence"}, {"3", "10", "adherence"}, {"6", "2", "adherence,violation"}} {
		per := len(strings.Split(c.types, ","))
		runs = append(runs, run{fmt.Sprintf("ngseed --limit %s --per-norm %s --types %s", c.limit, c.perNorm, c.types), "ngseed",
			[]string{"--culture", "korean", "--limit", c.limit, "--per-norm", c.perNorm, "--types", c.types}, nil, per, false})
	}
	// PACT items come of calls a norm's items share: the norm is the item.
	runs = append(runs, run{"ngseed --types pact", "ngseed", []string{"--culture", "american", "--limit", "5", "--per-norm", "2", "--types", "pact"}, nil, 2, false})
	for _, n := range []int{3, 7} {
		runs = append(runs,
			run{fmt.Sprintf("ngrefine on %d seeds", n), "ngrefine", nil, first(seeds, n), 1, false},
			run{fmt.Sprintf("ngv2r on %d seeds", n), "ngv2r", nil, first(seeds, n), 1, true},
			run{fmt.Sprintf("nglabel on %d dialogues", n), "nglabel", nil, first(dialogues, n), 1, false},
			run{fmt.Sprintf("ngpact on %d items", n), "ngpact", nil, first(items, n), 1, false},
			run{fmt.Sprintf("ngsim on %d specs", n), "ngsim", nil, first(specs, n), 1, false})
	}
	for _, r := range runs {
		lines := lines
		if r.dialogue {
			lines = func(b []byte) []string { return withoutDialogues(t, b) }
		}
		want := lines(demoRun(t, r.prog, r.input, r.args...))
		if len(want) == 0 {
			t.Fatalf("%s: no record without shards", r.name)
		}
		slices.Sort(want)
		for _, n := range []int{2, 4} {
			var got []string
			lo, hi := len(want), 0
			for k := range n {
				part := lines(demoRun(t, r.prog, r.input, append(slices.Clone(r.args), "--shard", fmt.Sprintf("%d/%d", k, n))...))
				got = append(got, part...)
				lo, hi = min(lo, len(part)), max(hi, len(part))
			}
			if hi-lo > r.per {
				t.Errorf("%s, %d shards: from %d to %d records a shard (%d a work item), want within one item", r.name, n, lo, hi, r.per)
			}
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("%s, %d shards: %d records together, not the %d of the run without shards", r.name, n, len(got), len(want))
			}
		}
	}
}
