package imports

import (
	"strings"
	"testing"

	"github.com/ngkit/ngkit/pkg/record"
)

func TestMessagesSource(t *testing.T) {
	dir := t.TempDir()
	f := writeFile(t, dir, "chat.jsonl", `{"messages":[{"role":"system","content":"Be kind."},{"role":"user","content":"Hi!"},{"role":"assistant","content":[{"type":"text","text":"Hello."},{"type":"image_url","image_url":{"url":"x"}}]}],"source":"hub"}
{"conversations":[{"from":"human","value":"안녕하세요"},{"from":"gpt","value":"반가워요"}],"id":"c1"}
{"messages":[]}
`)
	recs, err := drain(NewMessages([]string{f}, MessagesOptions{Fields: Fields{Culture: "korean"}}))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 {
		t.Fatalf("%d records", len(recs))
	}
	r := recs[0]
	if len(r.Turns) != 2 || r.Turns[0].Speaker != "user" || r.Turns[1].Text != "Hello." || r.Turns[1].Index != 1 {
		t.Errorf("turns: %+v", r.Turns)
	}
	if s, _ := r.ExtraString("system"); s != "Be kind." || string(r.Extra["source"]) != `"hub"` || r.Culture != "korean" || r.Lang != "ko" {
		t.Errorf("extra %s, %+v", r.Extra, r)
	}
	if g := recs[1]; len(g.Turns) != 2 || g.Turns[0].Speaker != "user" || g.Turns[1].Speaker != "assistant" || g.Turns[1].Text != "반가워요" || string(g.Extra["id"]) != `"c1"` {
		t.Errorf("sharegpt: %+v %s", g.Turns, g.Extra)
	}
	if !has(recs[2].Checks.Defects, record.DefectEmptyDialogue) {
		t.Errorf("empty: %+v", recs[2].Checks)
	}
	for _, x := range recs {
		if err := x.Validate(); err != nil {
			t.Error(err)
		}
	}
	bad := writeFile(t, dir, "latin1.jsonl", "{\"messages\":[]}\n{\"messages\":[{\"role\":\"user\",\"content\":\"caf\xe9\"}]}\n")
	if _, err := drain(NewMessages([]string{bad}, MessagesOptions{})); err == nil || !strings.Contains(err.Error(), "latin1.jsonl:2: not UTF-8 text") {
		t.Errorf("latin-1: %v", err)
	}
	for _, c := range []struct{ body, want string }{
		{`{"turns":[]}`, `want an object with "messages"`},
		{`{"messages":[{"content":"x"}]}`, `messages[0]: want a "role" string`},
		{`{"messages":[{"role":"user","content":3}]}`, `messages[0].content: want a string or a list of parts, got a number`},
		{`{"messages":"x"}`, `messages: want a list of objects, got a string`},
	} {
		p := writeFile(t, dir, "bad.jsonl", "\n"+c.body+"\n")
		src, err := NewMessages([]string{p}, MessagesOptions{})
		if err != nil {
			t.Fatal(err)
		}
		it, err := src.Next()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := it.Decode(it.Raw); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "bad.jsonl:2: ") {
			t.Errorf("%s: %v, want %q", c.body, err, c.want)
		}
	}
}

// FuzzDecodeMessages: any object either fails with an error or gives a
// valid record whose turns are numbered 0..n-1, one per message that is
// not a system message.
func FuzzDecodeMessages(f *testing.F) {
	f.Add([]byte(`{"messages":[{"role":"system","content":"s"},{"role":"user","content":"hi"}]}`))
	f.Add([]byte(`{"conversations":[{"from":"human","value":"x"},{"from":"gpt","value":[{"type":"text","text":"y"}]}]}`))
	f.Add([]byte(`{"messages":[{"role":"user","content":null}],"id":3}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		rec, err := decodeMessages(raw, "f.jsonl", 0)
		if err != nil {
			return
		}
		for i, tn := range rec.Turns {
			if tn.Index != i || tn.Speaker == "" {
				t.Fatalf("turn %d: %+v", i, tn)
			}
		}
		if err := rec.Validate(); err != nil {
			t.Fatalf("%s: invalid record: %v", raw, err)
		}
	})
}
