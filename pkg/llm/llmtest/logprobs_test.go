package llmtest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
)

// The logprobs of a reply are OpenAI-shaped: choices[0].logprobs.content
// with the first token, its bytes and at most top_logprobs alternatives;
// none without logprobs: true.
func TestLogprobsShape(t *testing.T) {
	s := New(Options{Reply: func(*ChatRequest) string { return "Yes, indeed" }})
	defer s.Close()
	post := func(body string) map[string]any {
		res, err := http.Post(s.URL+"/chat/completions", "application/json", bytes.NewBufferString(body))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var v map[string]any
		if err := json.NewDecoder(res.Body).Decode(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	v := post(`{"model":"m","messages":[{"role":"user","content":"hi"}],"logprobs":true,"top_logprobs":3}`)
	choice := v["choices"].([]any)[0].(map[string]any)
	content := choice["logprobs"].(map[string]any)["content"].([]any)
	first := content[0].(map[string]any)
	top := first["top_logprobs"].([]any)
	if len(content) != 1 || first["token"] != "Yes" || first["logprob"] != 0.0 || len(top) != 1 ||
		top[0].(map[string]any)["token"] != "Yes" || len(first["bytes"].([]any)) != 3 {
		t.Errorf("logprobs %v", choice["logprobs"])
	}
	v = post(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`)
	if _, ok := v["choices"].([]any)[0].(map[string]any)["logprobs"]; ok {
		t.Error("logprobs without asking")
	}
	if FirstToken("(A) x") != "(" || FirstToken("B.") != "B" || FirstToken("") != "" {
		t.Error("FirstToken")
	}
}
