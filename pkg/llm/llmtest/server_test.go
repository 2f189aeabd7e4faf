package llmtest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

func post(t *testing.T, url, body string) (int, http.Header, string) {
	t.Helper()
	res, err := http.Post(url+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		return 0, nil, err.Error()
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, string(b)
}

func TestScriptedAndDefaultReplies(t *testing.T) {
	s := New(Options{Rules: []Rule{{Contains: "weather", Content: "sunny"}, {Contains: "broken", Status: 503}}})
	defer s.Close()
	if _, _, b := post(t, s.URL, `{"model":"m","messages":[{"role":"user","content":"the weather?"}]}`); !strings.Contains(b, `"content":"sunny"`) || !strings.Contains(b, `"model":"m"`) {
		t.Errorf("rule: %s", b)
	}
	if code, _, _ := post(t, s.URL, `{"model":"m","messages":[{"role":"user","content":"broken"}]}`); code != 503 {
		t.Errorf("scripted status %d", code)
	}
	if _, _, b := post(t, s.URL, `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}`); !strings.Contains(b, `"content":"echo: hi"`) {
		t.Errorf("echo: %s", b)
	}
	schema := `{"type":"object","properties":{"n":{"type":"integer","minimum":3},"tags":{"type":"array","items":{"enum":["a","b"]},"minItems":2},"s":{"type":"string"}},"required":["n"]}`
	_, _, b := post(t, s.URL, `{"model":"m","messages":[{"role":"user","content":"x"}],"response_format":{"type":"json_schema","json_schema":{"name":"t","schema":`+schema+`}}}`)
	var c struct {
		Choices []struct{ Message struct{ Content string } }
	}
	json.Unmarshal([]byte(b), &c)
	if len(c.Choices) != 1 || c.Choices[0].Message.Content != `{"n":3,"s":"fake s","tags":["a","a"]}` {
		t.Errorf("schema instance: %s", b)
	}
	if got := s.Requests(); len(got) != 4 || got[0].Request.LastUser() != "the weather?" || got[1].Status != 503 {
		t.Errorf("recorded %+v", got)
	}
}

// Faults are drawn at the given rate, reproducibly, and a retry of the
// same body draws anew.
func TestFaultDraw(t *testing.T) {
	count := func() (map[Fault]int, int) {
		s := New(Options{FaultRate: 0.3, Faults: []Fault{ServerError, Empty}, Seed: 3})
		defer s.Close()
		for i := 0; i < 300; i++ {
			post(t, s.URL, `{"model":"m","messages":[{"role":"user","content":"q`+strings.Repeat("x", i%100)+`"}]}`)
		}
		m := map[Fault]int{}
		for _, r := range s.Requests() {
			m[r.Fault]++
		}
		return m, s.Count()
	}
	a, n := count()
	b, _ := count()
	if n != 300 || a[ServerError]+a[Empty] < 60 || a[ServerError]+a[Empty] > 120 || a[ServerError] != b[ServerError] || a[Empty] != b[Empty] {
		t.Errorf("faults %v then %v", a, b)
	}
}

func TestSequenceAndFaultKinds(t *testing.T) {
	s := New(Options{Sequence: []Fault{RateLimit, Length, WrongLang, Reasoning, Malformed}, Reply: func(*ChatRequest) string { return `{"text":"안녕"}` }})
	defer s.Close()
	body := `{"model":"m","messages":[{"role":"user","content":"x"}]}`
	code, h, _ := post(t, s.URL, body)
	if code != 429 || h.Get("Retry-After-Ms") != "10" || h.Get("Retry-After") != "1" {
		t.Errorf("429: %d %v", code, h)
	}
	if _, _, b := post(t, s.URL, body); !strings.Contains(b, `"finish_reason":"length"`) {
		t.Errorf("length: %s", b)
	}
	if _, _, b := post(t, s.URL, body); !strings.Contains(b, `I am sorry, but I will answer this in English instead.`) {
		t.Errorf("wrong language: %s", b)
	}
	if _, _, b := post(t, s.URL, body); !strings.Contains(b, `<think>`) {
		t.Errorf("reasoning: %s", b)
	}
	if _, _, b := post(t, s.URL, body); json.Valid([]byte(b)) {
		t.Errorf("malformed body is valid JSON: %s", b)
	}
	if _, _, b := post(t, s.URL, body); !strings.Contains(b, `{\"text\":\"안녕\"}`) {
		t.Errorf("after the sequence: %s", b)
	}
}

func TestAPIKeyRequired(t *testing.T) {
	s := New(Options{APIKey: "sk-right"})
	defer s.Close()
	req, _ := http.NewRequest("POST", s.URL+"/chat/completions", bytes.NewReader([]byte(`{"model":"m","messages":[]}`)))
	req.Header.Set("Authorization", "Bearer sk-wrong")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 401 || !strings.Contains(string(b), "sk-wrong") {
		t.Errorf("%d %s", res.StatusCode, b)
	}
}
