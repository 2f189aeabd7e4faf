package wire

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Handler is an OpenAI-compatible endpoint that answers every chat or
// text completion with Reply: POST .../chat/completions and
// .../v1/completions, and GET /props (llama-server's slots) when Slots is
// set; any other request is a 404.
type Handler struct {
	Reply func(*ChatRequest) string
	// Logprobs gives the first token's alternatives (nil: the reply's
	// first token alone).
	Logprobs Alternatives
	// Slots, when set, is served at GET /props as llama-server does, for
	// --concurrency auto.
	Slots int
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && r.URL.Path == "/props" && h.Slots > 0 {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"total_slots":%d,"default_generation_settings":{"n_ctx":0}}`, h.Slots)
		return
	}
	text := r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/v1/completions")
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") && !text {
		WriteError(w, http.StatusNotFound, "no route "+r.Method+" "+r.URL.Path, nil)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	var req ChatRequest
	if text {
		err = DecodeText(body, &req)
	} else {
		err = json.Unmarshal(body, &req)
	}
	if err != nil {
		WriteError(w, http.StatusBadRequest, "request is not JSON: "+err.Error(), nil)
		return
	}
	content := h.Reply(&req)
	prompt := len(body) / 4
	if req.Text {
		lp := "null"
		if req.Logprobs != nil {
			top, _ := Top(h.Logprobs, &req, content)
			lp = LegacyLogprobs(top)
		}
		WriteText(w, req.Model, content, "stop", prompt, lp)
		return
	}
	lp := ""
	if req.Logprobs != nil && *req.Logprobs {
		lp = `"logprobs":` + ChatLogprobs(Top(h.Logprobs, &req, content)) + ","
	}
	WriteCompletion(w, req.Model, content, "stop", prompt, 0, lp)
}
