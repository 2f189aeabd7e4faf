package dialogue

import (
	"fmt"
	"strings"
	"testing"
)

// TestSpeakerForms: each way of writing speakers met on real
// corpora, as "speaker|action|text" per turn, narration and unplaced lines.
func TestSpeakerForms(t *testing.T) {
	cases := []struct {
		name, in, hint string
		turns          []string
		narr, unpl     []string
	}{
		{"lower-case roles", "Family member: Are you ok?\nSecurity guard: Yes, sir.\nFamily member: Good.", "",
			[]string{"Family member||Are you ok?", "Security guard||Yes, sir.", "Family member||Good."}, nil, nil},
		{"numbered role", "Team member 2: Hi.\nTeam member 1: Hello.", "",
			[]string{"Team member 2||Hi.", "Team member 1||Hello."}, nil, nil},
		{"letter and role", "C senior: 你好。\nC junior: 您好。", "",
			[]string{"C senior||你好。", "C junior||您好。"}, nil, nil},
		{"CJK numbered", "高管1：你好。\n高管2：好的。", "", []string{"高管1||你好。", "高管2||好的。"}, nil, nil},
		{"one role among names", "Sarah: Excuse me.\nSecurity guard: (nods) Yes?\nSarah: Where is gate 3?", "",
			[]string{"Sarah||Excuse me.", "Security guard|nods|Yes?", "Sarah||Where is gate 3?"}, nil, nil},
		{"role named by the situation", "Store clerk: Welcome in.\n\nSarah: Thanks.", "A store clerk greets Sarah.",
			[]string{"Store clerk||Welcome in.", "Sarah||Thanks."}, nil, nil},
		{"one-off prose label is no speaker", "Sarah: I have news.\nThe thing is: I got the job.\nTom: Wow!", "",
			[]string{"Sarah||I have news.\nThe thing is: I got the job.", "Tom||Wow!"}, nil, nil},
		{"brackets with colon", "[Sarah]: Hi there.\n[Tom]: Hello.", "", []string{"Sarah||Hi there.", "Tom||Hello."}, nil, nil},
		{"brackets without colon", "[Sarah] Hi there.\n[Tom] Hello.\n[Sarah] Bye.", "",
			[]string{"Sarah||Hi there.", "Tom||Hello.", "Sarah||Bye."}, nil, nil},
		{"one bracket is a direction", "Sarah: Hi.\n[Smiling] Nice to see you.", "",
			[]string{"Sarah||Hi.\n[Smiling] Nice to see you."}, nil, nil},
		{"CJK brackets", "【小美】：你好。\n【小王】：你好呀。", "", []string{"小美||你好。", "小王||你好呀。"}, nil, nil},
		{"list numbers", "1. Sarah: Hi.\n2. Tom: Hello.", "", []string{"Sarah||Hi.", "Tom||Hello."}, nil, nil},
		{"timestamps", "[00:01:23] Sarah: Hi.\n[00:01:25] Tom: Hello.", "", []string{"Sarah||Hi.", "Tom||Hello."}, nil, nil},
		{"list numbers in brackets", "1) Sarah: Hi.\n2) Tom: Hello.", "", []string{"Sarah||Hi.", "Tom||Hello."}, nil, nil},
		{"bullets", "- Sarah: Hi.\n* **Tom:** Hello.\n• Sarah: Bye.", "", []string{"Sarah||Hi.", "Tom||Hello.", "Sarah||Bye."}, nil, nil},
		{"emoji before the name", "😀 Sarah: Hi.\n🙂 Tom: Hello.", "", []string{"Sarah||Hi.", "Tom||Hello."}, nil, nil},
		{"dash", "Sarah — Hi there.\nTom — Hello.\nSarah — Bye.", "", []string{"Sarah||Hi there.", "Tom||Hello.", "Sarah||Bye."}, nil, nil},
		{"a dash in speech", "Sarah: Hi.\nWell — I think so.", "", []string{"Sarah||Hi.\nWell — I think so."}, nil, nil},
		{"zero-width space", "Sa\u200brah: Hi.\nTom: Hello.", "", []string{"Sarah||Hi.", "Tom||Hello."}, nil, nil},
		{"BOM at line starts", "\ufeffSarah: Hi.\n\ufeffTom: Hello.\nSarah: Bye.", "", []string{"Sarah||Hi.", "Tom||Hello.", "Sarah||Bye."}, nil, nil},
		{"HTML entities", "Sarah: Tom &amp; Jerry&#39;s show&nbsp;is on.\nTom: Yes &lt;3", "",
			[]string{"Sarah||Tom & Jerry's show is on.", "Tom||Yes <3"}, nil, nil},
		{"quoted lines", "\"Sarah: Hi.\"\n“Tom: Hello.”", "", []string{"Sarah||Hi.", "Tom||Hello."}, nil, nil},
		{"plural header", "Dialogues:\n\nSarah: Hi.\nTom: Hello.", "", []string{"Sarah||Hi.", "Tom||Hello."}, nil, nil},
		{"header with article", "A Dialogue:\n\nSarah: Hi.\nTom: Hello.", "", []string{"Sarah||Hi.", "Tom||Hello."}, nil, nil},
		{"prose labels", "Note: This is a note.\nScene: A park.\nSarah: Hi.\nTom: Hello.", "",
			[]string{"Sarah||Hi.", "Tom||Hello."}, []string{"This is a note.", "A park."}, nil},
		{"Chinese labels", "规范：尊重长辈。\n情境：在家里。\n小美：你好。\n小王：你好呀。", "",
			[]string{"小美||你好。", "小王||你好呀。"}, []string{"尊重长辈。", "在家里。"}, nil},
		{"Korean labels", "규범: 어른을 공경한다.\n상황: 집에서.\n민수: 안녕하세요.\n지은: 반가워요.", "",
			[]string{"민수||안녕하세요.", "지은||반가워요."}, []string{"어른을 공경한다.", "집에서."}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := &trace{}
			res := parse(c.in, c.hint, tr)
			var got, narr []string
			for _, d := range res.Dialogues {
				for _, tn := range d.Turns {
					got = append(got, tn.Speaker+"|"+tn.Action+"|"+tn.Text)
				}
				narr = append(narr, d.Narration...)
			}
			if fmt.Sprint(got) != fmt.Sprint(c.turns) || fmt.Sprint(narr) != fmt.Sprint(c.narr) || fmt.Sprint(res.Unplaced) != fmt.Sprint(c.unpl) {
				t.Errorf("%q:\n got %q narration %q unplaced %q\nwant %q narration %q unplaced %q",
					c.in, got, narr, res.Unplaced, c.turns, c.narr, c.unpl)
			}
			if lost := checkAccounted(c.in, res, tr); lost != nil {
				t.Errorf("lines not accounted for: %q", lost)
			}
		})
	}
}

// TestRotatingScene: one scene of 26 turns among 22 relatives (远亲1 ...
// 远亲22), most of whom speak once, is one dialogue, not several.
func TestRotatingScene(t *testing.T) {
	var b strings.Builder
	want := 0
	for i := 1; i <= 22; i++ {
		fmt.Fprintf(&b, "远亲%d：恭喜恭喜，新年好！\n", i)
		want++
		if i%5 == 0 {
			b.WriteString("主人：谢谢大家！\n") // the host answers now and then
			want++
		}
	}
	res := Parse(b.String())
	if len(res.Dialogues) != 1 || want != 26 || len(res.Dialogues[0].Turns) != want {
		t.Fatalf("%d dialogues: %+v", len(res.Dialogues), res.Dialogues)
	}
	// two real dialogues, one after the other, are still cut
	two := Parse("A: hi\nB: hello\nA: bye\nB: see you\n\nC: yo\nD: hey\nC: ok\nD: fine")
	if len(two.Dialogues) != 2 {
		t.Errorf("two dialogues read as %d", len(two.Dialogues))
	}
}
