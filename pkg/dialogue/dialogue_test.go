package dialogue

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/ngkit/ngkit/pkg/record"
)

// roundTrip checks Parse(Render(d)) == d and says how it differs.
func roundTrip(d Dialogue) string {
	text := Render(d)
	res := Parse(text)
	if len(d.Turns) == 0 && len(d.Narration) == 0 {
		if len(res.Dialogues) != 0 {
			return fmt.Sprintf("empty dialogue rendered to %q parsed to %+v", text, res.Dialogues)
		}
		return ""
	}
	if len(res.Dialogues) != 1 {
		return fmt.Sprintf("rendered %q parsed to %d dialogues: %+v", text, len(res.Dialogues), res.Dialogues)
	}
	got := res.Dialogues[0]
	if len(got.Turns) != len(d.Turns) {
		return fmt.Sprintf("rendered %q: %d turns, want %d\ngot  %+v\nwant %+v", text, len(got.Turns), len(d.Turns), got.Turns, d.Turns)
	}
	for i := range d.Turns {
		if !reflect.DeepEqual(got.Turns[i], d.Turns[i]) {
			return fmt.Sprintf("rendered %q: turn %d\ngot  %+v\nwant %+v", text, i, got.Turns[i], d.Turns[i])
		}
	}
	if !reflect.DeepEqual(got.Narration, d.Narration) {
		return fmt.Sprintf("rendered %q: narration\ngot  %q\nwant %q", text, got.Narration, d.Narration)
	}
	at := func(x Dialogue) []int {
		out := make([]int, len(x.Narration))
		for i := range out {
			out[i] = len(x.Turns)
			if i < len(x.NarrationAt) {
				out[i] = x.NarrationAt[i]
			}
		}
		return out
	}
	if !reflect.DeepEqual(at(got), at(d)) {
		return fmt.Sprintf("rendered %q: narration positions %v, want %v", text, at(got), at(d))
	}
	if len(res.Unplaced) != 0 {
		return fmt.Sprintf("rendered %q: unplaced %q", text, res.Unplaced)
	}
	return ""
}

// testCase is one named excerpt of testdata/dialogue/cases.json.
type testCase struct {
	Name      string     `json:"name"`
	Source    string     `json:"source"`
	Input     string     `json:"input"`
	Turns     []wantTurn `json:"turns"`
	Narration []string   `json:"narration,omitempty"`
	NarrAt    []int      `json:"narration_at,omitempty"`
	Unplaced  []string   `json:"unplaced,omitempty"`
	Defects   []string   `json:"defects"`
	Dialogues []wantDlg  `json:"dialogues,omitempty"` // when the text holds several
}

type wantTurn struct {
	Speaker string `json:"speaker"`
	Action  string `json:"action,omitempty"`
	Text    string `json:"text"`
}

type wantDlg struct {
	Turns     []wantTurn `json:"turns"`
	Narration []string   `json:"narration,omitempty"`
	NarrAt    []int      `json:"narration_at,omitempty"`
}

func loadCases(tb testing.TB) []testCase {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "dialogue", "cases.json"))
	if err != nil {
		tb.Fatal(err)
	}
	var cs []testCase
	if err := json.Unmarshal(b, &cs); err != nil {
		tb.Fatal(err)
	}
	return cs
}

// TestCases: each quirk of the NormGenesis release (and a few the release
// lacks), parsed to the turns, narration, unplaced lines and defects a human
// would write down; then rendered and parsed back.
func TestCases(t *testing.T) {
	for _, c := range loadCases(t) {
		t.Run(c.Name, func(t *testing.T) {
			res := Parse(c.Input)
			want := c.Dialogues
			if want == nil && (c.Turns != nil || c.Narration != nil) {
				want = []wantDlg{{Turns: c.Turns, Narration: c.Narration, NarrAt: c.NarrAt}}
			}
			if len(res.Dialogues) != len(want) {
				t.Fatalf("%s: %d dialogues, want %d: %+v", c.Source, len(res.Dialogues), len(want), res.Dialogues)
			}
			for k, d := range res.Dialogues {
				w := want[k]
				if len(d.Turns) != len(w.Turns) {
					t.Fatalf("%s: dialogue %d: %d turns, want %d: %+v", c.Source, k, len(d.Turns), len(w.Turns), d.Turns)
				}
				for i, tn := range d.Turns {
					got := wantTurn{tn.Speaker, tn.Action, tn.Text}
					if got != w.Turns[i] || tn.Index != i {
						t.Errorf("%s: dialogue %d turn %d:\ngot  %+v (index %d)\nwant %+v", c.Source, k, i, got, tn.Index, w.Turns[i])
					}
				}
				if !reflect.DeepEqual(nilIfEmpty(d.Narration), nilIfEmpty(w.Narration)) {
					t.Errorf("%s: dialogue %d narration %q, want %q", c.Source, k, d.Narration, w.Narration)
				}
				if !reflect.DeepEqual(intsOrNil(d.NarrationAt), intsOrNil(w.NarrAt)) {
					t.Errorf("%s: dialogue %d narration at %v, want %v", c.Source, k, d.NarrationAt, w.NarrAt)
				}
				if msg := roundTrip(d); msg != "" {
					t.Errorf("%s: dialogue %d: %s", c.Source, k, msg)
				}
			}
			if !reflect.DeepEqual(nilIfEmpty(res.Unplaced), nilIfEmpty(c.Unplaced)) {
				t.Errorf("%s: unplaced %q, want %q", c.Source, res.Unplaced, c.Unplaced)
			}
			if !reflect.DeepEqual(nilIfEmpty(res.Defects), nilIfEmpty(c.Defects)) {
				t.Errorf("%s: defects %q, want %q", c.Source, res.Defects, c.Defects)
			}
		})
	}
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

func intsOrNil(s []int) []int {
	if len(s) == 0 {
		return nil
	}
	return s
}

func TestRender(t *testing.T) {
	d := Dialogue{
		Turns: []record.Turn{
			{Index: 0, Speaker: "Mike", Action: "smiling", Text: "Hi"},
			{Index: 1, Speaker: "Sarah (VP)", Text: "Dear Mike,\nthanks."},
			{Index: 2, Speaker: "小王", Action: "低头; 小声", Text: "对不起。"},
		},
		Narration:   []string{"Later", "They leave (quietly)", "a ] b (c"},
		NarrationAt: []int{1, 3, 3},
	}
	want := "Mike: (smiling) Hi\n(Later)\nSarah (VP): Dear Mike,\nthanks.\n小王: (低头; 小声) 对不起。\n(They leave (quietly))\n【a ] b (c】\n"
	if got := Render(d); got != want {
		t.Errorf("Render:\ngot  %q\nwant %q", got, want)
	}
	// "Sarah (VP)" appears once with no direction after the colon: it reads
	// back as a direction, so only the other turns round-trip exactly
	one := d.Turns[2]
	one.Index = 0
	if msg := roundTrip(Dialogue{Turns: []record.Turn{one}, Narration: d.Narration, NarrationAt: []int{0, 1, 1}}); msg != "" {
		t.Error(msg)
	}
	if got := Render(Dialogue{}); got != "" {
		t.Errorf("Render(empty) = %q", got)
	}
}

func TestClean(t *testing.T) {
	for in, want := range map[string]string{
		"Thanks, see you! [END]":  "Thanks, see you!",
		"  [끝]  ":                 "",
		"——":                      "",
		"---":                     "",
		"Dialogue 2:":             "",
		"**Mike:** hi":            "Mike: hi",
		"It’s **alright**, Mike.": "It’s alright, Mike.",
		"*smiles*":                "smiles",
		"## Dialogue":             "",
		"是138****8282，谢谢":         "是138****8282，谢谢",
		"如果能先——":                  "如果能先——",
		"对话：":                     "",
		"【END】":                   "",
	} {
		if got := Clean(in); got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
	}
}
