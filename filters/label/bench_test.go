package label

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ngkit/ngkit/filters/label/labeltest"
	"github.com/ngkit/ngkit/internal/testkit"
	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/llm/llmtest"
	"github.com/ngkit/ngkit/pkg/record"
)

// stubCaller answers like the fake model without HTTP, running the
// request's Check as the client would; the fake's answers are computed
// once per prompt, so that it measures nglabel's own work (prompt
// rendering, reply validation, language check, aggregation).
type stubCaller struct{ answers *sync.Map }

func newStub() stubCaller { return stubCaller{&sync.Map{}} }

func (s stubCaller) Call(_ context.Context, req llm.Request) (*llm.Response, error) {
	key := req.Messages[len(req.Messages)-1].Content + req.Call
	answer, ok := s.answers.Load(key)
	if !ok {
		cr := &llmtest.ChatRequest{}
		for _, m := range req.Messages {
			c, _ := json.Marshal(m.Content)
			cr.Messages = append(cr.Messages, llmtest.Message{Role: m.Role, Content: c})
		}
		if req.Sampling != nil {
			cr.Seed = req.Sampling.Seed
		}
		answer = labeltest.Answer(cr)
		s.answers.Store(key, answer)
	}
	resp := &llm.Response{JSON: json.RawMessage(answer.(string)), Gen: record.Gen{Stage: "nglabel", Call: req.Call, Model: "stub"}}
	if req.Check != nil {
		if err := req.RunCheck(resp); err != nil {
			return nil, err
		}
	}
	return resp, nil
}

// copies returns n deep copies of the sample's dialogues, round-robin.
func copies(b *testing.B, recs []*record.Record, n int) []*record.Record {
	out := make([]*record.Record, n)
	for i := range out {
		js, _ := recs[i%len(recs)].AppendJSON(nil)
		out[i] = &record.Record{}
		if err := out[i].UnmarshalJSON(js); err != nil {
			b.Fatal(err)
		}
	}
	return out
}

func benchStage(b *testing.B, c llm.Caller, tasks string, samples int) {
	recs := sample(b)
	t, err := ParseTasks(tasks)
	if err != nil {
		b.Fatal(err)
	}
	s := newStage(b, c, Options{Tasks: t, Samples: samples})
	in := copies(b, recs, b.N)
	var next atomic.Int64
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := s.Process(context.Background(), in[next.Add(1)-1]); err != nil {
				b.Error(err)
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

// nglabel's own work per dialogue, no HTTP.
func BenchmarkStageOverhead(b *testing.B) {
	b.Run("default", func(b *testing.B) { benchStage(b, newStub(), "default", 1) })
	b.Run("safety-3-samples", func(b *testing.B) { benchStage(b, newStub(), "norm,intent,emotion,stage,safety", 3) })
}

// Through the LLM client and the in-process fake server (zero latency):
// the client's and the fake server's work too.
func BenchmarkStageHTTP(b *testing.B) {
	srv := llmtest.New(llmtest.Options{Reply: labeltest.Answer, NoRecord: true})
	defer srv.Close()
	c := newClient(b, srv, 2)
	benchStage(b, c, "default", 1)
}

// Calls per finished dialogue with 20% of the requests faulted (every
// kind), one call per dialogue asked: the retries and re-asks it costs.
func BenchmarkStageFaults(b *testing.B) {
	srv := llmtest.New(llmtest.Options{Reply: labeltest.Answer, FaultRate: 0.2, Seed: 11, NoRecord: true,
		RetryAfter: time.Millisecond, SlowFor: time.Second})
	defer srv.Close()
	cfg := testkit.LLMConfig(srv.URL, "nglabel")
	cfg.Concurrency, cfg.RetryAfterCap, cfg.Timeout = 16, 10*time.Millisecond, 200*time.Millisecond
	c := testkit.Client(b, cfg)
	recs := sample(b)
	t, _ := ParseTasks("norm,intent,emotion,stage,safety")
	s := newStage(b, c, Options{Tasks: t})
	in := copies(b, recs, b.N)
	var next, failed atomic.Int64
	b.SetParallelism(8)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := s.Process(context.Background(), in[next.Add(1)-1]); err != nil {
				failed.Add(1)
			}
		}
	})
	done := int64(b.N) - failed.Load()
	b.ReportMetric(float64(srv.Count())/float64(max(done, 1)), "requests/record")
	b.ReportMetric(float64(failed.Load())/float64(b.N), "failed/record")
}
