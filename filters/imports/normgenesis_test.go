package imports

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/pkg/record"
)

func TestNormGenesisSource(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "korean_v2r.json")
	body := "\ufeff[\n" +
		`{"scenario":"s","situation":"t","dialogue":"수진: 안녕하세요.\n상민: (웃으며) 네, 안녕하세요.\n[끝]","category":"greeting","norm":"n","rater":{"x":1}},` + "\n" +
		`{"scenario":"analysisWe need to produce JSON...assistantfinal{","situation":"","dialogue":"","parsing_failed":true,"error_msg":"Extra data","category":"greeting","norm":"n"}` +
		"\n]"
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := NewNormGenesis([]string{p}, NormGenesisOptions{})
	if err != nil {
		t.Fatal(err)
	}
	recs, err := ReadAll(src)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 {
		t.Fatalf("%d records", len(recs))
	}
	ok, bad := recs[0], recs[1]
	if ok.Culture != "korean" || ok.Lang != "ko" || ok.DialogueType != "v2r" || len(ok.Turns) != 2 ||
		ok.Turns[1].Action != "웃으며" || ok.Turns[1].Text != "네, 안녕하세요." || ok.ID == bad.ID || ok.NormID != bad.NormID {
		t.Errorf("ok record: %+v", ok)
	}
	if string(ok.Extra["rater"]) != `{"x":1}` || string(ok.Extra["source_index"]) != "0" {
		t.Errorf("extra: %s", ok.Extra)
	}
	if ok.Checks == nil || !has(ok.Checks.Defects, record.DefectEndMarker) {
		t.Errorf("end marker not noted: %+v", ok.Checks)
	}
	if bad.Checks == nil || !has(bad.Checks.Defects, record.DefectFailedGeneration) || !has(bad.Checks.Defects, record.DefectEmptyDialogue) ||
		!has(bad.Checks.Defects, record.DefectReasoning) || string(bad.Extra["error_msg"]) != `"Extra data"` {
		t.Errorf("failed record: %+v %+v", bad.Checks, bad.Extra)
	}
}

func TestReleaseKeys(t *testing.T) {
	c, ty, err := releaseKeys("/x/american_violation.json.gz", NormGenesisOptions{})
	if err != nil || c != "american" || ty != "violation" {
		t.Errorf("%s %s %v", c, ty, err)
	}
	c, ty, err = releaseKeys("-", NormGenesisOptions{Fields: Fields{Culture: "thai", Type: "v2r"}})
	if err != nil || c != "thai" || ty != "v2r" {
		t.Errorf("%s %s %v", c, ty, err)
	}
	for _, name := range []string{"-", "dialogues.json", "korean_chat.json"} {
		if _, _, err := releaseKeys(name, NormGenesisOptions{}); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
}

func has(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestNormGenesisNotUTF8(t *testing.T) {
	p := writeFile(t, t.TempDir(), "korean_v2r.json", "[\n{\"dialogue\": \"A: hi\"},\n{\"dialogue\":\n \"B: caf\xe9\"}]")
	src, err := NewNormGenesis([]string{p}, NormGenesisOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := drain(src); err == nil || !strings.Contains(err.Error(), "korean_v2r.json:4: not UTF-8 text") {
		t.Errorf("%v", err)
	}
}

// TestNarrationKeepsItsPlace: the release's first American V2R dialogue
// has a narration line after its second turn and a closing one after its
// last; the import keeps where each stands (narration_at), so that views
// and exports put them back there. Several dialogues in one text keep
// their narration after the turns of the dialogues before them, and
// --split-dialogues gives each record its own positions.
func TestNarrationKeepsItsPlace(t *testing.T) {
	src, err := NewNormGenesis([]string{"../../testdata/normgenesis/american_v2r.json"}, NormGenesisOptions{})
	if err != nil {
		t.Fatal(err)
	}
	recs, err := ReadAll(src)
	if err != nil {
		t.Fatal(err)
	}
	r := recs[0]
	at := map[string]int{}
	for i, l := range r.Narration {
		at[l] = r.NarrationPos(i)
	}
	if len(r.NarrationAt) != len(r.Narration) {
		t.Fatalf("narration_at %v for %d lines", r.NarrationAt, len(r.Narration))
	}
	closing := "Emily walks away, feeling much better, and Dr. Patel returns to his coffee, the tension eased."
	if got, ok := at[closing]; !ok || got != len(r.Turns) {
		t.Errorf("closing line at %d (present %v), want %d (after the last turn); narration %q at %v", got, ok, len(r.Turns), r.Narration, r.NarrationAt)
	}
	absorbed := "Emily stays absorbed in her phone, not noticing Dr. Patel’s discomfort. Several seconds pass."
	if got, ok := at[absorbed]; !ok || got != 2 || r.Turns[1].Speaker != "Dr. Patel" || r.Turns[2].Speaker != "Emily" {
		t.Errorf("middle line at %d (present %v), want 2; narration %q at %v", got, ok, r.Narration, r.NarrationAt)
	}
	if err := r.Validate(); err != nil {
		t.Error(err)
	}

	two := &record.Record{ID: "two"}
	setDialogue(two, "Dialogue 1:\n(They meet.)\nA: Hi.\nB: Hello.\n\nDialogue 2:\nC: Sorry.\n(C leaves.)\nD: Fine.\n\nDialogue 3:\nE: Bye.\n(The end.)")
	if !has(two.Checks.Defects, record.DefectMultiDialogue) || len(two.Turns) != 5 {
		t.Fatalf("two dialogues: %d turns, defects %v", len(two.Turns), two.Checks.Defects)
	}
	if want := []int{0, 3, 5}; !slices.Equal(two.NarrationAt, want) {
		t.Errorf("merged narration_at %v, want %v (narration %q)", two.NarrationAt, want, two.Narration)
	}
	two.Extra = map[string]json.RawMessage{}
	two.SetExtra("dialogue", "Dialogue 1:\n(They meet.)\nA: Hi.\nB: Hello.\n\nDialogue 2:\nC: Sorry.\n(C leaves.)\nD: Fine.\n\nDialogue 3:\nE: Bye.\n(The end.)")
	parts := splitDialogues(two)
	if len(parts) != 3 {
		t.Fatalf("split: %d records", len(parts))
	}
	for k, want := range [][]int{{0}, {1}, {1}} {
		if !slices.Equal(parts[k].NarrationAt, want) || len(parts[k].Narration) != 1 {
			t.Errorf("split part %d: narration %q at %v, want at %v", k, parts[k].Narration, parts[k].NarrationAt, want)
		}
		if err := parts[k].Validate(); err != nil {
			t.Errorf("split part %d: %v", k, err)
		}
	}
}
