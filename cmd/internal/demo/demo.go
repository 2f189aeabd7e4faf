// Package demo is the built-in demo model: --model demo (or NG_MODEL=demo)
// with no base URL is answered in-process, offline, by the canned
// all-stage model (internal/canned, which the end-to-end tests' fake
// shares), whose replies are real text of the NormGenesis release bundled
// with ngkit (testdata/demo): each seed gets its own release record's
// dialogue, so a small run has no duplicate. It runs the whole pipeline
// (ngseed | ngrefine | ngv2r | nglabel, ngpact, ngsim) on a fresh
// machine; the data it makes is a demo, not a dataset: every record's gen
// names the model "demo", and ngstats and the Hugging Face card say so.
//
// The program framework (cmd/internal/app) does not import it: each
// program's main hands Endpoint to it (app.Env.Demo), so that the
// framework and its tests link no canned model.
package demo

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"sync"

	"github.com/ngkit/ngkit"
	"github.com/ngkit/ngkit/internal/canned"
	"github.com/ngkit/ngkit/internal/canned/wire"
	"github.com/ngkit/ngkit/pkg/record"
)

// Model is the model name that selects the demo.
const Model = record.DemoModel

// BaseURL is the demo's endpoint as shown in messages; nothing listens there.
const BaseURL = "http://demo.ngkit.invalid/v1"

// Endpoint is the demo as app.Env.Demo and llm.Config.Demo take it: its
// URL as shown, and a new client that answers it.
func Endpoint() (string, *http.Client) { return BaseURL, Client() }

// Client is an HTTP client whose every request the demo model answers
// in-process. The release text is loaded at the first request.
func Client() *http.Client { return &http.Client{Transport: &transport{}} }

type transport struct {
	once sync.Once
	h    http.Handler
	err  error
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	t.once.Do(func() {
		var m *canned.Model
		if m, t.err = load(); t.err == nil {
			// Slots: --concurrency auto asks /props, as of a llama-server.
			t.h = &wire.Handler{Reply: m.Reply, Logprobs: m.Logprobs, Slots: 8}
		}
	})
	if req.Body != nil {
		defer req.Body.Close()
	}
	if t.err != nil {
		return nil, fmt.Errorf("demo model: %w", t.err)
	}
	w := &response{header: http.Header{}}
	t.h.ServeHTTP(w, req)
	return w.result(req), nil
}

// response is the http.ResponseWriter of an in-process request: what the
// handler writes, kept for the client.
type response struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (w *response) Header() http.Header { return w.header }

func (w *response) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

func (w *response) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.body.Write(b)
}

// result is the response as the client reads it off a connection.
func (w *response) result(req *http.Request) *http.Response {
	w.WriteHeader(http.StatusOK)
	h := w.header.Clone()
	h.Set("Content-Length", strconv.Itoa(w.body.Len()))
	return &http.Response{
		Status:        fmt.Sprintf("%03d %s", w.status, http.StatusText(w.status)),
		StatusCode:    w.status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        h,
		Body:          io.NopCloser(bytes.NewReader(w.body.Bytes())),
		ContentLength: int64(w.body.Len()),
		Request:       req,
	}
}

// load writes the embedded release records to a temporary file (the
// canned models read files by name), loads them, and removes the file.
func load() (*canned.Model, error) {
	f, err := os.CreateTemp("", "ngkit-demo-*.parquet")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	_, err = f.Write(ngkit.DemoPool)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	m, err := canned.LoadPool(f.Name())
	if err != nil {
		return nil, err
	}
	m.Pact = pactBias
	return m, nil
}

// pactBias is how the demo answers PACT questions: a culture-following
// rate that differs by culture, age, framing and the respondent it is
// asked to answer as (a persona-prompted item), so that a demo report's
// PACT figures show what they measure (docs/pact.md). Made up, not a model's.
var pactBias = canned.PactBias{
	Base:    0.55,
	Culture: map[string]float64{"korean": 0.15, "indian": 0.10, "japanese": 0.05, "brazilian": -0.10},
	Persona: map[string]float64{"age=50+": 0.08, "respondent_country=Brazil": -0.25, "respondent_demo=older woman": 0.10},
	Norm:    0.10,
}
