package app

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ngkit/ngkit/pkg/llm/llmtest"
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
