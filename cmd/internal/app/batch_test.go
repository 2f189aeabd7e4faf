package app

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/llm/llmtest"
	"github.com/ngkit/ngkit/pkg/record"
)

// batchRun plays the OpenAI Batch API: it sends each request of an input
// file to the server and writes the output file.
func batchRun(t *testing.T, srvURL, input, output string) int {
	t.Helper()
	f, err := os.Open(input)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out bytes.Buffer
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var req llm.BatchRequest
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			t.Fatal(err)
		}
		if req.Method != "POST" || req.URL != "/v1/chat/completions" || !strings.Contains(req.CustomID, "/situation") {
			t.Fatalf("batch line %s", sc.Bytes())
		}
		res, err := http.Post(strings.TrimSuffix(srvURL, "/v1")+req.URL, "application/json", bytes.NewReader(req.Body))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		n++
		fmt.Fprintf(&out, `{"id":"batch_req_%d","custom_id":%q,"response":{"status_code":%d,"request_id":"req_%d","body":%s},"error":null}`+"\n",
			n, req.CustomID, res.StatusCode, n, body)
	}
	if err := os.WriteFile(output, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return n
}

// Emit the requests, run them as the Batch API would, replay the output:
// the records are the same as when calling directly (but for the time
// each call took).
func TestEmitThenReplayEqualsDirect(t *testing.T) {
	const n = 50
	srv := llmtest.New(llmtest.Options{Reply: koReply})
	defer srv.Close()
	dir := t.TempDir()
	in := writeRecords(t, dir, n)
	vars := map[string]string{"NG_BASE_URL": srv.URL, "NG_MODEL": "fake"}
	p := func(name string) string { return filepath.Join(dir, name) }

	if code, _, stderr := run(t, vars, "--no-cache", "-o", p("direct.jsonl"), in); code != 0 {
		t.Fatalf("direct: exit %d: %s", code, stderr)
	}
	before := srv.Count()
	code, _, stderr := run(t, vars, "--no-cache", "--emit-requests", p("requests.jsonl"), "-o", p("emitted.jsonl"), in)
	if code != 0 || srv.Count() != before {
		t.Fatalf("emit: exit %d, %d requests sent: %s", code, srv.Count()-before, stderr)
	}
	if len(readRecords(t, p("emitted.jsonl"))) != 0 || !strings.Contains(stderr, "50 records wait for the replies") {
		t.Errorf("emit run wrote records, or did not say they wait: %s", stderr)
	}
	if got := batchRun(t, srv.URL, p("requests.jsonl"), p("batch-output.jsonl")); got != n {
		t.Fatalf("%d requests emitted, want %d", got, n)
	}
	// Only the offline flag: the replay needs no endpoint.
	code, _, stderr = run(t, map[string]string{"NG_MODEL": "fake"}, "--no-cache", "--responses", p("batch-output.jsonl"), "-o", p("replayed.jsonl"), in)
	if code != 0 {
		t.Fatalf("replay: exit %d: %s", code, stderr)
	}
	direct, replayed := readRecords(t, p("direct.jsonl")), readRecords(t, p("replayed.jsonl"))
	if len(direct) != n || len(replayed) != n {
		t.Fatalf("%d direct, %d replayed records", len(direct), len(replayed))
	}
	for i := range direct {
		a, b := untimed(direct[i]), untimed(replayed[i])
		if !reflect.DeepEqual(a, b) {
			ja, _ := a.AppendJSON(nil)
			jb, _ := b.AppendJSON(nil)
			t.Fatalf("record %d differs:\ndirect   %s\nreplayed %s", i, ja, jb)
		}
	}
}

func untimed(r *record.Record) *record.Record {
	c := *r
	c.Gen = append([]record.Gen(nil), r.Gen...)
	for i := range c.Gen {
		c.Gen[i].Seconds = 0
	}
	return &c
}

// A reply missing from the --responses file sends its record to the
// errors file; a failed Batch request too.
func TestReplayMissingGoesToErrors(t *testing.T) {
	dir := t.TempDir()
	in := writeRecords(t, dir, 3)
	resp := `{"custom_id":"k0000/situation","response":{"status_code":200,"body":{"model":"fake","choices":[{"message":{"role":"assistant","content":"{\"text\":\"안녕하세요 여러분\",\"lang\":\"ko\"}"},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":5}}}}
{"custom_id":"k0001/situation","response":null,"error":{"code":"batch_expired","message":"This request could not be executed before the completion window expired."}}
`
	rf := filepath.Join(dir, "responses.jsonl")
	os.WriteFile(rf, []byte(resp), 0o644)
	out, errs := filepath.Join(dir, "out.jsonl"), filepath.Join(dir, "errors.jsonl")
	code, _, stderr := run(t, map[string]string{"NG_MODEL": "fake"}, "--no-cache", "--responses", rf, "-o", out, "--errors", errs, in)
	if code != 1 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	recs := readRecords(t, out)
	failed, reasons := readErrorIDs(t, errs)
	if len(recs) != 1 || recs[0].Situation != "안녕하세요 여러분" || recs[0].Gen[0].TokensIn != 10 {
		t.Errorf("output %+v", recs)
	}
	if len(failed) != 2 || !strings.Contains(reasons[0], "batch_expired") || !strings.Contains(reasons[1], `no reply for custom_id "k0002/situation"`) {
		t.Errorf("errors %v %v", failed, reasons)
	}
	// Recorded replies in the simplest shape work too.
	os.WriteFile(rf, []byte(`{"custom_id":"k0002/situation","content":"{\"text\":\"감사합니다\",\"lang\":\"ko\"}"}`+"\n"), 0o644)
	code, _, stderr = run(t, map[string]string{"NG_MODEL": "fake"}, "--no-cache", "--responses", rf, "-o", out, "--errors", errs, "--resume", in)
	if code != 1 || len(readRecords(t, out)) != 2 {
		t.Errorf("resume with recorded replies: exit %d: %s", code, stderr)
	}
}
