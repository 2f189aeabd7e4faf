package llm

import (
	"bytes"
	"testing"

	"github.com/ngkit/ngkit/pkg/llm/usage"
)

// FuzzBatchOutput: reading a Batch output or error file never panics;
// only the custom_ids of the batch get an answer, at most one per line,
// and an answer is either a response (with a status) or an error code.
func FuzzBatchOutput(f *testing.F) {
	f.Add([]byte(`{"id":"x","custom_id":"a/c","response":{"status_code":200,"request_id":"r","body":{"model":"m","choices":[{"message":{"content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":1}}}},"error":null}` + "\n"))
	f.Add([]byte(`{"custom_id":"a/c#2","response":null,"error":{"code":"batch_expired","message":"m"}}` + "\n\n" + `{"custom_id":"zz"}`))
	f.Add([]byte(`{"custom_id":"a/c","response":{"status_code":500,"body":{"error":{"message":"x"}}}}`))
	f.Add([]byte("not json\n"))
	keys := map[string]string{"a/c": "k1", "a/c#2": "k2"}
	f.Fuzz(func(t *testing.T, data []byte) {
		c := &Client{bat: newBatchCalls(), prices: usage.Prices{"m": {Input: 1, Output: 1}}, cfg: Config{Model: "m"}}
		n, err := c.AddAnswers(data, keys)
		lines := bytes.Count(data, []byte("\n")) + 1
		if n > lines {
			t.Fatalf("%d answers from %d lines", n, lines)
		}
		for k, a := range c.bat.answers {
			if k != "k1" && k != "k2" {
				t.Fatalf("an answer for %q, not a request of the batch", k)
			}
			if (a.status == 0) == (a.code == "") {
				t.Fatalf("answer %+v is neither a response nor an error", a)
			}
		}
		_ = err
	})
}
