package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/llm/llmtest"
	"github.com/ngkit/ngkit/pkg/llm/usage"
)

// 20% of requests faulted, every kind of fault, 1,000 records through the
// test stage with the default retries: every record is in the output or
// in the errors file, none twice, and at least 99% succeed.
func TestFaultsNeverLoseARecord(t *testing.T) {
	const n = 1000
	srv := llmtest.New(llmtest.Options{
		Latency: time.Millisecond, FaultRate: 0.2, Seed: 7,
		RetryAfter: 5 * time.Millisecond, SlowFor: 5 * time.Second,
		Reply: koReply,
	})
	defer srv.Close()
	dir := t.TempDir()
	in := writeRecords(t, dir, n)
	out, errs, usageFile := filepath.Join(dir, "out.jsonl"), filepath.Join(dir, "errors.jsonl"), filepath.Join(dir, "usage.json")
	code, _, stderr := run(t, map[string]string{"NG_BASE_URL": srv.URL, "NG_MODEL": "fake"},
		"--concurrency", "32", "--timeout", "300ms", "--backoff", "2ms", "--retry-after-cap", "50ms",
		"--no-cache", "-o", out, "--errors", errs, "--usage-json", usageFile, in)
	if code != 0 && code != 1 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	recs := readRecords(t, out)
	failed, reasons := readErrorIDs(t, errs)
	all := append(ids(recs), failed...)
	sort.Strings(all)
	if !slices.Equal(all, wantIDs(n)) {
		t.Fatalf("output (%d) + errors (%d) are not every input id once", len(recs), len(failed))
	}
	if len(recs) < n*99/100 {
		t.Errorf("%d of %d succeeded, want >= 99%%; failures: %v", len(recs), n, reasons)
	}
	for _, r := range recs {
		if r.Situation == "" || len(r.Gen) != 1 || r.Gen[0].Stage != "koecho" || r.Gen[0].TokensIn == 0 || r.Gen[0].PromptPack != "test-v1" {
			t.Fatalf("record %s: situation %q gen %+v", r.ID, r.Situation, r.Gen)
		}
		if _, err := koreanCheck(&llm.Response{JSON: json.RawMessage(`{"text":` + quote(r.Situation) + `}`)}); err != nil {
			t.Fatalf("record %s is not Korean: %q", r.ID, r.Situation)
		}
	}
	// Every kind of fault was injected, and the usage report saw them.
	injected := map[llmtest.Fault]int{}
	for _, q := range srv.Requests() {
		injected[q.Fault]++
	}
	for _, f := range llmtest.AllFaults {
		if injected[f] == 0 {
			t.Errorf("fault %s never injected: %v", f, injected)
		}
	}
	var u usage.Report
	b, err := os.ReadFile(usageFile)
	if err != nil || json.Unmarshal(b, &u) != nil {
		t.Fatalf("usage json: %v %s", err, b)
	}
	// A request that timed out or lost its connection before the server
	// read it (a dial slow under load) is counted by the client only.
	unseen := u.Total.Requests - int64(srv.Count())
	if u.Total.Calls != int64(len(recs)) || unseen < 0 || unseen > u.Total.Faults["timeout"]+u.Total.Faults["connection"] ||
		u.Total.Retries == 0 || u.Total.Reasks == 0 {
		t.Errorf("usage: %+v (server saw %d requests)", u.Total, srv.Count())
	}
	t.Logf("%d ok, %d failed; %d requests; faults %v; window cuts %d", len(recs), len(failed), srv.Count(), u.Total.Faults, u.WindowCuts)
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
