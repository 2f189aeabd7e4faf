package v2r

import (
	"strings"
	"testing"

	"github.com/ngkit/ngkit/filters/v2r/v2rtest"
	"github.com/ngkit/ngkit/pkg/llm/llmtest"
	"github.com/ngkit/ngkit/pkg/record"
)

// The Replier of the shell tests (one fake model for every stage) answers
// seeds it was not scripted for, of every culture and type, with dialogues
// that pass the stage, a different one for each seed.
func TestReplierAnswersAnySeed(t *testing.T) {
	recs, err := release()
	if err != nil {
		t.Fatal(err)
	}
	rep, err := v2rtest.NewReplier(recs, checkDefault, cultures...)
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New(llmtest.Options{Reply: rep.Reply})
	defer srv.Close()
	var seeds []*record.Record
	for _, culture := range cultures {
		for _, typ := range record.DialogueTypes {
			for i, p := range releasePairs(t, culture, typ)[:2] {
				s := *p.seed
				s.ID = record.NewID(s.ID, "unscripted")
				s.Scenario = strings.Repeat("A new scenario. ", i+1) + s.Scenario
				seeds = append(seeds, &s)
			}
		}
	}
	res := runStage(t, testConfig(srv), Options{}, seeds)
	if len(res.errs) > 0 || len(res.out) != len(seeds) {
		t.Fatalf("%d of %d out, errors: %+v", len(res.out), len(seeds), res.errs)
	}
	seen := map[string]string{}
	for _, r := range res.out {
		var texts []string
		for _, tu := range r.Turns {
			texts = append(texts, tu.Text)
		}
		d := strings.Join(texts, "\n")
		if other, dup := seen[d]; dup {
			t.Errorf("%s and %s got the same dialogue", other, r.ParentID)
		}
		seen[d] = r.ParentID
	}
	// Asked again, a seed gets the same dialogue.
	again := runStage(t, testConfig(srv), Options{}, seeds[:1])
	if len(again.out) != 1 || !sameTurns(again.out[0].Turns, res.out[0].Turns) {
		t.Errorf("a seed asked again got another dialogue")
	}
}

func TestCultureOf(t *testing.T) {
	for _, c := range []struct{ system, user, want string }{
		{"Every conversation is set in Chinese culture and written entirely in Chinese.", "", "chinese"},
		{"모든 대화는 한국 문화를 배경으로 하며", "", "korean"},
		{"", "Scenario: 민수가 사과한다.", "korean"},
		{"", "Scenario: 小王向老师道歉。", "chinese"},
		{"", "Scenario: Tom apologises.", "american"},
	} {
		req := &llmtest.ChatRequest{Messages: []llmtest.Message{
			{Role: "system", Content: []byte(quote(c.system))}, {Role: "user", Content: []byte(quote(c.user))}}}
		if got := v2rtest.CultureOf(req); got != c.want {
			t.Errorf("%q %q: %s, want %s", c.system, c.user, got, c.want)
		}
	}
}

func quote(s string) string { return `"` + s + `"` }
