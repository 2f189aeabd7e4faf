package app

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ngkit/ngkit/pkg/llm/llmtest"
	"github.com/ngkit/ngkit/pkg/llm/usage"
)

// faultyKo is a fake whose faults make re-asks (wrong language) and
// retries (500): the batch run needs several rounds.
func faultyKo() *llmtest.Server {
	return llmtest.New(llmtest.Options{Reply: koReply, FaultRate: 0.3, Seed: 7,
		Faults: []llmtest.Fault{llmtest.WrongLang, llmtest.ServerError, llmtest.BadJSON}})
}

// --batch gives the records an online run gives on the same fake replies
// (faults included: re-asks and retries become later rounds).
func TestBatchEqualsOnline(t *testing.T) {
	const n = 40
	online, batch := faultyKo(), faultyKo()
	defer online.Close()
	defer batch.Close()
	batch.SetBatch(llmtest.BatchOptions{Validating: 5 * time.Millisecond, CompletionTime: 20 * time.Millisecond})
	dir := t.TempDir()
	in := writeRecords(t, dir, n)
	p := func(name string) string { return filepath.Join(dir, name) }
	code, _, stderr := run(t, map[string]string{"NG_BASE_URL": online.URL, "NG_MODEL": "fake"}, "--no-cache", "--backoff", "1ms", "-o", p("online.jsonl"), in)
	if code != 0 {
		t.Fatalf("online: exit %d: %s", code, stderr)
	}
	code, _, stderr = run(t, map[string]string{"NG_BASE_URL": batch.URL, "NG_MODEL": "fake"}, "--no-cache", "--batch", "--batch-poll", "5ms", "-o", p("batch.jsonl"), in)
	if code != 0 {
		t.Fatalf("batch: exit %d: %s", code, stderr)
	}
	st := batch.BatchStats()
	if st.Batches < 2 || !strings.Contains(stderr, "batch round 2:") {
		t.Errorf("the faults needed no second round? %+v\n%s", st, stderr)
	}
	if online.Count() != batch.Count() {
		t.Errorf("%d requests online, %d in batches", online.Count(), batch.Count())
	}
	a, b := readRecords(t, p("online.jsonl")), readRecords(t, p("batch.jsonl"))
	if len(a) != n || len(b) != n {
		t.Fatalf("%d online, %d batch records", len(a), len(b))
	}
	for i := range a {
		x, y := untimed(a[i]), untimed(b[i])
		if !reflect.DeepEqual(x, y) {
			jx, _ := x.AppendJSON(nil)
			jy, _ := y.AppendJSON(nil)
			t.Fatalf("record %d differs:\nonline %s\nbatch  %s", i, jx, jy)
		}
	}
	t.Logf("%d batches, %d lines, %d polls\n%s", st.Batches, st.Lines, st.Polls, stderr)
}

// startBatchChild runs koecho --batch in a child process.
func startBatchChild(t *testing.T, srv *llmtest.Server, args ...string) (*exec.Cmd, *strings.Builder) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "NGKIT_TEST_ROLE=koecho", "NG_BASE_URL="+srv.URL, "NG_MODEL=fake")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &stderr
}

func waitFor(t *testing.T, cmd *exec.Cmd, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !ok(); time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("waited 30 s for %s", what)
		}
	}
}

// noneTwice fails if a custom_id was submitted in two batches.
func noneTwice(t *testing.T, srv *llmtest.Server) int {
	t.Helper()
	seen := map[string]bool{}
	n := 0
	for _, b := range srv.BatchInputs() {
		for _, id := range b {
			if seen[id] {
				t.Errorf("%s submitted twice", id)
			}
			seen[id] = true
			n++
		}
	}
	return n
}

// A run killed (SIGKILL) while it polls, run again: it picks up the
// batches in flight and submits nothing twice; the records are those of
// an uninterrupted run.
func TestBatchKillThenRerun(t *testing.T) {
	const n = 30
	ref, srv := faultyKo(), faultyKo()
	defer ref.Close()
	defer srv.Close()
	opt := llmtest.BatchOptions{CompletionTime: 300 * time.Millisecond}
	ref.SetBatch(opt)
	srv.SetBatch(opt)
	dir := t.TempDir()
	in := writeRecords(t, dir, n)
	p := func(name string) string { return filepath.Join(dir, name) }
	if code, _, stderr := run(t, map[string]string{"NG_BASE_URL": ref.URL, "NG_MODEL": "fake"}, "--no-cache", "--batch", "--batch-poll", "10ms", "-o", p("ref.jsonl"), in); code != 0 {
		t.Fatalf("reference: exit %d: %s", code, stderr)
	}
	args := []string{"--no-cache", "--batch", "--batch-poll", "10ms", "-o", p("out.jsonl"), in}
	for _, killAt := range []int{1, 2} { // polling round 1, then round 2 of the rerun
		cmd, stderr := startBatchChild(t, srv, args...)
		waitFor(t, cmd, "a batch", func() bool { return srv.BatchStats().Batches >= killAt && srv.BatchStats().Polls > 2*killAt })
		cmd.Process.Kill()
		cmd.Wait()
		t.Logf("killed:\n%s", stderr)
		if _, err := os.Stat(p("out.jsonl")); err == nil {
			t.Fatalf("output written by a killed run: %s", stderr)
		}
	}
	code, _, stderr := run(t, map[string]string{"NG_BASE_URL": srv.URL, "NG_MODEL": "fake"}, args...)
	if code != 0 {
		t.Fatalf("rerun: exit %d: %s", code, stderr)
	}
	noneTwice(t, srv)
	if a, b := ref.BatchStats(), srv.BatchStats(); a.Batches != b.Batches || a.Lines != b.Lines {
		t.Errorf("uninterrupted: %d batches of %d lines; killed twice and rerun: %d batches of %d lines\n%v\n%v\n%s", a.Batches, a.Lines, b.Batches, b.Lines, ref.BatchInputs(), srv.BatchInputs(), stderr)
	}
	want, got := readRecords(t, p("ref.jsonl")), readRecords(t, p("out.jsonl"))
	if len(want) != n || len(got) != n {
		t.Fatalf("%d and %d records", len(want), len(got))
	}
	for i := range want {
		if !reflect.DeepEqual(untimed(want[i]), untimed(got[i])) {
			t.Fatalf("record %d differs", i)
		}
	}
}

// Ctrl-C while polling leaves the batches running and prints the command
// that resumes; --batch-cancel cancels them.
func TestBatchInterruptAndCancel(t *testing.T) {
	srv := llmtest.New(llmtest.Options{Reply: koReply})
	defer srv.Close()
	srv.SetBatch(llmtest.BatchOptions{CompletionTime: time.Hour})
	dir := t.TempDir()
	in := writeRecords(t, dir, 5)
	state := filepath.Join(dir, "my state")
	args := []string{"--no-cache", "--batch", "--batch-poll", "10ms", "--batch-state", state, in}
	cmd, stderr := startBatchChild(t, srv, args...)
	waitFor(t, cmd, "polls", func() bool { return srv.BatchStats().Polls >= 2 })
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != ExitInterrupted {
		t.Fatalf("exit: %v; stderr: %s", err, stderr)
	}
	want := "koecho: interrupted: 1 batch still run at the provider (state in " + state + "); run the same command again to resume:\n  koecho --no-cache --batch --batch-poll 10ms --batch-state '" + state + "' " + in + "\n"
	if !strings.HasSuffix(stderr.String(), want) {
		t.Errorf("stderr ends:\n%s\nwant:\n%s", stderr, want)
	}
	code, _, serr := run(t, map[string]string{"NG_BASE_URL": srv.URL, "NG_MODEL": "fake"}, append(args, "--batch-cancel")...)
	if code != 0 || !strings.Contains(serr, "cancelled 1 batch (batch_fake2)") || srv.BatchStats().Cancelled != 1 || srv.BatchStats().Batches != 1 {
		t.Errorf("cancel: exit %d: %s %+v", code, serr, srv.BatchStats())
	}
	// Without -o and without --batch-state: refused.
	code, _, serr = run(t, map[string]string{"NG_BASE_URL": srv.URL, "NG_MODEL": "fake"}, "--batch", in)
	if code != 2 || !strings.Contains(serr, "needs --batch-state DIR") {
		t.Errorf("stdout run: exit %d: %s", code, serr)
	}
}

// A small --batch-max-requests splits each round into several batches,
// whose replies are merged in input order; expired and failed lines are
// asked again in the next round.
func TestBatchSplitExpiredFailed(t *testing.T) {
	const n = 25
	srv := llmtest.New(llmtest.Options{Reply: koReply})
	defer srv.Close()
	srv.SetBatch(llmtest.BatchOptions{ExpireShare: 0.2, FailShare: 0.2})
	dir := t.TempDir()
	in := writeRecords(t, dir, n)
	out := filepath.Join(dir, "out.jsonl")
	code, _, stderr := run(t, map[string]string{"NG_BASE_URL": srv.URL, "NG_MODEL": "fake"}, "--no-cache", "--batch", "--batch-poll", "1ms", "--batch-max-requests", "7", "-o", out, in)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	inputs := srv.BatchInputs()
	if len(inputs) < 5 || len(inputs[0]) != 7 || len(inputs[3]) != 4 || inputs[0][0] != "k0000/situation" || inputs[3][3] != "k0024/situation" {
		t.Errorf("round 1 batches: %v", inputs)
	}
	retried := 0
	for _, b := range inputs[4:] {
		for _, id := range b {
			if !strings.Contains(id, "#") {
				t.Errorf("a later round has a first attempt: %s", id)
			}
			retried++
		}
	}
	noneTwice(t, srv)
	recs := readRecords(t, out)
	if !slices.Equal(ids(recs), wantIDs(n)) {
		t.Fatalf("ids %v", ids(recs))
	}
	for i, r := range recs {
		if r.ID != wantIDs(n)[i] || !strings.Contains(r.Situation, "scenario "+strconv.Itoa(i)+"에") {
			t.Fatalf("record %d: %s %q", i, r.ID, r.Situation)
		}
	}
	if retried < 5 || !strings.Contains(stderr, "expired: ") {
		t.Errorf("%d retried: %s", retried, stderr)
	}
}

// Items that keep failing go to the errors file with the reason, within
// --max-retries; a batch that fails as a whole says why in one line.
func TestBatchFailures(t *testing.T) {
	srv := llmtest.New(llmtest.Options{Reply: koReply})
	defer srv.Close()
	srv.SetBatch(llmtest.BatchOptions{FailShare: 1})
	dir := t.TempDir()
	in := writeRecords(t, dir, 3)
	out, errs := filepath.Join(dir, "out.jsonl"), filepath.Join(dir, "errors.jsonl")
	vars := map[string]string{"NG_BASE_URL": srv.URL, "NG_MODEL": "fake"}
	code, _, stderr := run(t, vars, "--no-cache", "--batch", "--batch-poll", "1ms", "--max-retries", "2", "-o", out, "--errors", errs, in)
	failed, reasons := readErrorIDs(t, errs)
	if code != 1 || len(failed) != 3 || !strings.Contains(reasons[0], "gave up after 3 attempts: in the Batch output: HTTP 500") || srv.BatchStats().Batches != 3 {
		t.Errorf("exit %d, %v %v, %+v: %s", code, failed, reasons, srv.BatchStats(), stderr)
	}
	srv.SetBatch(llmtest.BatchOptions{Invalid: "Model fake is not available in the Batch API"})
	code, _, stderr = run(t, vars, "--no-cache", "--batch", "--batch-poll", "1ms", "-o", filepath.Join(dir, "o2.jsonl"), in)
	last := strings.Split(strings.TrimSpace(stderr), "\n")
	if code != 1 || !strings.HasPrefix(last[len(last)-1], "koecho: a batch failed: batch batch_fake") ||
		!strings.HasSuffix(last[len(last)-1], "(r001-default-01.in.jsonl, 3 requests) failed: Model fake is not available in the Batch API (invalid_request); fix the cause and run the same command again") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

// --batch prices at the batch rate; the usage report shows the list
// price and what the Batch API took off it.
func TestBatchPrices(t *testing.T) {
	srv := llmtest.New(llmtest.Options{Reply: koReply})
	defer srv.Close()
	dir := t.TempDir()
	in := writeRecords(t, dir, 10)
	prices := filepath.Join(dir, "prices.json")
	os.WriteFile(prices, []byte(`{"fake": {"input": 2, "output": 8, "cached_input": 0.5, "batch_input": 1, "batch_output": 4, "batch_cached_input": 0.25}}`), 0o644)
	vars := map[string]string{"NG_BASE_URL": srv.URL, "NG_MODEL": "fake"}
	var costs [2]usage.CallStats
	for i, mode := range [][]string{nil, {"--batch", "--batch-poll", "1ms"}} {
		usageFile := filepath.Join(dir, fmt.Sprintf("usage%d.json", i))
		args := append([]string{"--no-cache", "--prices", prices, "--usage-json", usageFile, "-o", filepath.Join(dir, fmt.Sprintf("out%d.jsonl", i)), in}, mode...)
		code, _, stderr := run(t, vars, args...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var u usage.Report
		b, _ := os.ReadFile(usageFile)
		if err := json.Unmarshal(b, &u); err != nil {
			t.Fatal(err)
		}
		costs[i] = u.Total
		if i == 1 && !strings.Contains(stderr, fmt.Sprintf("est. cost $%.4f (list $%.4f, batch -$%.4f)", u.Total.CostUSD, u.Total.ListCostUSD, u.Total.BatchSavedUSD)) {
			t.Errorf("summary: %s", stderr)
		}
	}
	on, bt := costs[0], costs[1]
	want := (float64(on.TokensIn)*2 + float64(on.TokensOut)*8) / 1e6
	if on.TokensIn == 0 || math.Abs(on.CostUSD-want) > 1e-9 || on.BatchSavedUSD != 0 || bt.TokensIn != on.TokensIn || bt.Batched != 10 ||
		math.Abs(bt.CostUSD-want/2) > 1e-9 || math.Abs(bt.ListCostUSD-want) > 1e-9 || math.Abs(bt.BatchSavedUSD-want/2) > 1e-9 {
		t.Errorf("online %+v\nbatch %+v", on, bt)
	}
}

// --budget stops a run as Ctrl-C does once the spend estimate reaches it;
// --resume goes on. With --batch it stops after the round that reached
// it, and the same command with a larger budget goes on.
func TestBudget(t *testing.T) {
	srv := llmtest.New(llmtest.Options{Reply: koReply, FaultRate: 0.3, Seed: 7, Faults: []llmtest.Fault{llmtest.WrongLang}})
	defer srv.Close()
	dir := t.TempDir()
	const n = 40
	in := writeRecords(t, dir, n)
	prices := filepath.Join(dir, "prices.json")
	os.WriteFile(prices, []byte(`{"fake": {"input": 1000, "output": 1000}}`), 0o644) // about $0.1 a call
	vars := map[string]string{"NG_BASE_URL": srv.URL, "NG_MODEL": "fake"}
	out := filepath.Join(dir, "out.jsonl")
	base := []string{"--no-cache", "--prices", prices, "--concurrency", "1", "-j", "1", "-o", out}
	code, _, stderr := run(t, vars, append(base, "--budget", "1", in)...)
	if code != 1 || !strings.Contains(stderr, "koecho: stopped: the spend estimate $") || !strings.Contains(stderr, "reached --budget $1;") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	done := readRecords(t, out)
	if len(done) == 0 || len(done) > 15 || srv.Count() > 16 {
		t.Fatalf("%d records written, %d requests, under a budget of about 10 calls", len(done), srv.Count())
	}
	code, _, stderr = run(t, vars, append(base, "--resume", in)...)
	if code != 0 || !slices.Equal(ids(readRecords(t, out)), wantIDs(n)) {
		t.Fatalf("resume: exit %d: %s", code, stderr)
	}
	// Unpriced: refused.
	code, _, stderr = run(t, vars, "--no-cache", "--budget", "5", in)
	if code != 2 || !strings.Contains(stderr, "--budget: endpoint default's model fake has no price") {
		t.Errorf("unpriced: exit %d: %s", code, stderr)
	}

	srv.SetBatch(llmtest.BatchOptions{})
	bout := filepath.Join(dir, "batch.jsonl")
	bargs := []string{"--no-cache", "--prices", prices, "--batch", "--batch-poll", "1ms", "-o", bout, in}
	code, _, stderr = run(t, vars, append(bargs, "--budget", "1")...)
	if code != 1 || !strings.Contains(stderr, "koecho: stopped: the Batch replies so far cost about $") || srv.BatchStats().Batches != 1 {
		t.Fatalf("batch: exit %d, %+v: %s", code, srv.BatchStats(), stderr)
	}
	code, _, stderr = run(t, vars, append(bargs, "--budget", "100")...)
	if code != 0 || !slices.Equal(ids(readRecords(t, bout)), wantIDs(n)) {
		t.Fatalf("batch, larger budget: exit %d: %s", code, stderr)
	}
	noneTwice(t, srv)
}

// Flags that cannot make a run are refused before --batch submits
// anything: no batch is paid for a run that would fail at the end.
func TestBatchRefusesBadFlagsFirst(t *testing.T) {
	srv := faultyKo()
	defer srv.Close()
	dir := t.TempDir()
	in := writeRecords(t, dir, 4)
	out := filepath.Join(dir, "out.jsonl")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--zstd-level", "99", "-o", out}, "--zstd-level 99: want 1 to 22"},
		{[]string{"-o", out, "--errors", out}, "-o and --errors name the same file"},
		{[]string{"--resume", "--batch-state", filepath.Join(dir, "st")}, "--resume needs -o FILE"},
	} {
		args := append([]string{"--no-cache", "--batch", "--batch-poll", "5ms"}, c.args...)
		code, _, stderr := run(t, map[string]string{"NG_BASE_URL": srv.URL, "NG_MODEL": "fake"}, append(args, in)...)
		if code != ExitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
	if st := srv.BatchStats(); st.Batches != 0 || srv.Count() != 0 {
		t.Errorf("batches submitted before the flags were refused: %+v, %d requests", st, srv.Count())
	}
}
