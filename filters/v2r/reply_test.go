package v2r

import (
	"slices"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/pkg/record"
)

type textCase struct {
	name, typ, in string
	speakers      []string
	texts         []string
	stages        []string
	narration     []string
	err           string
}

var textCases = []textCase{
	{name: "tags at line starts, directions, narration, continuation", typ: "v2r",
		in:        "[context] 민수: (웃으며) 안녕하세요, 부장님.\n[violation] 지현: 뭐야, 늦었네.\n그냥 빨리 와.\n(두 사람은 잠시 말이 없다)\n[recognition] 민수: 아, 제가 말을 함부로 했네요.\n[repair] 지현: (고개를 숙이며) 죄송합니다.\n[resolution] 민수: 괜찮아요.",
		speakers:  []string{"민수", "지현", "민수", "지현", "민수"},
		texts:     []string{"안녕하세요, 부장님.", "뭐야, 늦었네.\n그냥 빨리 와.", "아, 제가 말을 함부로 했네요.", "죄송합니다.", "괜찮아요."},
		stages:    []string{"context", "violation", "recognition", "repair", "resolution"},
		narration: []string{"두 사람은 잠시 말이 없다"}},
	{name: "full-width colons, 【】 tags, letter case, tag after the colon", typ: "v2r",
		in:       "【Violation】小王：你怎么才来？\n小李：[recognition] 对不起，我迟到了。\n[REPAIR] 小王（叹气）：下次早点。",
		speakers: []string{"小王", "小李", "小王"},
		texts:    []string{"你怎么才来？", "对不起，我迟到了。", "下次早点。"},
		stages:   []string{"violation", "recognition", "repair"}},
	{name: "markdown around tags and names", typ: "v2r",
		in:       "**[violation] Mike:** You again?\n**[recognition]** Anna: That was rude.\n[repair] **Mike:** Sorry, Anna.",
		speakers: []string{"Mike", "Anna", "Mike"},
		texts:    []string{"You again?", "That was rude.", "Sorry, Anna."},
		stages:   []string{"violation", "recognition", "repair"}},
	{name: "violation type: only violating lines tagged; [none]; end marker forgiven", typ: "violation",
		in:       "Mike: Hi.\n[violation] Anna: Whatever.\n[none] Mike: Oh.\n[END]",
		speakers: []string{"Mike", "Anna", "Mike"},
		texts:    []string{"Hi.", "Whatever.", "Oh."},
		stages:   []string{"", "violation", ""}},
	{name: "adherence keeps no stage", typ: "adherence",
		in:       "[context] Mike: Hi.\nAnna: Hello.",
		speakers: []string{"Mike", "Anna"}, texts: []string{"Hi.", "Hello."}, stages: []string{"", ""}},
	{name: "violation type drops other stages", typ: "violation",
		in:       "[context] Mike: Hi.\n[violation] Anna: Whatever.",
		speakers: []string{"Mike", "Anna"}, texts: []string{"Hi.", "Whatever."}, stages: []string{"", "violation"}},
	{name: "a tag on a narration line is ignored", typ: "v2r",
		in:       "[context] (A quiet office.)\n[violation] Mike: Move.\n[recognition] Anna: Excuse me?",
		speakers: []string{"Mike", "Anna"}, texts: []string{"Move.", "Excuse me?"}, stages: []string{"violation", "recognition"},
		narration: []string{"A quiet office."}},
	{name: "a bracketed word that is no stage is narration", typ: "adherence",
		in:       "Mike: Hi.\n[Silence]\nAnna: Hello.",
		speakers: []string{"Mike", "Anna"}, texts: []string{"Hi.", "Hello."}, stages: []string{"", ""},
		narration: []string{"Silence"}},
	{name: "a tagged line without a name inside a turn", typ: "v2r",
		in:  "[violation] Mike: Move.\n[recognition] Excuse me?\n[repair] Anna: Sorry.",
		err: "has a stage tag but no speaker"},
	{name: "a tag inside a turn", typ: "v2r",
		in:  "[violation] Mike: Move.\n⟦repair⟧ ok\n[repair] Anna: Sorry.",
		err: "stands inside the turn"},
	{name: "several dialogues", typ: "adherence",
		in:  "Dialogue 1:\nMike: Hi.\nAnna: Hello.\nMike: Bye.\n\nDialogue 2:\nTom: Yo.\nJen: Hey.\nTom: Later.",
		err: "dialogues: write one"},
	{name: "empty", typ: "adherence", in: "   ", err: "no \"Name: text\" turns"},
	{name: "prose", typ: "adherence", in: "Here is a dialogue about apologies.", err: "no \"Name: text\" turns"},
}

func TestParseText(t *testing.T) {
	for _, c := range textCases {
		t.Run(c.name, func(t *testing.T) {
			d, err := ParseText(c.in, c.typ)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var sp, tx, st []string
			for _, tu := range d.Turns {
				sp, tx, st = append(sp, tu.Speaker), append(tx, tu.Text), append(st, tu.Stage)
			}
			if !slices.Equal(sp, c.speakers) || !slices.Equal(tx, c.texts) || !slices.Equal(st, c.stages) || !slices.Equal(d.Narration, c.narration) {
				t.Errorf("got\n speakers %q\n texts %q\n stages %q\n narration %q", sp, tx, st, d.Narration)
			}
		})
	}
}

// The text-mode reply of every release dialogue reads back as the
// dialogue, stages included.
func TestParseTextReadsRenderedReleaseDialogues(t *testing.T) {
	for _, culture := range cultures {
		for _, typ := range record.DialogueTypes {
			for _, p := range releasePairs(t, culture, typ) {
				d, err := ParseText(textOf(p.d), typ)
				if err != nil {
					t.Fatalf("%s: %v\n%s", p.src, err, textOf(p.d))
				}
				if !sameTurns(d.Turns, p.d.Turns) || !slices.Equal(d.Narration, p.d.Narration) {
					t.Fatalf("%s:\n got %+v\nwant %+v", p.src, d.Turns, p.d.Turns)
				}
			}
		}
	}
}

func TestParseJSONStages(t *testing.T) {
	in := []byte(`{"turns":[{"speaker":" Mike ","text":" Hi. ","stage":"Context"},{"speaker":"Anna","action":"frowning","text":"No.","stage":"violation"},{"speaker":"Mike","text":"Oh.","stage":"none"}],"narration":["", " A room. "]}`)
	for typ, want := range map[string][]string{"v2r": {"context", "violation", "none"}, "violation": {"", "violation", ""}, "adherence": {"", "", ""}} {
		d, err := ParseJSON(in, typ)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, tu := range d.Turns {
			got = append(got, tu.Stage)
		}
		if !slices.Equal(got, want) || d.Turns[0].Speaker != "Mike" || d.Turns[0].Text != "Hi." || d.Turns[1].Action != "frowning" || !slices.Equal(d.Narration, []string{"A room."}) {
			t.Errorf("%s: %+v %q", typ, d.Turns, d.Narration)
		}
	}
}

func FuzzParseText(f *testing.F) {
	for _, c := range textCases {
		f.Add(c.in, c.typ)
	}
	f.Add("[violation] **Mike:** (sighs) [END]\n— —\n小王：【repair】 好", "v2r")
	f.Add("Mike: ⟦violation⟧ hi\nAnna: [context]", "violation")
	f.Fuzz(func(t *testing.T, in, typ string) {
		d, err := ParseText(in, typ)
		if err != nil {
			return
		}
		if len(d.Turns) == 0 {
			t.Fatal("no turns and no error")
		}
		for _, tu := range d.Turns {
			if tu.Speaker == "" {
				t.Fatalf("turn without a speaker: %+v", d.Turns)
			}
			switch {
			case tu.Stage == "":
			case typ == record.TypeV2R && slices.Contains(record.Stages, tu.Stage):
			case typ == record.TypeViolation && tu.Stage == "violation":
			default:
				t.Fatalf("stage %q in a %q dialogue", tu.Stage, typ)
			}
		}
	})
}
