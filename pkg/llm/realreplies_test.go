package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// realReply is a fixture of testdata/realreplies: a real model's reply to
// a request of ngkit's, kept verbatim (see its README).
type realReply struct {
	Case    string `json:"case"`
	Model   string `json:"model"`
	Edit    string `json:"edit"`
	Stage   string `json:"stage"` // llm: judged by the client; v2r: by ngv2r's rules
	Request struct {
		Schema    string `json:"schema"`
		MaxTokens int    `json:"max_tokens"`
	} `json:"request"`
	Seed  json.RawMessage `json:"seed"`
	Reply json.RawMessage `json:"reply"` // the server's whole reply body
	Want  string          `json:"want"`  // in the error, and in the re-ask when Reask
	Reask bool            `json:"reask"`
}

func loadRealReplies(t *testing.T, stage string) []realReply {
	t.Helper()
	files, err := filepath.Glob("../../testdata/realreplies/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	var out []realReply
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var r realReply
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if r.Stage == stage {
			out = append(out, r)
		}
	}
	return out
}

// Each real reply the client itself must refuse (no JSON but prose, a
// refusal, a reply cut at max_tokens, reasoning and no answer) fails the
// call with a reason a user can act on, and when the model can fix it
// the re-ask tells it that reason.
func TestRealRepliesFailWithAReason(t *testing.T) {
	cases := loadRealReplies(t, "llm")
	if len(cases) < 4 {
		t.Fatalf("%d llm fixtures", len(cases))
	}
	for _, rr := range cases {
		t.Run(rr.Case, func(t *testing.T) {
			var mu sync.Mutex
			var asked []string // the last message of each request
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
					http.NotFound(w, r) // /props, asked once: not llama-server's here
					return
				}
				var req struct {
					Messages []struct{ Content any } `json:"messages"`
				}
				if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
					t.Errorf("request: %v", err)
					return
				}
				mu.Lock()
				asked = append(asked, fmt.Sprint(req.Messages[len(req.Messages)-1].Content))
				mu.Unlock()
				w.Header().Set("Content-Type", "application/json")
				w.Write(rr.Reply)
			}))
			defer srv.Close()
			cfg := Config{BaseURL: srv.URL, Backoff: time.Millisecond, RetryAfterCap: 200 * time.Millisecond, Timeout: 5 * time.Second}
			cfg.MaxReasks, cfg.MaxRetries = 1, 0
			cfg.Sampling.MaxTokens = rr.Request.MaxTokens
			c := testClient(t, cfg)
			_, err := c.Call(context.Background(), Request{Call: "c", Schema: rr.Request.Schema, Messages: []Message{User("x")}})
			if err == nil || !strings.Contains(err.Error(), rr.Want) {
				t.Fatalf("error %v, want %q", err, rr.Want)
			}
			// The tokens of replies refused are spent all the same (for a
			// reasoning model, its thinking: llama-server and OpenAI count
			// it in completion_tokens): usage and --budget count them.
			var body struct {
				Usage struct {
					CompletionTokens int64 `json:"completion_tokens"`
				} `json:"usage"`
			}
			json.Unmarshal(rr.Reply, &body)
			if u := c.Usage(); u.Total.TokensOut != int64(len(asked))*body.Usage.CompletionTokens || u.Total.TokensOut == 0 {
				t.Errorf("tokens out %d, want %d for %d replies", u.Total.TokensOut, int64(len(asked))*body.Usage.CompletionTokens, len(asked))
			}
			if !rr.Reask {
				if len(asked) != 1 {
					t.Fatalf("%d requests, want 1 (no re-ask)", len(asked))
				}
				return
			}
			if len(asked) != 2 || !strings.HasPrefix(asked[1], "Your reply was not valid: ") || !strings.Contains(asked[1], rr.Want) {
				t.Fatalf("re-ask %q, want the reason %q", asked, rr.Want)
			}
		})
	}
}

// A reply with empty content says why when the model said something
// elsewhere: OpenAI's refusal field, or thinking only in reasoning_content.
func TestUnansweredSaysWhy(t *testing.T) {
	for _, c := range []struct{ content, reasoning, refusal, finish, want string }{
		{"", "", "I'm sorry, I can't help with that.", "stop", `the model refused instead of answering ("I'm sorry, I can't help with that.")`},
		{"", "Let me think about the dialogue...", "", "stop", "empty reply: the model ended its reply while it was still thinking (34 characters in reasoning_content"},
		{"", "Let me think", "", "length", "the token limit (finish_reason length) ended the reply"},
	} {
		f := unanswered(c.content, c.reasoning, c.refusal, c.finish)
		if f == nil || !f.retry || !strings.Contains(f.reason, c.want) {
			t.Errorf("%+v: %+v", c, f)
		}
	}
	if f := unanswered(`{"a":1}`, "thoughts", "", "stop"); f != nil {
		t.Errorf("an answer with its reasoning apart: %+v", f)
	}
	if f := unanswered("", "", "", "stop"); f != nil {
		t.Errorf("an empty reply is accept's: %+v", f)
	}
}
