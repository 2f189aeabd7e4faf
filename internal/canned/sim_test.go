package canned

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/internal/canned/wire"
	"github.com/ngkit/ngkit/pkg/lang"
)

// Every phrase of the fake roles is detected in its own language, so the
// simulator's and the writer's language checks pass on them.
func TestSimPhrasesLanguages(t *testing.T) {
	for code, p := range simPhrases {
		det, err := lang.For(code)
		if err != nil {
			t.Fatal(err)
		}
		// The opening is checked strictly (ngseed); the turns may be of
		// low confidence (ngsim refuses only a language it is sure of).
		for i, s := range []string{p.opening, p.follow, p.reply} {
			if r := det.Detect(s); r.Lang != code || i == 0 && r.Confidence < lang.MinConfidence {
				t.Errorf("%s: %q detected %s (%.2f)", code, s, r.Lang, r.Confidence)
			}
		}
	}
}

func simRequest(t *testing.T, model, schema string, msgs ...[2]string) *wire.ChatRequest {
	t.Helper()
	m := map[string]any{"model": model}
	var ms []map[string]string
	for _, x := range msgs {
		ms = append(ms, map[string]string{"role": x[0], "content": x[1]})
	}
	m["messages"] = ms
	if schema != "" {
		m["response_format"] = map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": schema, "schema": map[string]any{}}}
	}
	b, _ := json.Marshal(m)
	var req wire.ChatRequest
	if err := json.Unmarshal(b, &req); err != nil {
		t.Fatal(err)
	}
	return &req
}

// The scripted user reveals one constraint a turn (never the "never"
// ones) and then meets the goal; the assistant acknowledges what was
// revealed and breaks what its model name says.
func TestSimScript(t *testing.T) {
	m := &Model{}
	sys := "- [c1] (implicit) Elders first.\n- [c2] (never) Face.\n- [c3] (explicit) No beef.\n"
	for _, c := range []struct {
		turn, want string
	}{
		{"Turn 2 of at most 8. Language: Thai (th).", `"goal_met":false,"message":"ฟังดูดีครับ แต่ผมต้องคิดถึงสิ่งที่พ่อแม่คาดหวังด้วย ‹c1›","revealed":["c1"]`},
		{"Turn 3 of at most 8. Language: Thai (th).", `‹c3›","revealed":["c1","c3"]`},
		{"Turn 4 of at most 8. Language: Thai (th).", `"goal_met":true,"message":"ขอบคุณมากครับ`},
	} {
		got := m.Reply(simRequest(t, "sim", "sim_user", [2]string{"system", sys}, [2]string{"user", c.turn}))
		if !strings.Contains(got, c.want) {
			t.Errorf("%s: %s", c.turn, got)
		}
	}
	got := m.Reply(simRequest(t, "violate-c3", "", [2]string{"system", "You are a helpful assistant."},
		[2]string{"user", simPhrases["th"].opening}, [2]string{"assistant", "x"}, [2]string{"user", "ok ‹c1›"}))
	if !strings.HasPrefix(got, simPhrases["th"].reply) || !strings.Contains(got, "‹c1 ok›") || !strings.Contains(got, "‹c3 violated›") {
		t.Errorf("assistant: %s", got)
	}
}
