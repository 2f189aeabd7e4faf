package llmtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/ngkit/ngkit/internal/canned/wire"
)

// Exchange is one request and its reply as the recording proxy saw them:
// a line of a recording (JSONL). Request and Response hold the bodies as
// JSON when they are JSON, else as a JSON string.
type Exchange struct {
	Method   string          `json:"method"`
	Path     string          `json:"path"`
	Request  json.RawMessage `json:"request,omitempty"`
	Status   int             `json:"status"`
	Type     string          `json:"content_type,omitempty"`
	Response json.RawMessage `json:"response"`
	// Seconds is how long the upstream took: the model's share of a run.
	Seconds float64 `json:"seconds"`
}

// Recorder is a proxy that forwards every request to a real server and
// appends each exchange to a recording, for Replayer to answer later.
type Recorder struct {
	upstream string // scheme://host[:port], no path
	client   *http.Client
	mu       sync.Mutex
	w        io.Writer
	n        int
}

// NewRecorder forwards to upstream (a base URL; a trailing /v1 is
// dropped, the request's own path is kept) and appends to w.
func NewRecorder(upstream string, w io.Writer) *Recorder {
	u := strings.TrimSuffix(strings.TrimSuffix(upstream, "/"), "/v1")
	// no client timeout: the programs' own --timeout bounds each call,
	// and their cancelling the request cancels the upstream one
	return &Recorder{upstream: u, client: &http.Client{}, w: w}
}

// Count is how many exchanges were recorded.
func (rec *Recorder) Count() int {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.n
}

func (rec *Recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		wire.WriteError(w, http.StatusBadRequest, "fakellm: reading the request: "+err.Error(), nil)
		return
	}
	req, err := http.NewRequestWithContext(r.Context(), r.Method, rec.upstream+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		wire.WriteError(w, http.StatusBadGateway, "fakellm: "+err.Error(), nil)
		return
	}
	for _, h := range []string{"Content-Type", "Authorization", "Accept"} {
		if v := r.Header.Get(h); v != "" {
			req.Header.Set(h, v)
		}
	}
	start := time.Now()
	resp, err := rec.client.Do(req)
	if err != nil {
		// not recorded: the client went away or the upstream is down
		wire.WriteError(w, http.StatusBadGateway, "fakellm: upstream: "+err.Error(), nil)
		return
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		wire.WriteError(w, http.StatusBadGateway, "fakellm: upstream: "+err.Error(), nil)
		return
	}
	ex := Exchange{Method: r.Method, Path: r.URL.Path, Status: resp.StatusCode,
		Type: resp.Header.Get("Content-Type"), Seconds: time.Since(start).Seconds()}
	ex.Request = asJSON(body)
	ex.Response = asJSON(out)
	line, _ := json.Marshal(ex)
	rec.mu.Lock()
	_, werr := rec.w.Write(append(line, '\n'))
	rec.n++
	rec.mu.Unlock()
	if werr != nil {
		wire.WriteError(w, http.StatusInternalServerError, "fakellm: writing the recording: "+werr.Error(), nil)
		return
	}
	if ex.Type != "" {
		w.Header().Set("Content-Type", ex.Type)
	}
	w.WriteHeader(resp.StatusCode)
	w.Write(out)
}

// asJSON is b when it is JSON (compacted), else b as a JSON string.
func asJSON(b []byte) json.RawMessage {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	if json.Valid(b) {
		var c bytes.Buffer
		if json.Compact(&c, b) == nil {
			return c.Bytes()
		}
	}
	s, _ := json.Marshal(string(b))
	return s
}

// Replayer answers each request with the reply recorded for a request of
// the same method, path and body (the body compared as canonical JSON:
// key order and spacing do not matter). Identical requests get their
// recorded replies in the order recorded, the last one again once they
// run out. A request with no recording is a 599 naming it.
type Replayer struct {
	mu      sync.Mutex
	byKey   map[string][]Exchange
	served  map[string]int
	misses  int
	replays int
}

// ReadRecording reads a recording (JSONL of Exchange); a bad line is an
// error naming the file and line.
func ReadRecording(path string) ([]Exchange, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var exs []Exchange
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for n := 1; sc.Scan(); n++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var ex Exchange
		if err := json.Unmarshal(sc.Bytes(), &ex); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, n, err)
		}
		if ex.Method == "" || ex.Path == "" || ex.Status == 0 {
			return nil, fmt.Errorf("%s:%d: an exchange needs method, path and status", path, n)
		}
		exs = append(exs, ex)
	}
	return exs, sc.Err()
}

// NewReplayer answers from the exchanges given.
func NewReplayer(exs []Exchange) *Replayer {
	p := &Replayer{byKey: map[string][]Exchange{}, served: map[string]int{}}
	for _, ex := range exs {
		k := replayKey(ex.Method, ex.Path, ex.Request)
		p.byKey[k] = append(p.byKey[k], ex)
	}
	return p
}

// Stats are how many requests were answered from the recording and how
// many had none.
func (p *Replayer) Stats() (replayed, missed int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.replays, p.misses
}

// The status of a request with no recording: a 5xx the client retries
// and then reports, unlike any status a real server sends.
const replayMissStatus = 599

func (p *Replayer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		wire.WriteError(w, http.StatusBadRequest, "fakellm: reading the request: "+err.Error(), nil)
		return
	}
	k := replayKey(r.Method, r.URL.Path, asJSON(body))
	p.mu.Lock()
	exs := p.byKey[k]
	i := p.served[k]
	p.served[k]++
	if len(exs) == 0 {
		p.misses++
	} else {
		p.replays++
	}
	p.mu.Unlock()
	if len(exs) == 0 {
		wire.WriteError(w, replayMissStatus, fmt.Sprintf("fakellm --replay: no recorded reply to %s %s with this body (%d bytes, starting %.120q)",
			r.Method, r.URL.Path, len(body), body), nil)
		return
	}
	ex := exs[min(i, len(exs)-1)]
	out := []byte(ex.Response)
	if !strings.Contains(ex.Type, "json") {
		var s string
		if json.Unmarshal(ex.Response, &s) == nil {
			out = []byte(s)
		}
	}
	if ex.Type != "" {
		w.Header().Set("Content-Type", ex.Type)
	}
	w.WriteHeader(ex.Status)
	w.Write(out)
}

// replayKey is method, path and the body as canonical JSON (a body that
// is not JSON is kept as it is).
func replayKey(method, path string, body json.RawMessage) string {
	return method + " " + path + "\n" + string(canonical(body))
}

func canonical(b json.RawMessage) []byte {
	if len(b) == 0 {
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return b
	}
	c, err := json.Marshal(v) // maps marshal with sorted keys
	if err != nil {
		return b
	}
	return c
}
