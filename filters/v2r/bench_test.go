package v2r

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/ngkit/ngkit/internal/testkit"
	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/llm/llmtest"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/record"
)

// directCaller answers without HTTP: the reply of each seed, checked by
// the request's Check as the runtime would. It leaves only the stage's
// own work to measure: prompt rendering, reading and validating the
// dialogue (with language detection), the output record.
type directCaller struct{ replies map[string]string }

func (d directCaller) Call(_ context.Context, req llm.Request) (*llm.Response, error) {
	content := d.replies[req.ID]
	resp := &llm.Response{Text: content}
	if req.Schema != "" {
		resp.JSON = json.RawMessage(content)
	}
	if err := req.RunCheck(resp); err != nil {
		return nil, err
	}
	resp.Gen = record.Gen{Stage: "ngv2r", Call: req.Call, PromptPack: req.PromptPack}
	return resp, nil
}

// seedsFor makes n seeds of a culture and type (copies of its release
// pairs) and their replies by seed id.
func seedsFor(b *testing.B, culture, typ string, n int, text bool) ([]*record.Record, map[string]string) {
	ps := releasePairs(b, culture, typ)
	ps = copies(ps, n/len(ps)+1)[:n]
	replies := map[string]string{}
	for _, p := range ps {
		if text {
			replies[p.seed.ID] = textOf(p.d)
		} else {
			replies[p.seed.ID] = jsonOf(p.d, typ)
		}
	}
	return seedsOf(ps), replies
}

// BenchmarkStage: dialogues per second of the stage's own work (no HTTP),
// through the shared runner on every core, per culture and type.
func BenchmarkStage(b *testing.B) {
	for _, culture := range cultures {
		for _, typ := range record.DialogueTypes {
			for _, text := range []bool{false, true} {
				name := culture + "/" + typ
				if text {
					name += "/text"
				}
				b.Run(name, func(b *testing.B) {
					seeds, replies := seedsFor(b, culture, typ, b.N, text)
					st, err := New(directCaller{replies}, Options{Rules: defaultRules, TextMode: text})
					if err != nil {
						b.Fatal(err)
					}
					b.ReportAllocs()
					b.ResetTimer()
					t0 := time.Now()
					res, err := pipeline.Run(context.Background(), pipeline.Config{Stage: st, Source: pipeline.SliceSource(seeds), Sink: &testkit.Sink{}, Workers: runtime.GOMAXPROCS(0)})
					if err != nil || res.Out != int64(b.N) {
						b.Fatalf("%+v %v", res, err)
					}
					b.ReportMetric(float64(b.N)/time.Since(t0).Seconds(), "dialogues/s")
				})
			}
		}
	}
}

// BenchmarkEndToEnd: dialogues per second through the LLM client and a
// zero-latency fake server in the same process (so its CPU is counted
// too): the overhead a run adds over the model's own time.
func BenchmarkEndToEnd(b *testing.B) {
	for _, culture := range cultures {
		b.Run(culture, func(b *testing.B) {
			seeds, replies := seedsFor(b, culture, record.TypeV2R, b.N, false)
			byScenario := map[string]string{}
			for _, s := range seeds {
				byScenario[s.Scenario] = replies[s.ID]
			}
			model := newFakeModel()
			for _, s := range seeds {
				model.script(s, replies[s.ID])
			}
			srv := llmtest.New(llmtest.Options{Reply: model.reply, NoRecord: true})
			defer srv.Close()
			cfg := testConfig(srv)
			cfg.Concurrency = 16
			b.ResetTimer()
			t0 := time.Now()
			res := runStage(b, cfg, Options{}, seeds)
			if len(res.out) != b.N {
				b.Fatalf("%d of %d: %+v", len(res.out), b.N, res.errs)
			}
			b.ReportMetric(float64(b.N)/time.Since(t0).Seconds(), "dialogues/s")
		})
	}
}

// BenchmarkCallsPerDialogue: requests the server saw per finished
// dialogue, per type, with 20% of the requests faulted (every fault kind);
// 1.00 would be a run without faults. The seeds are every culture's.
func BenchmarkCallsPerDialogue(b *testing.B) {
	for _, typ := range record.DialogueTypes {
		b.Run(typ, func(b *testing.B) {
			ps := allPairs(b, typ)
			n := b.N/len(ps) + 1
			b.ResetTimer()
			ps, res, srv := faultRun(b, typ, n, uint64(b.N), false)
			srv.Close()
			b.ReportMetric(float64(srv.Count())/float64(len(res.out)), "requests/dialogue")
			b.ReportMetric(float64(len(res.errs))/float64(len(ps)), "failed/seed")
			if testing.Verbose() {
				fmt.Printf("%s: %d seeds, %d dialogues, %d failed, %d requests, faults %v\n", typ, len(ps), len(res.out), len(res.errs), srv.Count(), res.client.Usage().Total.Faults)
			}
		})
	}
}
