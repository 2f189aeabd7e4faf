package app

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ngkit/ngkit/pkg/llm/llmtest"
	"github.com/ngkit/ngkit/pkg/llm/usage"
)

// The summary and --usage-json total the tokens each record's gen got,
// priced with a --prices file (the built-in table is OpenAI's: it prices
// only calls to api.openai.com, see TestBuiltinPricesOnlyAtOpenAI).
func TestUsageAndCost(t *testing.T) {
	srv := llmtest.New(llmtest.Options{Reply: koReply, FaultRate: 0.2, Faults: []llmtest.Fault{llmtest.ServerError, llmtest.Empty}, RetryAfter: time.Millisecond})
	defer srv.Close()
	dir := t.TempDir()
	in := writeRecords(t, dir, 30)
	out, usageFile := filepath.Join(dir, "out.jsonl"), filepath.Join(dir, "usage.json")
	vars := map[string]string{"NG_BASE_URL": srv.URL, "NG_MODEL": "gpt-4o-mini-2024-07-18"}
	prices := filepath.Join(dir, "prices.json")
	os.WriteFile(prices, []byte(`{"gpt-4o-mini": {"input": 0.15, "output": 0.60}, "llama3.1": {"input": 1, "output": 2}}`), 0o644)
	// A local server answering under an OpenAI model name is not priced
	// at OpenAI's rates...
	_, _, stderr := run(t, vars, "--no-cache", "--backoff", "1ms", "-v", "-o", out, in)
	if !strings.Contains(stderr, "cost not estimated (no price for gpt-4o-mini-2024-07-18 here: the built-in prices are OpenAI's") {
		t.Errorf("a local gpt-4o-mini priced: %s", stderr)
	}
	// ...unless --prices names it.
	code, _, stderr := run(t, vars, "--no-cache", "--backoff", "1ms", "--prices", prices, "-o", out, "--usage-json", usageFile, in)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var u usage.Report
	b, _ := os.ReadFile(usageFile)
	if err := json.Unmarshal(b, &u); err != nil {
		t.Fatal(err)
	}
	var in_, out_ int64
	for _, r := range readRecords(t, out) {
		in_ += int64(r.Gen[0].TokensIn)
		out_ += int64(r.Gen[0].TokensOut)
	}
	want := (float64(in_)*0.15 + float64(out_)*0.60) / 1e6
	if u.Total.Calls != 30 || u.Total.TokensIn != in_ || u.Total.TokensOut != out_ || !u.Priced || math.Abs(u.Total.CostUSD-want) > 1e-12 ||
		u.ByCall["situation"] == nil || u.Stage != "koecho" || u.Total.Faults["5xx"]+u.Total.Faults["empty"] != u.Total.Retries {
		t.Errorf("usage %+v, tokens %d/%d, cost want %v", u.Total, in_, out_, want)
	}
	if !strings.Contains(stderr, "koecho: llm gpt-4o-mini-2024-07-18 at "+srv.URL) || !strings.Contains(stderr, "30 calls answered") || !strings.Contains(stderr, "est. cost $") {
		t.Errorf("summary: %s", stderr)
	}

	// A price file prices a local model; -q keeps the summary off stderr.
	vars["NG_MODEL"] = "llama3.1"
	code, _, stderr = run(t, vars, "--no-cache", "-q", "--backoff", "1ms", "--prices", prices, "-o", out, "--usage-json", usageFile, in)
	b, _ = os.ReadFile(usageFile)
	u = usage.Report{}
	json.Unmarshal(b, &u)
	if code != 0 || stderr != "" || !u.Priced || u.Price.Input != 1 || u.Total.CostUSD <= 0 {
		t.Errorf("exit %d, stderr %q, usage %+v", code, stderr, u)
	}
	vars["NG_MODEL"] = "mystery"
	// Every stage of a pipeline prints its summary: one line, the note
	// short; -v says why.
	_, _, stderr = run(t, vars, "--no-cache", "--backoff", "1ms", "-o", out, in)
	if !strings.HasSuffix(stderr, "; cost not estimated (see --prices)\n") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("unpriced model, without -v: %s", stderr)
	}
	_, _, stderr = run(t, vars, "--no-cache", "--backoff", "1ms", "--verbose", "-o", out, in)
	if !strings.Contains(stderr, "cost not estimated (no price for mystery") {
		t.Errorf("unpriced model: %s", stderr)
	}
}
