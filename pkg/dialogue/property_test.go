package dialogue

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// The property test: dialogues with known turns, rendered the ways people
// and models write them, must parse back to the same turns, with every
// line accounted for.

// speaker names as they come: single and titled names, multi-word
// lower-case roles, numbered names, Chinese and Korean names.
var genNames = []string{
	"Sarah", "Tom", "Mrs. Lee", "Dr. Patel", "Grandma Rose", "Customer #2", "Manager",
	"Family member", "Security guard", "Team member 2", "Team member 1", "C senior", "C junior", "security guard", "store clerk",
	"小美", "王老师", "高管1", "高管2", "远亲3", "李经理",
	"민수", "지은", "김 과장", "할머니", "팀장",
}

var genTexts = [][]string{
	{"I am so sorry about that.", "Thank you for coming today!", "Could you help me with this?", "No problem at all.",
		"Let me think about it.", "That sounds great, thanks.", "Why did you do that?", "We should talk later.",
		"It's fine, Tom & Jerry are here.", "Sure — I will call you tomorrow."},
	{"你好，好久不见。", "谢谢你的帮助！", "没关系，下次注意。", "我们明天见吧。", "这件事我来处理。", "真的吗？太好了！"},
	{"안녕하세요, 오랜만이에요.", "정말 감사합니다!", "괜찮아요, 다음에 조심하세요.", "내일 봐요.", "제가 처리할게요.", "정말요? 잘됐네요!"},
}

var genActions = [][]string{
	{"smiling", "quietly", "nodding", "sighs", "looking away", "laughs softly"},
	{"低头", "笑着", "小声", "叹气", "点头"},
	{"웃으며", "조용히", "고개를 끄덕이며", "한숨을 쉬며"},
}

type genTurn struct{ Speaker, Action, Text string }

// style is how one dialogue is written: every line alike, as in a file.
type style struct {
	colon    string // ": ", "：", " : "
	form     int    // how the name is written, see renderTurn
	dirPos   int    // 0 after the colon, 1 before it, 2 markdown, 3 after the text
	crlf     bool
	zwsp     bool // a zero-width space in the names
	bom      int  // a BOM at the start of this line (0: none)
	entities bool // HTML entities for ' & and a space
	header   string
	end      string // "[END]", "---", ""
	narrate  bool   // narration lines between turns
	wide     bool   // full-width brackets around directions
	blanks   bool   // a blank line between turns
	alone    bool   // the name alone on its line, the text on the next
	trailing bool   // spaces and tabs at line ends
}

const nForms = 14

func genDialogue(r *rand.Rand) ([]genTurn, style) {
	lang := r.IntN(3)
	nsp := 2 + r.IntN(3)
	perm := r.Perm(len(genNames))
	names := make([]string, nsp)
	for i := range names {
		names[i] = genNames[perm[i]]
	}
	acts := append([]string(nil), genActions[lang]...)
	r.Shuffle(len(acts), func(i, j int) { acts[i], acts[j] = acts[j], acts[i] })
	n := 2 + r.IntN(7)
	turns := make([]genTurn, n)
	prev := -1
	for i := range turns {
		s := r.IntN(nsp)
		if s == prev {
			s = (s + 1) % nsp
		}
		prev = s
		t := genTurn{Speaker: names[s], Text: genTexts[lang][r.IntN(len(genTexts[lang]))]}
		if len(acts) > 0 && r.IntN(3) == 0 {
			t.Action, acts = acts[0], acts[1:]
		}
		turns[i] = t
	}
	st := style{
		colon:    [...]string{": ", "：", " : ", ":"}[r.IntN(4)],
		form:     r.IntN(nForms),
		dirPos:   r.IntN(4),
		crlf:     r.IntN(4) == 0,
		zwsp:     r.IntN(5) == 0,
		entities: r.IntN(4) == 0,
		header:   [...]string{"", "", "", "Dialogue:", "Dialogues:", "A Dialogue:", "对话：", "대화:", "## Dialogue"}[r.IntN(9)],
		end:      [...]string{"", "", "[END]", "---", "[끝]"}[r.IntN(5)],
		narrate:  r.IntN(5) == 0,
		wide:     r.IntN(4) == 0,
		blanks:   r.IntN(5) == 0,
		alone:    r.IntN(8) == 0,
		trailing: r.IntN(6) == 0,
	}
	if st.alone && (st.form >= 10 && st.form <= 12 || st.dirPos == 1) {
		st.alone = false // a quoted line, a dash or a bracket without colon has its text on the line
	}
	if r.IntN(4) == 0 {
		st.bom = 1 + r.IntN(n)
	}
	return turns, st
}

func renderGen(turns []genTurn, st style) string {
	var lines []string
	if st.header != "" {
		lines = append(lines, st.header, "")
	}
	for i, t := range turns {
		name := t.Speaker
		if _, w := utf8.DecodeRuneInString(name); st.zwsp && len(name) > w {
			name = name[:w] + "\u200b" + name[w:]
		}
		text := t.Text
		if st.entities {
			text = strings.NewReplacer("&", "&amp;", "'", "&#39;", ", ", ",&nbsp;").Replace(text)
		}
		line := renderTurn(name, t.Action, text, st, i)
		if st.bom == i+1 {
			line = "\ufeff" + line
		}
		if st.trailing {
			line += " \t "
		}
		if st.blanks && i > 0 {
			lines = append(lines, "")
		}
		lines = append(lines, line)
		if st.narrate && i == 0 {
			lines = append(lines, "(A moment passes.)")
		}
	}
	if st.end != "" {
		lines = append(lines, st.end)
	}
	nl := "\n"
	if st.crlf {
		nl = "\r\n"
	}
	return strings.Join(lines, nl)
}

func renderTurn(name, act, text string, st style, i int) string {
	colon := st.colon
	dir := ""
	before := ""
	open, cls := "(", ")"
	if st.wide {
		open, cls = "（", "）"
	}
	if act != "" {
		switch st.dirPos {
		case 0:
			dir = open + act + cls + " "
		case 1:
			before = " " + open + act + cls
		case 2:
			dir = "*" + act + "* "
		case 3:
			text = text + " " + open + act + cls
		}
	}
	if before != "" && (st.form == 3 || st.form == 4 || st.form == 11 || st.form == 12) {
		// bracketed names and the colon-less forms put the direction after
		dir = "(" + act + ") "
		before = ""
	}
	body := dir + text
	if st.alone {
		colon = strings.TrimRight(colon, " ") + "\n"
	}
	switch st.form {
	case 0:
		return name + before + colon + body
	case 1:
		return "**" + name + before + ":** " + body
	case 2:
		return "**" + name + "**" + before + colon + body
	case 3:
		return "[" + name + "]" + colon + body
	case 4:
		return "【" + name + "】：" + body
	case 5:
		return fmt.Sprintf("%d. %s%s%s%s", i+1, name, before, colon, body)
	case 6:
		return fmt.Sprintf("%d) %s%s%s%s", i+1, name, before, colon, body)
	case 7:
		return "- " + name + before + colon + body
	case 8:
		return "* " + name + before + colon + body
	case 9:
		return "😀 " + name + before + colon + body
	case 10:
		return "\"" + name + before + colon + body + "\""
	case 11:
		return name + " — " + body
	case 13:
		return fmt.Sprintf("[00:%02d:%02d] %s%s%s%s", i/60, i%60, name, before, colon, body)
	default:
		return "[" + name + "] " + body
	}
}

// checkGenerated parses text and compares its turns, in order across the
// dialogues found, with want; every line must be accounted for.
func checkGenerated(text string, want []genTurn) string {
	tr := &trace{}
	res := parse(text, "", tr)
	var got []genTurn
	for _, d := range res.Dialogues {
		for _, t := range d.Turns {
			got = append(got, genTurn{t.Speaker, t.Action, t.Text})
		}
	}
	if len(res.Unplaced) > 0 {
		return fmt.Sprintf("unplaced %q", res.Unplaced)
	}
	if len(got) != len(want) {
		return fmt.Sprintf("%d turns, want %d:\ngot  %q\nwant %q", len(got), len(want), got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			return fmt.Sprintf("turn %d: got %q, want %q", i, got[i], want[i])
		}
	}
	if lost := checkAccounted(text, res, tr); lost != nil {
		return fmt.Sprintf("lines not accounted for: %q", lost)
	}
	return ""
}

func TestGeneratedDialogues(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 1))
	fails := 0
	for i := range 20000 {
		turns, st := genDialogue(r)
		text := renderGen(turns, st)
		if msg := checkGenerated(text, turns); msg != "" {
			fails++
			if fails <= 10 {
				t.Errorf("dialogue %d, style %+v:\n%s\n%s", i, st, text, msg)
			}
		}
	}
	if fails > 0 {
		t.Errorf("%d of 20000 generated dialogues parsed wrong", fails)
	}
}

// FuzzGeneratedDialogues: the property test with the fuzzer choosing the
// dialogues.
func FuzzGeneratedDialogues(f *testing.F) {
	f.Add(uint64(1), uint64(2))
	f.Add(uint64(13), uint64(99))
	f.Fuzz(func(t *testing.T, a, b uint64) {
		turns, st := genDialogue(rand.New(rand.NewPCG(a, b)))
		text := renderGen(turns, st)
		if msg := checkGenerated(text, turns); msg != "" {
			t.Fatalf("style %+v:\n%s\n%s", st, text, msg)
		}
	})
}
