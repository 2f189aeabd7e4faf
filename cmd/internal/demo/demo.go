// Package demo is the built-in demo model: --model demo (or NG_MODEL=demo)
// with no base URL is answered in-process, offline, by the all-stage fake
// of the end-to-end tests (internal/fakeng), whose replies are real text
// of the NormGenesis release sample bundled with ngkit. It runs the whole
// pipeline (ngseed | ngrefine | ngv2r | nglabel, ngpact, ngsim) on a
// fresh machine; the data it makes is a demo, not a dataset: every
// record's gen names the model "demo", and ngstats and the Hugging Face
// card say so.
package demo

import (
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"

	"github.com/ngkit/ngkit"
	"github.com/ngkit/ngkit/internal/fakeng"
	"github.com/ngkit/ngkit/pkg/llm/llmtest"
	"github.com/ngkit/ngkit/pkg/record"
)

// Model is the model name that selects the demo.
const Model = record.DemoModel

// BaseURL is the demo's endpoint as shown in messages; nothing listens there.
const BaseURL = "http://demo.ngkit.invalid/v1"

// Client is an HTTP client whose every request the demo model answers
// in-process. The release text is loaded at the first request.
func Client() *http.Client { return &http.Client{Transport: &transport{}} }

type transport struct {
	once sync.Once
	srv  *llmtest.Server
	err  error
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	t.once.Do(func() {
		var m *fakeng.Model
		if m, t.err = load(); t.err == nil {
			// Slots: --concurrency auto asks /props, as of a llama-server.
			t.srv = llmtest.NewHandler(llmtest.Options{Reply: m.Reply, Logprobs: m.Logprobs, NoRecord: true, Slots: 8})
		}
	})
	if t.err != nil {
		return nil, fmt.Errorf("demo model: %w", t.err)
	}
	rec := httptest.NewRecorder()
	t.srv.ServeHTTP(rec, req)
	resp := rec.Result()
	resp.Request = req
	return resp, nil
}

// load copies the embedded fixtures into a temporary directory (the
// fakes read files by name), loads them, and removes the copy.
func load() (*fakeng.Model, error) {
	dir, err := os.MkdirTemp("", "ngkit-demo-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	var release []string
	pool := ""
	err = fs.WalkDir(ngkit.DemoData, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := ngkit.DemoData.ReadFile(p)
		if err != nil {
			return err
		}
		out := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(out), 0o700); err != nil {
			return err
		}
		if err := os.WriteFile(out, b, 0o600); err != nil {
			return err
		}
		if filepath.Ext(p) == ".json" {
			release = append(release, out)
		} else {
			pool = out
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	m, err := fakeng.Load(pool, release)
	if err != nil {
		return nil, err
	}
	m.Pact = pactBias
	return m, nil
}

// pactBias is how the demo answers PACT questions: a culture-following
// rate that differs by culture, age and framing, so that a demo report's
// PACT figures show what they measure (docs/pact.md). Made up, not a model's.
var pactBias = fakeng.PactBias{
	Base:    0.55,
	Culture: map[string]float64{"korean": 0.15, "indian": 0.10, "japanese": 0.05, "brazilian": -0.10},
	Persona: map[string]float64{"age=50+": 0.08},
	Norm:    0.10,
}
