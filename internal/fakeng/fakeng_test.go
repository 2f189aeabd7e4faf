package fakeng

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/pkg/llm/llmtest"
	"github.com/ngkit/ngkit/pkg/normbank"
)

// request is a chat request asking for the reply schema name.
func request(t *testing.T, schema, system, user string) *llmtest.ChatRequest {
	t.Helper()
	b, _ := json.Marshal(map[string]any{
		"messages":        []map[string]string{{"role": "system", "content": system}, {"role": "user", "content": user}},
		"response_format": map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": schema, "schema": map[string]any{"title": schema}}},
	})
	var req llmtest.ChatRequest
	if err := json.Unmarshal(b, &req); err != nil {
		t.Fatal(err)
	}
	return &req
}

// Each stage's request goes to that stage's fake (the shell test,
// scripts/e2e.sh, runs them all through the programs).
func TestReplyDispatch(t *testing.T) {
	m, err := New()
	if err != nil {
		t.Fatal(err)
	}
	norm := normbank.BuiltinNorms()[0].Text
	for _, c := range []struct{ schema, system, user, want string }{
		{"seed_scenarios", "", "Norm: " + norm, `"scenarios"`},
		{"refine_judge", "", "<seed>\nScenario: Tom apologises.\n</seed>", `"task_relevance":5`},
		{"v2r_dialogue_v2r", "모든 대화는 한국 문화를 배경으로 하며", "시나리오: 민수가 사과한다.", `"stage":"repair"`},
		{"label_turns", "", "Dialogue type: adherence\n[0] Tom: Hi.\n[1] Ann: Hello.\n" + `{"turns": [{"index": 0, "norm": "..."}]}`, `"norm":"adhered"`},
		{"something_else", "", "", "no fake reply"},
	} {
		got := m.Reply(request(t, c.schema, c.system, c.user))
		if !strings.Contains(got, c.want) {
			t.Errorf("%s: %.300s, want %s in it", c.schema, got, c.want)
		}
	}
}
