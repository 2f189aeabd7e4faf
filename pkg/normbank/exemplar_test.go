package normbank

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/pkg/dialogue"
	"github.com/ngkit/ngkit/pkg/lang"
	"github.com/ngkit/ngkit/pkg/recio"
	"github.com/ngkit/ngkit/pkg/record"
)

// Every built-in exemplar passes the audit it was chosen by, and its
// provenance is consistent: the id is ngcat's id of the release record
// named by Source, its norm is a built-in norm.
func TestBuiltinExemplarsPassAudit(t *testing.T) {
	all := BuiltinExemplars()
	norms := map[string]bool{}
	for _, n := range BuiltinNorms() {
		norms[n.ID] = true
	}
	src := regexp.MustCompile(`^([a-z]+)_([a-z0-9]+)\.json#(\d+)$`)
	ids := map[string]bool{}
	perGroup := map[string]map[string]bool{} // culture/category/type -> norm ids
	for i := range all {
		e := &all[i]
		c, err := BuiltinProfile(e.Culture)
		if err != nil {
			t.Fatal(err)
		}
		if probs := AuditExemplar(e, c, lang.Default()); len(probs) > 0 {
			t.Errorf("%s (%s): %s", e.ID, e.Source, strings.Join(probs, "; "))
		}
		if len(e.Turns) == 0 || e.Lang != c.Lang {
			t.Errorf("%s: %d turns, lang %q", e.ID, len(e.Turns), e.Lang)
		}
		// The dialogue reads back from its text without defects.
		res := dialogue.Parse(dialogue.Render(dialogue.Dialogue{Turns: e.Turns}))
		if len(res.Defects) > 0 || len(res.Unplaced) > 0 || len(res.Dialogues) != 1 {
			t.Errorf("%s: dialogue text: %v %v", e.ID, res.Defects, res.Unplaced)
		}
		m := src.FindStringSubmatch(e.Source)
		if m == nil || m[1] != e.Culture || m[2] != e.DialogueType {
			t.Errorf("%s: source %q", e.ID, e.Source)
		} else if e.ID != record.NewID("normgenesis", m[1], m[2], m[3]) {
			t.Errorf("%s: not the id ngcat gives %s", e.ID, e.Source)
		}
		if ids[e.ID] {
			t.Errorf("id %s twice", e.ID)
		}
		ids[e.ID] = true
		if !norms[e.NormID] || e.NormID != record.NormID(e.Culture, e.Category, e.Norm) {
			t.Errorf("%s: norm %s is not a built-in norm", e.ID, e.NormID)
		}
		g := e.Culture + "/" + e.Category + "/" + e.DialogueType
		if perGroup[g] == nil {
			perGroup[g] = map[string]bool{}
		}
		if perGroup[g][e.NormID] {
			t.Errorf("%s: two exemplars of norm %s", g, e.NormID)
		}
		perGroup[g][e.NormID] = true
	}
	// 3 per culture, category and type; the release has no Korean V2R.
	for _, culture := range NormCultures() {
		for _, cat := range record.Categories {
			for _, typ := range record.DialogueTypes {
				want := 3
				if culture == "korean" && typ == record.TypeV2R {
					want = 0
				}
				if got := len(perGroup[culture+"/"+cat+"/"+typ]); got != want {
					t.Errorf("%s/%s/%s: %d exemplars, want %d", culture, cat, typ, got, want)
				}
			}
		}
	}
	if len(all) != 288 {
		t.Errorf("%d exemplars, want 288", len(all))
	}
}

func TestExemplarsFilter(t *testing.T) {
	ko := Exemplars("korean", "apology", "adherence")
	if len(ko) != 3 {
		t.Fatalf("korean apology adherence: %d", len(ko))
	}
	for _, e := range ko {
		if e.Culture != "korean" || e.Category != "apology" || e.DialogueType != "adherence" {
			t.Errorf("%+v", e)
		}
	}
	// No Korean V2R exemplars: every Korean apology exemplar instead.
	if got := Exemplars("Korean", "Apology", "v2r"); len(got) != 6 {
		t.Errorf("korean v2r fallback: %d", len(got))
	}
	if got := Exemplars("american", "thanks", ""); len(got) != 9 {
		t.Errorf("american thanks, all types: %d", len(got))
	}
	if got := Exemplars("klingon", "thanks", ""); len(got) != 0 {
		t.Errorf("unknown culture: %d", len(got))
	}
}

func TestLoadExemplars(t *testing.T) {
	// Built-in exemplars written as records read back the same.
	var b strings.Builder
	want := Exemplars("chinese", "thanks", "v2r")
	for _, e := range want {
		line, err := e.Record().AppendJSON(nil)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	p := writeFile(t, "ex.jsonl", b.String())
	got, err := LoadExemplars(p)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		w := want[i]
		w.Source = p + ":line " + strconv.Itoa(i+1)
		if !sameExemplar(got[i], w) {
			t.Errorf("exemplar %d: got %+v\nwant %+v", i, got[i], w)
		}
	}
	// The built-in file itself loads, with the release as source.
	all, err := LoadExemplars(filepath.Join("data", "exemplars.jsonl"))
	if err != nil || len(all) != len(BuiltinExemplars()) || all[0].Source != BuiltinExemplars()[0].Source {
		t.Errorf("data/exemplars.jsonl: %d exemplars, %v", len(all), err)
	}

	// No id: a content hash, the same on every run.
	line := `{"culture":"thai","category":"greeting","scenario":"A greeting.","situation":"Two people meet. They greet. They part."}`
	a, err1 := LoadExemplars(writeFile(t, "a.jsonl", line+"\n"))
	c, err2 := LoadExemplars(writeFile(t, "c.jsonl", line+"\n"))
	if err1 != nil || err2 != nil || a[0].ID == "" || a[0].ID != c[0].ID {
		t.Errorf("content ids: %v %v %v", a, err1, err2)
	}

	for _, c := range []struct{ body, want string }{
		{line + "\n" + `{"culture":"thai","category":"greeting","scenario":"x"}` + "\n", "bad.jsonl:line 2: situation missing"},
		{line + "\n" + line + "\n", "bad.jsonl:line 2: id " + a[0].ID + " is already used at "},
		{`{"culture":"thai","category":"greeting","scenario":"x","situation":"y","dialogue_type":"chat"}` + "\n", `bad.jsonl:line 1: dialogue_type "chat" is not one of adherence, violation, v2r`},
		{line + "\n{\n", "bad.jsonl:line 2: malformed JSON"},
	} {
		_, err := LoadExemplars(writeFile(t, "bad.jsonl", c.body))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("LoadExemplars(%q): %v, want %q", c.body, err, c.want)
		}
	}

	// Parquet: positions are rows.
	q := filepath.Join(t.TempDir(), "ex.parquet")
	f, err := os.Create(q)
	if err != nil {
		t.Fatal(err)
	}
	w, err := recio.NewParquetWriter[record.Record](f, recio.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rows := []record.Record{*want[0].Record(), {ID: "x", Culture: "thai", Category: "greeting", Scenario: "s"}}
	for i := range rows {
		if err := w.Write(&rows[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := LoadExemplars(q); err == nil || !strings.Contains(err.Error(), "ex.parquet: row 2: situation missing") {
		t.Errorf("Parquet bad row: %v", err)
	}
}

func sameExemplar(a, b Exemplar) bool {
	if a.ID != b.ID || a.Culture != b.Culture || a.Lang != b.Lang || a.Category != b.Category ||
		a.DialogueType != b.DialogueType || a.NormID != b.NormID || a.Norm != b.Norm || a.Scenario != b.Scenario ||
		a.Situation != b.Situation || a.Source != b.Source || len(a.Turns) != len(b.Turns) || len(a.Narration) != len(b.Narration) {
		return false
	}
	for i := range a.Turns {
		if a.Turns[i].Speaker != b.Turns[i].Speaker || a.Turns[i].Action != b.Turns[i].Action || a.Turns[i].Text != b.Turns[i].Text {
			return false
		}
	}
	return true
}

func TestAuditExemplarFindsProblems(t *testing.T) {
	ko, _ := BuiltinProfile("korean")
	good := Exemplars("korean", "thanks", "adherence")[0]
	if probs := AuditExemplar(&good, ko, nil); len(probs) > 0 {
		t.Fatalf("good exemplar: %v", probs)
	}
	cases := []struct {
		name string
		edit func(e *Exemplar)
		want string
	}{
		{"english situation", func(e *Exemplar) {
			e.Situation = "Minsu thanks his manager. He bows slightly. The manager smiles back at him."
		}, "situation is in en"},
		{"long situation", func(e *Exemplar) {
			e.Situation = "민수가 웃는다. 지현이 웃는다. 둘이 걷는다. 비가 온다. 우산을 편다. 집에 간다."
		}, "situation has 6 sentences, want 3-5"},
		{"end marker", func(e *Exemplar) { e.Scenario += " [끝]" }, "scenario: a format marker"},
		{"literal newline", func(e *Exemplar) { e.Situation = strings.Replace(e.Situation, " ", `\n`, 1) }, `situation: a literal \n`},
		{"marker in a turn", func(e *Exemplar) { e.Turns[2].Text += " [END]" }, "turn 2: a format marker"},
		{"english turn", func(e *Exemplar) { e.Turns[1].Text = "Thank you so much, I really appreciate it." }, "turn 1 is in en, want ko"},
		{"one speaker", func(e *Exemplar) {
			for i := range e.Turns {
				e.Turns[i].Speaker = "민수"
			}
		}, "1 speaker(s)"},
		{"too few turns", func(e *Exemplar) { e.Turns = e.Turns[:3] }, "dialogue has 3 turns, want 5-15"},
		{"empty turn", func(e *Exemplar) { e.Turns[0].Text, e.Turns[0].Action = "", "" }, "turn 0 is empty"},
		{"wrong culture", func(e *Exemplar) { e.Culture = "chinese" }, `culture is "chinese"`},
	}
	for _, c := range cases {
		e := good
		e.Turns = append([]record.Turn(nil), good.Turns...)
		c.edit(&e)
		probs := AuditExemplar(&e, ko, nil)
		if !strings.Contains(strings.Join(probs, "\n"), c.want) {
			t.Errorf("%s: problems %q, want %q", c.name, probs, c.want)
		}
	}
}

func TestSentences(t *testing.T) {
	cases := []struct {
		text string
		want int
	}{
		{"", 0},
		{"One sentence", 1},
		{"Mr. Evans greets Dr. Patel at 3.5 p.m. today. They talk!", 2},
		{"She says, \"Thank you so much.\" Then she leaves. Why? Nobody knows…", 4},
		{"He said \"I am sorry. Really.\" and left.", 1},
		{"J. K. Rowling wrote it. The U.S. team won.", 2},
		{"在公司会议室里，小李不小心碰到了王阿姨的椅子。王阿姨笑着说：“没关系。你别紧张！”两人都笑了。", 2},
		{"你好！！你好吗？？我很好……", 3},
		{"민수는 고개를 숙이며 \"죄송합니다. 제가 잘못했습니다.\"라고 말했다. 사장님은 웃었다.", 2},
		{"민수는 \"죄송합니다라고 말했다. 사장님은 웃었다.", 2}, // a quote that never closes
		{"...", 0},
		// Thai ends sentences with a space, not a stop; a space next to a
		// number or a Latin word is no end.
		{"นักศึกษาคนหนึ่งเดินสวนกับอาจารย์ที่ปรึกษา เธอจึงยกมือไหว้และทักทายอย่างสุภาพ", 2},
		{"ขนมชิ้นนี้ราคา 50 บาท ฉันจะส่ง email ให้คุณพรุ่งนี้", 2},
		{"สมชายมาสาย หัวหน้าถามว่าเกิดอะไรขึ้น เขาจึงขอโทษ", 3},
		{"Hôm nay trời đẹp quá. Chúng ta đi dạo nhé!", 2},
	}
	for _, c := range cases {
		if got := Sentences(c.text); got != c.want {
			t.Errorf("Sentences(%q) = %d, want %d", c.text, got, c.want)
		}
	}
}
