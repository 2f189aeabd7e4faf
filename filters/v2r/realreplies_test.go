package v2r

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/pkg/llm/llmtest"
	"github.com/ngkit/ngkit/pkg/record"
)

// Real models' dialogues that ngv2r's rules must refuse
// (testdata/realreplies, stage "v2r": see its README): each seed fails
// with the rule's reason in the errors file, and the re-ask told the
// model that reason. None comes out as a record.
func TestRealRepliesAreRefusedWithTheReason(t *testing.T) {
	files, err := filepath.Glob("../../testdata/realreplies/*.json")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		var rr struct {
			Case  string
			Stage string
			Seed  *record.Record
			Reply struct {
				Choices []struct {
					Message struct{ Content string }
				}
			}
			Want string
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &rr); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if rr.Stage != "v2r" {
			continue
		}
		n++
		t.Run(rr.Case, func(t *testing.T) {
			srv := llmtest.New(llmtest.Options{Rules: []llmtest.Rule{{Content: rr.Reply.Choices[0].Message.Content}}})
			defer srv.Close()
			cfg := testConfig(srv)
			cfg.MaxReasks, cfg.MaxRetries = 1, 0
			res := runStage(t, cfg, Options{}, []*record.Record{rr.Seed})
			if len(res.out) != 0 || len(res.errs) != 1 {
				t.Fatalf("%d out, %d failed: want the seed failed", len(res.out), len(res.errs))
			}
			t.Log(res.errs[0].Error)
			if !strings.Contains(res.errs[0].Error, rr.Want) {
				t.Errorf("error %q, want %q", res.errs[0].Error, rr.Want)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests, want the reply and its re-ask", len(reqs))
			}
			msgs := reqs[1].Request.Messages
			if last := msgs[len(msgs)-1].Text(); !strings.HasPrefix(last, "Your reply was not valid: ") || !strings.Contains(last, rr.Want) {
				t.Errorf("re-ask %q, want the reason %q", last, rr.Want)
			}
		})
	}
	if n < 3 {
		t.Fatalf("%d v2r fixtures", n)
	}
}
