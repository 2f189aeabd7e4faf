package llmtest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func postChat(t *testing.T, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func replyText(t *testing.T, body string) string {
	t.Helper()
	var r struct {
		Choices []struct {
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal([]byte(body), &r); err != nil || len(r.Choices) == 0 {
		t.Fatalf("not a chat reply: %s", body)
	}
	return r.Choices[0].Message.Content
}

// The proxy forwards to the real server and records each exchange, errors
// included; the replay answers the same requests with the same replies,
// whatever the key order of the body, and names a request it has no
// reply for.
func TestRecordAndReplay(t *testing.T) {
	up := New(Options{Rules: []Rule{
		{Contains: "hello", Content: "hi there"},
		{Contains: "broken", Status: 400, Message: "bad request from upstream"},
	}})
	defer up.Close()
	var buf bytes.Buffer
	rec := NewRecorder(up.URL, &buf)
	proxy := httptest.NewServer(rec)
	defer proxy.Close()

	hello := `{"model":"m","messages":[{"role":"user","content":"hello"}],"temperature":0.5}`
	broken := `{"model":"m","messages":[{"role":"user","content":"broken"}]}`
	if st, b := postChat(t, proxy.URL+"/v1", hello); st != 200 || replyText(t, b) != "hi there" {
		t.Fatalf("proxied reply: %d %s", st, b)
	}
	if st, b := postChat(t, proxy.URL+"/v1", broken); st != 400 || !strings.Contains(b, "bad request from upstream") {
		t.Fatalf("proxied error: %d %s", st, b)
	}
	if up.Count() != 2 || rec.Count() != 2 {
		t.Fatalf("upstream served %d, recorded %d; want 2 and 2", up.Count(), rec.Count())
	}
	path := filepath.Join(t.TempDir(), "rec.jsonl")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	exs, err := ReadRecording(path)
	if err != nil || len(exs) != 2 {
		t.Fatalf("recording: %v, %d exchanges", err, len(exs))
	}
	if exs[0].Path != "/v1/chat/completions" || exs[0].Status != 200 || exs[1].Status != 400 {
		t.Fatalf("recorded %+v", exs)
	}
	var req map[string]any
	if json.Unmarshal(exs[0].Request, &req) != nil || req["temperature"] != 0.5 {
		t.Fatalf("request body not recorded as JSON: %s", exs[0].Request)
	}

	rp := NewReplayer(exs)
	replay := httptest.NewServer(rp)
	defer replay.Close()
	// same request, keys in another order and spaced
	again := `{ "temperature": 0.5, "messages": [ {"content": "hello", "role": "user"} ], "model": "m" }`
	if st, b := postChat(t, replay.URL+"/v1", again); st != 200 || replyText(t, b) != "hi there" {
		t.Fatalf("replayed reply: %d %s", st, b)
	}
	if st, b := postChat(t, replay.URL+"/v1", broken); st != 400 || !strings.Contains(b, "bad request from upstream") {
		t.Fatalf("replayed error: %d %s", st, b)
	}
	// another temperature is another request
	other := strings.Replace(hello, "0.5", "0.7", 1)
	st, b := postChat(t, replay.URL+"/v1", other)
	if st < 500 || !strings.Contains(b, "no recorded reply to POST /v1/chat/completions") {
		t.Fatalf("a request with no recording: %d %s", st, b)
	}
	if n, miss := rp.Stats(); n != 2 || miss != 1 {
		t.Fatalf("stats: %d replayed, %d missed; want 2, 1", n, miss)
	}
}

// Identical requests (samples) get their recorded replies in order, then
// the last one again.
func TestReplayInOrder(t *testing.T) {
	body := json.RawMessage(`{"messages":[{"role":"user","content":"pick"}]}`)
	reply := func(s string) json.RawMessage {
		b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": s}}}})
		return b
	}
	rp := NewReplayer([]Exchange{
		{Method: "POST", Path: "/v1/chat/completions", Request: body, Status: 200, Type: "application/json", Response: reply("A")},
		{Method: "POST", Path: "/v1/chat/completions", Request: body, Status: 200, Type: "application/json", Response: reply("B")},
	})
	srv := httptest.NewServer(rp)
	defer srv.Close()
	var got []string
	for range 3 {
		_, b := postChat(t, srv.URL+"/v1", string(body))
		got = append(got, replyText(t, b))
	}
	if strings.Join(got, "") != "ABB" {
		t.Fatalf("replies %v, want A B B", got)
	}
}

func TestReadRecordingBadLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rec.jsonl")
	os.WriteFile(path, []byte(`{"method":"POST","path":"/v1/chat/completions","status":200,"response":{}}`+"\n{oops\n"), 0o644)
	_, err := ReadRecording(path)
	if err == nil || !strings.Contains(err.Error(), "rec.jsonl:2:") {
		t.Fatalf("error %v, want one naming line 2", err)
	}
}
