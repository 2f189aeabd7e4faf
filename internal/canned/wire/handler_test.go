package wire_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/internal/canned/wire"
	"github.com/ngkit/ngkit/pkg/llm/llmtest"
)

// Handler answers as the test server does with the same reply function
// and no faults (the demo model's replies are the ones the tests know),
// but for the completion's id and time.
func TestHandlerAnswersAsTheTestServer(t *testing.T) {
	reply := func(r *wire.ChatRequest) string { return "Yes: " + r.SchemaName() + " " + r.LastUser() }
	alts := func(*wire.ChatRequest, string) []wire.TopLogprob {
		return []wire.TopLogprob{{Token: "Yes", Logprob: -0.1}, {Token: "No", Logprob: -2.3}}
	}
	h := &wire.Handler{Reply: reply, Logprobs: alts, Slots: 8}
	s := llmtest.NewHandler(llmtest.Options{Reply: reply, Logprobs: alts, Slots: 8, NoRecord: true})
	stamp := regexp.MustCompile(`"id":"[a-z]+-fake-\d+","object":"([a-z_.]+)","created":\d+`)
	for _, c := range []struct{ method, path, body string }{
		{"POST", "/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"안녕"}],"response_format":{"type":"json_schema","json_schema":{"name":"s","schema":{}}}}`},
		{"POST", "/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"<a>"}]}],"logprobs":true,"top_logprobs":2}`},
		{"POST", "/v1/completions", `{"model":"m","prompt":"Q","logprobs":3}`},
		{"POST", "/v1/completions", `{"model":"m","prompt":["Q"]}`},
		{"POST", "/v1/chat/completions", `{"model":`},
		{"GET", "/props", ""},
		{"GET", "/v1/models", ""},
	} {
		var got, want *httptest.ResponseRecorder
		for _, x := range []struct {
			h   http.Handler
			rec **httptest.ResponseRecorder
		}{{h, &got}, {s, &want}} {
			*x.rec = httptest.NewRecorder()
			x.h.ServeHTTP(*x.rec, httptest.NewRequest(c.method, c.path, strings.NewReader(c.body)))
		}
		g, _ := io.ReadAll(got.Result().Body)
		w, _ := io.ReadAll(want.Result().Body)
		gs, ws := stamp.ReplaceAllString(string(g), "$1"), stamp.ReplaceAllString(string(w), "$1")
		if got.Code != want.Code || gs != ws || got.Header().Get("Content-Type") != want.Header().Get("Content-Type") {
			t.Errorf("%s %s %s:\n%d %s\nwant\n%d %s", c.method, c.path, c.body, got.Code, gs, want.Code, ws)
		}
	}
}
