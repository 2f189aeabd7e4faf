package lex

import "testing"

// TestParseSpeaker: the forms of a speaker label, and lines that are none.
func TestParseSpeaker(t *testing.T) {
	cases := []struct {
		line string
		ok   bool
		want Speaker
	}{
		{"Mike: hi", true, Speaker{Full: "Mike", Name: "Mike", Rest: "hi"}},
		{"小王：你好", true, Speaker{Full: "小王", Name: "小王", Rest: "你好"}},
		{"Sarah (VP): (quietly) Hi", true,
			Speaker{Full: "Sarah (VP)", Name: "Sarah", Paren: "VP", HasParen: true, Rest: "(quietly) Hi"}},
		{"**Mike:** hi", true, Speaker{Full: "Mike", Name: "Mike", Rest: "hi", Deco: DecoMarkdown}},
		{"\"Ms. Chen:\" hi", true, Speaker{Full: "Ms. Chen", Name: "Ms. Chen", Rest: "hi", Deco: DecoQuotes}},
		{"1. Sarah: Hi.", true, Speaker{Full: "Sarah", Name: "Sarah", Rest: "Hi.", Lead: "1. "}},
		{"[Sarah]: hi", true, Speaker{Full: "Sarah", Name: "Sarah", Rest: "hi"}},
		{"[Sarah] hi", true, Speaker{Full: "Sarah", Name: "Sarah", Rest: "hi", Weak: WeakBracket}},
		{"Sarah — hi", true, Speaker{Full: "Sarah", Name: "Sarah", Rest: "hi", Weak: WeakDash}},
		{"Family member: hi", true, Speaker{Full: "Family member", Name: "Family member", Rest: "hi", Weak: WeakLoose}},
		{"At 10:30 we met.", false, Speaker{}},
		{"See https://example.com", false, Speaker{}},
		{"Well, I said: no.", false, Speaker{}},
	}
	for _, c := range cases {
		got, ok := ParseSpeaker(c.line)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("ParseSpeaker(%q) = %+v, %v; want %+v, %v", c.line, got, ok, c.want, c.ok)
		}
	}
}

// TestParseHeader: header lines and their numbers; words that only start
// like a header word are none.
func TestParseHeader(t *testing.T) {
	cases := []struct {
		line, rest string
		num        int
		ok         bool
	}{
		{"Dialogue:", "", 0, true},
		{"Dialogue 2: Sarah: hi", "Sarah: hi", 2, true},
		{"对话二：", "", 2, true},
		{"Here is the conversation:", "", 0, true},
		{"Dialogue is hard", "", 0, false},
		{"Scripture: a verse", "", 0, false},
	}
	for _, c := range cases {
		num, rest, ok := ParseHeader(c.line)
		if num != c.num || rest != c.rest || ok != c.ok {
			t.Errorf("ParseHeader(%q) = %d, %q, %v; want %d, %q, %v", c.line, num, rest, ok, c.num, c.rest, c.ok)
		}
	}
}
