package extract

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestJSON(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"a": 1}`, `{"a":1}`},
		{"  {\"a\": [1, 2]}\n", `{"a":[1,2]}`},
		{"```json\n{\"a\": 1}\n```", `{"a":1}`},
		{"Sure! Here is the JSON:\n```json\n{\"text\": \"안녕\"}\n```\nAnything else?", `{"text":"안녕"}`},
		{"```\n{\"a\": 1}\n```", `{"a":1}`},
		{"The answer is {\"a\": \"x}y\", \"b\": [1]} as requested.", `{"a":"x}y","b":[1]}`},
		{"{\"a\": 1,}", `{"a":1}`},
		{"{\"a\": [1, 2,],\n}", `{"a":[1,2]}`},
		{"noise {not json} then {\"ok\": true}", `{"ok":true}`},
		{"```json\n{\"a\": 1}", `{"a":1}`},
		{`[{"a":1},{"b":2}]`, `[{"a":1},{"b":2}]`},
		{`{"s": "a,}"}`, `{"s":"a,}"}`},
	}
	for _, c := range cases {
		got, err := JSON(c.in)
		if err != nil || string(got) != c.want {
			t.Errorf("JSON(%q) = %s, %v; want %s", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "   ", "no json here", "{\"a\": }", "{\"a\": 1"} {
		if got, err := JSON(bad); err == nil {
			t.Errorf("JSON(%q) = %s, want an error", bad, got)
		}
	}
}

func TestStripReasoning(t *testing.T) {
	cases := []struct {
		in, want string
		leaked   bool
	}{
		{"Hello", "Hello", false},
		{"<think>plan it</think>\n\n{\"a\":1}", "{\"a\":1}", false},
		{"plan it</think>answer", "answer", false},
		{"<THINK>x</THINK> answer", "answer", false},
		{"<think>I should answer in Korean...", "", true},
		{"answer <think>oops</think> more", "", true},
		{"<think>only thinking</think>", "", true},
		{"<thinking>a</thinking><think>b", "", true},
	}
	for _, c := range cases {
		got, leaked := StripReasoning(c.in)
		if leaked != c.leaked || (!leaked && got != c.want) {
			t.Errorf("StripReasoning(%q) = %q, %v; want %q, %v", c.in, got, leaked, c.want, c.leaked)
		}
	}
}

// FuzzJSON: never panics; what it returns is valid JSON; a reply
// that is a JSON object comes back as itself, compacted.
func FuzzJSON(f *testing.F) {
	for _, s := range []string{`{"a":1}`, "```json\n{\"a\": [1,2,]}\n```", "text {\"x\": \"}\"} text", "[1,2", "{{{{", `"\"`, "<think>x</think>{}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, err := JSON(s)
		if err == nil && !json.Valid(out) {
			t.Fatalf("JSON(%q) = %q: not JSON", s, out)
		}
		trimmed := strings.TrimSpace(strings.TrimPrefix(s, "\ufeff"))
		if strings.HasPrefix(trimmed, "{") && json.Valid([]byte(trimmed)) {
			var want bytes.Buffer
			json.Compact(&want, []byte(trimmed))
			if err != nil || !bytes.Equal(out, want.Bytes()) {
				t.Fatalf("JSON(%q) = %q, %v; want %q", s, out, err, want.Bytes())
			}
		}
		StripReasoning(s)
	})
}
