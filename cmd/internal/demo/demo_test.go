package demo

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// The demo's client answers in-process, as a server would: a chat
// completion of an ngrefine judge request (the canned judge accepts),
// llama-server's /props, and a 404 for what it does not serve.
func TestClient(t *testing.T) {
	base, c := Endpoint()
	if base != BaseURL {
		t.Fatalf("base URL %s", base)
	}
	body := `{"model":"demo","messages":[{"role":"user","content":"<seed>\nScenario: Tom apologises.\n</seed>"}],` +
		`"response_format":{"type":"json_schema","json_schema":{"name":"refine_judge","schema":{"title":"refine_judge"}}}}`
	resp, err := c.Post(BaseURL+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Model   string
		Choices []struct{ Message struct{ Content string } }
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err := json.Unmarshal(b, &out); err != nil || resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" ||
		out.Model != Model || len(out.Choices) != 1 || !strings.Contains(out.Choices[0].Message.Content, `"task_relevance":5`) {
		t.Fatalf("%s: %v %s", resp.Status, err, b)
	}
	resp, err = c.Get("http://demo.ngkit.invalid/props")
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"total_slots":8`) {
		t.Errorf("/props: %s %s", resp.Status, b)
	}
	resp, err = c.Get(BaseURL + "/models")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || resp.Status != "404 Not Found" {
		t.Errorf("/models: %s", resp.Status)
	}
}
