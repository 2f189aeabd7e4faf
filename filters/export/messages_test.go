package export

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/filters/imports"
	"github.com/ngkit/ngkit/pkg/record"
)

func dialogueRecord() *record.Record {
	return &record.Record{ID: "r1", Culture: "american", Norm: "Apologise when late.", Situation: "Tom is late for dinner.",
		Turns: []record.Turn{
			{Index: 0, Speaker: "Tom", Action: "rushing in", Text: "Sorry I'm late."},
			{Index: 1, Speaker: "Ann", Text: "It's fine."},
			{Index: 2, Speaker: "Tom", Text: "Traffic was bad."},
			{Index: 3, Speaker: "Ann", Text: "Sit down."},
		}}
}

func contents(rows []MessagesRow) [][]string {
	var out [][]string
	for _, r := range rows {
		var ex []string
		for _, m := range r.Messages {
			ex = append(ex, m.Role+":"+m.Content)
		}
		out = append(out, ex)
	}
	return out
}

func TestMessages(t *testing.T) {
	rec := dialogueRecord()
	got := contents(Messages(MessagesOptions{}, nil)(rec))
	want := [][]string{{"user:(rushing in) Sorry I'm late.", "assistant:It's fine.", "user:Traffic was bad.", "assistant:Sit down."}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("per dialogue:\n got %q\nwant %q", got, want)
	}
	sys, err := ParseSystemTemplate("t", "Norm: {{.Norm}}\nSituation: {{.Situation}}\n")
	if err != nil {
		t.Fatal(err)
	}
	got = contents(Messages(MessagesOptions{PerTurn: true, Assistant: AssistantFirst, System: sys}, nil)(rec))
	s := "system:Norm: Apologise when late.\nSituation: Tom is late for dinner."
	want = [][]string{{s, "assistant:(rushing in) Sorry I'm late."},
		{s, "assistant:(rushing in) Sorry I'm late.", "user:It's fine.", "assistant:Traffic was bad."}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("per turn:\n got %q\nwant %q", got, want)
	}
	if rows := Messages(MessagesOptions{Assistant: "Ann"}, nil)(rec); len(rows) != 1 || rows[0].Messages[1].Role != "assistant" {
		t.Errorf("by name: %+v", rows)
	}
	if rows := Messages(MessagesOptions{Assistant: "Bob"}, nil)(rec); rows != nil {
		t.Errorf("an assistant who never speaks: %+v", rows)
	}
	if rows := Messages(MessagesOptions{}, nil)(&record.Record{ID: "x"}); rows != nil {
		t.Errorf("no turns: %+v", rows)
	}
	if _, err := ParseSystemTemplate("t", "{{.Nrom}}"); err == nil || !strings.Contains(err.Error(), "Nrom") {
		t.Errorf("misspelt field: %v", err)
	}
}

// TestMessagesNarration: narration lines are user messages where they
// stand among the turns: before the first, between two, after the last;
// a record without positions (written before they were kept) has them
// after the last turn.
func TestMessagesNarration(t *testing.T) {
	rec := dialogueRecord()
	rec.Narration = []string{"A dinner party.", "Tom sits.", "They eat."}
	rec.NarrationAt = []int{0, 2, 4}
	got := contents(Messages(MessagesOptions{}, nil)(rec))
	want := [][]string{{"user:(A dinner party.)", "user:(rushing in) Sorry I'm late.", "assistant:It's fine.", "user:(Tom sits.)",
		"user:Traffic was bad.", "assistant:Sit down.", "user:(They eat.)"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("per dialogue:\n got %q\nwant %q", got, want)
	}
	got = contents(Messages(MessagesOptions{PerTurn: true}, nil)(rec))
	want = [][]string{{"user:(A dinner party.)", "user:(rushing in) Sorry I'm late.", "assistant:It's fine."},
		{"user:(A dinner party.)", "user:(rushing in) Sorry I'm late.", "assistant:It's fine.", "user:(Tom sits.)", "user:Traffic was bad.", "assistant:Sit down."}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("per turn:\n got %q\nwant %q", got, want)
	}
	rec.NarrationAt = nil
	got = contents(Messages(MessagesOptions{}, nil)(rec))
	want = [][]string{{"user:(rushing in) Sorry I'm late.", "assistant:It's fine.", "user:Traffic was bad.", "assistant:Sit down.",
		"user:(A dinner party.)", "user:(Tom sits.)", "user:(They eat.)"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("without positions:\n got %q\nwant %q", got, want)
	}
}

// TestMessagesRoundTrip: an OpenAI fine-tuning file, imported and
// exported, is the same file; our dialogues, exported and imported, keep
// their turns (speakers become the roles).
func TestMessagesRoundTrip(t *testing.T) {
	in := `{"messages":[{"role":"system","content":"Be kind."},{"role":"user","content":"Hi!"},{"role":"assistant","content":"Hello."},{"role":"user","content":"Bye."},{"role":"assistant","content":"See you."}]}
{"messages":[{"role":"assistant","content":"Welcome!"},{"role":"user","content":"Thanks."},{"role":"assistant","content":"Sit."}]}
`
	path := filepath.Join(t.TempDir(), "train.jsonl")
	if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := imports.NewMessages([]string{path}, imports.MessagesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	conv := Messages(MessagesOptions{}, nil)
	var out bytes.Buffer
	for {
		it, err := src.Next()
		if err != nil {
			break
		}
		rec, err := it.Decode(it.Raw)
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range conv(rec) {
			b, _ := json.Marshal(row)
			out.Write(append(b, '\n'))
		}
	}
	if out.String() != in {
		t.Errorf("round trip:\n got %s\nwant %s", out.String(), in)
	}

	rec := dialogueRecord()
	rec.Turns[0].Action = ""
	rows := Messages(MessagesOptions{}, nil)(rec)
	b, _ := json.Marshal(rows[0])
	path2 := filepath.Join(t.TempDir(), "ours.jsonl")
	os.WriteFile(path2, append(b, '\n'), 0o644)
	var back []*record.Record
	s, err := imports.NewMessages([]string{path2}, imports.MessagesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for {
		it, err := s.Next()
		if err != nil {
			break
		}
		r, err := it.Decode(it.Raw)
		if err != nil {
			t.Fatal(err)
		}
		back = append(back, r)
	}
	if len(back) != 1 || len(back[0].Turns) != 4 {
		t.Fatalf("%+v", back)
	}
	for i, tn := range back[0].Turns {
		role := map[string]string{"Tom": "user", "Ann": "assistant"}[rec.Turns[i].Speaker]
		if tn.Speaker != role || tn.Text != rec.Turns[i].Text {
			t.Errorf("turn %d: %+v, want %s %q", i, tn, role, rec.Turns[i].Text)
		}
	}
}
