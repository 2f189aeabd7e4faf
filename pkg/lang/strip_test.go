package lang

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestStripForDetection(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		// Speaker prefixes, ASCII and full-width colon, with honorifics.
		{"Emily: Oh, sorry.", "Oh, sorry."},
		{"Dr. Patel: (frowning, rubbing his foot) It’s alright…", "It’s alright…"},
		{"Mrs. Johnson: Okay.", "Okay."},
		{"王叔叔：没关系，小明。", "没关系，小明。"},
		{"사장님: 민수 씨, 여기 매출 수치가", "민수 씨, 여기 매출 수치가"},
		{"**Emily:** Hello there", "Hello there"},
		{"**Emily**: Hello there", "Hello there"},
		{"- Emily: Hello there", "Hello there"},
		{"Grandma Rose (on the phone): Hello?", "Hello?"},
		// Not speaker prefixes: prose before a colon, times.
		{"I have one thing to say, and it is this: no.", "I have one thing to say, and it is this: no."},
		{"Meet me at 10:30 tomorrow.", "Meet me at : tomorrow."},
		{"Really? Yes: really.", "Really? Yes: really."},
		// Stage directions, nested, full-width, several per line.
		{"(softly) Hi (smiles) there", "Hi there"},
		{"（低着头，小声）王叔叔，对不起", "王叔叔，对不起"},
		{"(laughs (nervously)) okay", "okay"},
		{"(Emily stays absorbed in her phone, not noticing Dr. Patel’s discomfort.)", ""},
		// Unbalanced brackets keep the speech.
		{"(softly I am sorry", "softly I am sorry"},
		{"I am sorry) really", "I am sorry really"},
		// Markers.
		{"Thank you. [END]", "Thank you."},
		{"고마워. [끝]", "고마워."},
		{"【旁白】大家好", "大家好"},
		{"<end> bye", "bye"},
		// Markdown.
		{"*whispers* I **really** mean it", "whispers I really mean it"},
		{"### Scene 2", "Scene"},
		// URLs, e-mail, digits.
		{"See https://example.com/a?b=1 now", "See now"},
		{"Go to www.example.org, please", "Go to please"},
		{"Mail me at bob@example.com tomorrow", "Mail me at bob tomorrow"},
		{"I paid 25,000 won", "I paid , won"},
		{"２０２４年", "年"},
		// Literal escapes between turns, as in the release.
		{`小明: 王老师，对不起。\n王老师: 没关系，小明。`, "王老师，对不起。 没关系，小明。"},
		{"A: one\nB: two\r\nC: three", "one two three"},
		// Whitespace is collapsed.
		{"  lots\t of   space  ", "lots of space"},
		{"", ""},
	} {
		if got := StripForDetection(c.in); got != c.want {
			t.Errorf("StripForDetection(%q)\n  got  %q\n  want %q", c.in, got, c.want)
		}
	}
}

func checkStripped(t *testing.T, in, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("StripForDetection(%q) = %q: invalid UTF-8", in, out)
	}
	if strings.TrimSpace(out) != out || strings.Contains(out, "  ") {
		t.Fatalf("StripForDetection(%q) = %q: whitespace not collapsed", in, out)
	}
	for _, r := range out {
		if unicode.IsDigit(r) || r == '(' || r == '（' || r == '[' || r == '*' || r == '\n' {
			t.Fatalf("StripForDetection(%q) = %q: kept %q", in, out, r)
		}
	}
	// Letters are never invented.
	if countLetters(out) > countLetters(in) {
		t.Fatalf("StripForDetection(%q) = %q: more letters than the input", in, out)
	}
	// Idempotent once a speaker label has been consumed: stripping again
	// removes at most a further "label:" the first pass exposed.
	if again := StripForDetection(out); len(again) > len(out) {
		t.Fatalf("StripForDetection not shrinking: %q -> %q", out, again)
	}
}

func countLetters(s string) int {
	n := 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			n++
		}
	}
	return n
}

func FuzzStripForDetection(f *testing.F) {
	for _, s := range []string{
		"Emily: (softly) Hi", "王叔叔：（低头）没关系。\\n小明: 好的", "[END]", "(((", ")))", "**A:** b",
		"https://x.y/z", "a@b", "\xff\xfe", "10:30", "（未闭合", "ア：はい", "\\", "\\n\\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkStripped(t, s, StripForDetection(s))
	})
}

func FuzzDetect(f *testing.F) {
	for _, s := range []string{
		"Emily: (softly) Can I talk to you?", "小明: 没关系。", "지후: 아, 그런 말 하지 마.",
		"はい、わかりました。", "OK", "", "Je ne sais pas.", "Я не знаю", "\xff", "I met 王小明 today",
		"ขอบคุณมากค่ะ", "நன்றி", "謝謝你們的幫忙", "Cảm ơn chị.", "Salamat po.", "Saya tak faham.", "Kalian mau ke mana?",
		"這是张伟", "ฉันจะส่ง email", "\u0e33\u0bcd", "ก\u0301",
	} {
		f.Add(s)
	}
	// Every language of the built-in culture profiles: the invariant is
	// that Detect never panics, answers one of the candidates or "", with
	// a confidence in [0, 1], and says nothing only for text without
	// letters of a script it counts.
	d := allAsia(f)
	valid := map[string]bool{"": true}
	for _, l := range d.Languages() {
		valid[l] = true
	}
	f.Fuzz(func(t *testing.T, s string) {
		r := d.Detect(s)
		if !valid[r.Lang] {
			t.Fatalf("Detect(%q).Lang = %q: not a candidate", s, r.Lang)
		}
		if !(r.Confidence >= 0 && r.Confidence <= 1) { // also rejects NaN
			t.Fatalf("Detect(%q).Confidence = %v", s, r.Confidence)
		}
		if r.Method > ByLingua {
			t.Fatalf("Detect(%q).Method = %v", s, r.Method)
		}
		if r.Lang == "" && r.Confidence == 0 && countLetters(StripForDetection(s)) > 0 && r.Method == ByScript {
			// Letters present but no verdict at all is allowed only for
			// scripts we do not count (e.g. Lm modifier letters).
			c := census(StripForDetection(s))
			if c.hangul+c.kana+c.han+c.latin+c.thai+c.tamil+c.other > 0 {
				t.Fatalf("Detect(%q) = %+v despite letters %+v", s, r, c)
			}
		}
	})
}

func TestClassifyFastPaths(t *testing.T) {
	for r := rune(0x80); r <= 0x10FFFF; r++ {
		if got, want := classify(r), classifySlow(r); got != want {
			t.Fatalf("classify(%U) = %d, tables say %d", r, got, want)
		}
	}
}
