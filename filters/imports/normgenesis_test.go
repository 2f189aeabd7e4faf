package imports

import (
	"os"
	"path/filepath"
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
