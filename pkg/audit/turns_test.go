package audit

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/ngkit/ngkit/pkg/record"
)

// realReply is a real model's dialogue of testdata/realreplies as a
// record of the seed's culture and language, as an importer would give it.
func realReply(t *testing.T, name string) *record.Record {
	t.Helper()
	b, err := os.ReadFile("../../testdata/realreplies/" + name + ".json")
	if err != nil {
		t.Fatal(err)
	}
	var rr struct {
		Seed  record.Record
		Reply struct {
			Choices []struct{ Message struct{ Content string } }
		}
	}
	if err := json.Unmarshal(b, &rr); err != nil {
		t.Fatal(err)
	}
	var d struct{ Turns []record.Turn }
	if err := json.Unmarshal([]byte(rr.Reply.Choices[0].Message.Content), &d); err != nil {
		t.Fatal(err)
	}
	return &record.Record{ID: name, Culture: rr.Seed.Culture, Lang: rr.Seed.Lang, Turns: d.Turns}
}

func turns(speakerText ...string) []record.Turn {
	var ts []record.Turn
	for i := 0; i+1 < len(speakerText); i += 2 {
		ts = append(ts, record.Turn{Speaker: speakerText[i], Text: speakerText[i+1]})
	}
	return ts
}

// The rules ngv2r refuses a reply by are ngstats' defects too: the real
// dialogues ngv2r refused are flagged when they come from elsewhere, and
// what the release does on purpose (formulas said twice, curt replies, a
// foreign guest) is not.
func TestTurnRuleDefects(t *testing.T) {
	cases := []struct {
		name string
		rec  *record.Record
		want string // "": none of the three
	}{
		{"SmolLM2 one-word turns", realReply(t, "v2r-one-word-turns"), DefectOneWordTurns},
		{"SmolLM2 repeated turns", realReply(t, "v2r-turns-repeated"), DefectRepeatedTurn},
		{"SmolLM2 latin names in Korean", realReply(t, "korean-seed-latin-names"), DefectNameScript},
		{"formulas repeated", &record.Record{Culture: "american", Lang: "en", Turns: turns(
			"Eric", "Will do. Take care!", "Maria", "Goodnight!", "Eric", "Goodnight!",
			"Maria", "Good morning, Emily.", "Eric", "Good morning, Emily.")}, ""},
		{"a sentence repeated", &record.Record{Culture: "american", Lang: "en", Turns: turns(
			"Eric", "It's not always about bowing, but showing genuine remorse is appreciated.",
			"Maria", "I see what you mean.",
			"Eric", "It's not always about  bowing, but showing genuine remorse is appreciated.")}, DefectRepeatedTurn},
		{"Chinese loop repeated", &record.Record{Culture: "chinese", Lang: "zh", Turns: turns(
			"小王", "你可以看到，你可以看到，你可以看到", "小李", "好的。", "小王", "你可以看到，你可以看到，你可以看到")}, DefectRepeatedTurn},
		{"curt violation (release, 7 of 9 one word)", &record.Record{Culture: "chinese", Lang: "zh", Turns: turns(
			"小张", "你好。", "小李", "哎？小张，好久不见啊！你也来逛街啊？", "小张", "嗯。", "小李", "最近怎么样？",
			"小张", "还行吧。", "小李", "哦。", "小张", "挺好。", "小李", "那你忙，我就不打扰了。", "小张", "嗯。")}, ""},
		{"a foreign guest in a Chinese dialogue", &record.Record{Culture: "chinese", Lang: "zh", Turns: turns(
			"陈叔", "来，Michael，你一定要尝尝这个皮蛋瘦肉粥！", "Michael", "这是……什么？味道会很重吗？")}, ""},
		{"a one-letter name beside a Korean one (Qwen2.5-Coder-1.5B)", &record.Record{Culture: "korean", Lang: "ko", Turns: turns(
			"Y", "아빠, 오늘 정말 힘들었어.", "아버지", "영호야, 포기하지 않고 노력한 네가 자랑스러워.", "Y", "고마워, 아빠.")}, DefectNameScript},
		{"pinyin names in a Chinese dialogue", &record.Record{Culture: "chinese", Lang: "zh", Turns: turns(
			"Jun", "你今天怎么来得这么晚？", "Wei", "路上堵车了，不好意思。")}, DefectNameScript},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := Default().Copy(c.rec)
			var got []string
			if rec.Checks != nil {
				for _, d := range rec.Checks.Defects {
					if d == DefectRepeatedTurn || d == DefectOneWordTurns || d == DefectNameScript {
						got = append(got, d)
					}
				}
			}
			if c.want == "" && len(got) > 0 || c.want != "" && !slices.Contains(got, c.want) {
				t.Errorf("defects %v, want %q", got, c.want)
			}
		})
	}
}

// A culture of several languages names its people in any of their
// scripts: no name_script for a Singapore dialogue in Chinese.
func TestNameScriptSeveralLanguages(t *testing.T) {
	if _, wrong := NamesOutsideScript([]string{"Jun", "Wei"}, []string{"zh", "en", "ms", "ta"}); wrong != nil {
		t.Errorf("got %v", wrong)
	}
	if script, wrong := NamesOutsideScript([]string{"Jun", "Wei"}, []string{"zh"}); script == "" || len(wrong) != 2 {
		t.Errorf("got %q %v", script, wrong)
	}
}

// oneWord is the words-list rule it replaced, on texts that stress where
// a word ends: punctuation, spaces of every kind, scripts without spaces,
// invalid UTF-8.
func TestOneWordIsTheWordsRule(t *testing.T) {
	old := func(text string) bool {
		f := words(text)
		return len(f) <= 1 && utf8.RuneCountInString(strings.Join(f, "")) <= maxWordRunes || len(f) == 1 && !strings.ContainsFunc(text, unicode.IsSpace) && isLatinWord(f[0])
	}
	texts := []string{"", " ", "Okay.", "Okay", "  Okay!  ", "Deal!", "Thank you.", "12345", "Malike",
		"没关系。", "还行吧。", "我觉得没关系的吧", "응.", "네, 알겠습니다.", "...", "…", "Hi\u00a0there", "Hi\u3000there",
		"supercalifragilistic", "Ok\xff", "\xffOk", "a-b", "(nods)", "\"Yes\"", "Да.", "Ναι", "e.g.", "Wow!!!Really",
		"ありがとう", "ありがとうございます", "안녕하세요반갑습니다"}
	for _, s := range texts {
		if got, want := oneWord(s), old(s); got != want {
			t.Errorf("oneWord(%q) = %v, the words rule %v", s, got, want)
		}
	}
}

func FuzzOneWord(f *testing.F) {
	for _, s := range []string{"Okay.", "没关系。", "a b", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fw := words(s)
		w, n := firstWords(s)
		if min(len(fw), 2) != n || len(fw) > 0 && fw[0] != w {
			t.Fatalf("firstWords(%q) = %q, %d; words %q", s, w, n, fw)
		}
	})
}
