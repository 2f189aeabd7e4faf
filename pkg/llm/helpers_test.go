package llm

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/ngkit/ngkit/pkg/lang"
	"github.com/ngkit/ngkit/pkg/llm/llmtest"
	"github.com/ngkit/ngkit/pkg/record"
)

// TestMain lets tests run this binary as the fake server in a child
// process, for benchmarks that measure only the client's CPU. (The tests
// of the client run as a program, koecho, are in cmd/internal/app.)
func TestMain(m *testing.M) {
	if os.Getenv("NGKIT_TEST_ROLE") == "fakellm" {
		os.Exit(llmtest.Main(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// koStage is the minimal LLM stage that runs the runtime end to end
// through the shared runner until the real stages exist: it asks for one
// Korean sentence about the record's scenario (schema echo), checks the
// reply's language, and writes it to situation with the call's gen.
type koStage struct{ c *Client }

func (koStage) Name() string { return "koecho" }

func (s koStage) Process(ctx context.Context, rec *record.Record) ([]*record.Record, error) {
	resp, err := s.c.Call(ctx, Request{
		ID: rec.ID, Call: "situation", PromptPack: "test-v1", Schema: "echo",
		Messages: []Message{
			System("Write one Korean sentence about the scenario the user gives."),
			User(rec.Scenario),
		},
		Check: koreanCheck,
	})
	if err != nil {
		return nil, err
	}
	var out struct{ Text, Lang string }
	if err := resp.Decode(&out); err != nil {
		return nil, err
	}
	rec.Situation = out.Text
	rec.Gen = append(rec.Gen, resp.Gen)
	return []*record.Record{rec}, nil
}

var koDetector = func() *lang.Detector {
	d, err := lang.New("ko", "en") // one Latin candidate: no lingua models
	if err != nil {
		panic(err)
	}
	return d
}()

func koreanCheck(r *Response) (any, error) {
	var out struct{ Text string }
	if err := r.Decode(&out); err != nil {
		return nil, err
	}
	if share, langs := koDetector.Check([]string{out.Text}, "ko"); share < 0.5 {
		return nil, fmt.Errorf("reply is in %v, not Korean", langs)
	}
	return out.Text, nil
}

// koReply is llmtest.KoreanReply, the fake model of these tests.
var koReply = llmtest.KoreanReply

func newFake(t *testing.T) *llmtest.Server {
	srv := llmtest.New(llmtest.Options{})
	t.Cleanup(srv.Close)
	return srv
}
