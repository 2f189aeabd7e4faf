package record

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestJSONRoundTripKeepsExtra(t *testing.T) {
	in := Full()
	// As the JSONL writer does: no HTML escaping.
	b, err := marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if !strings.Contains(s, `"source":{"file":"x.json","n":[1,2]}`) || !strings.Contains(s, `"note":"<keep & this>"`) {
		t.Errorf("extra not written at top level, unescaped: %s", s)
	}
	if strings.Contains(s, `"extra"`) {
		t.Errorf("extra written as a field: %s", s)
	}
	var out Record
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, &out) {
		t.Errorf("round trip changed the record:\n in %+v\nout %+v", in, &out)
	}
}

func TestUnmarshalMergesExtraField(t *testing.T) {
	var r Record
	err := json.Unmarshal([]byte(`{"id":"a","foo":1,"extra":"{\"bar\":[true],\"foo\":2}"}`), &r)
	if err != nil {
		t.Fatal(err)
	}
	if string(r.Extra["foo"]) != "1" || string(r.Extra["bar"]) != "[true]" {
		t.Errorf("extra = %s", r.Extra)
	}
	if err := json.Unmarshal([]byte(`{"id":"a","extra":[1]}`), &r); err == nil {
		t.Error("extra that is not an object was accepted")
	}
}

// A key that differs from a record field only in case is a pass-through
// field: it goes to Extra and leaves the field alone, whichever comes first.
func TestUnmarshalKeysAreCaseSensitive(t *testing.T) {
	for _, in := range []string{
		`{"id":"a","culture":"korean","Culture":"x","ID":"b"}`,
		`{"Culture":"x","ID":"b","id":"a","culture":"korean"}`,
	} {
		var r Record
		if err := json.Unmarshal([]byte(in), &r); err != nil {
			t.Fatal(err)
		}
		if r.ID != "a" || r.Culture != "korean" || string(r.Extra["Culture"]) != `"x"` || string(r.Extra["ID"]) != `"b"` {
			t.Errorf("%s: id %q culture %q extra %s", in, r.ID, r.Culture, r.Extra)
		}
	}
	var r Record
	if err := json.Unmarshal([]byte(`{"Culture":"x"}`), &r); err != nil || r.Culture != "" || string(r.Extra["Culture"]) != `"x"` {
		t.Errorf("culture %q extra %s err %v", r.Culture, r.Extra, err)
	}
}

func TestUnmarshalErrors(t *testing.T) {
	for _, in := range []string{`null`, `[]`, `{"id":1}`, `{"turns":"x"}`, `{"turns":[{"index":"0"}]}`} {
		var r Record
		if err := json.Unmarshal([]byte(in), &r); err == nil {
			t.Errorf("%s: no error", in)
		}
	}
}

func TestColumnarExtra(t *testing.T) {
	r := Full()
	if err := r.EncodeExtra(); err != nil {
		t.Fatal(err)
	}
	if r.ExtraJSON != `{"note":"<keep & this>","source":{"file":"x.json","n":[1,2]}}` {
		t.Errorf("ExtraJSON = %s", r.ExtraJSON)
	}
	want := Full().Extra
	if err := r.DecodeExtra(); err != nil {
		t.Fatal(err)
	}
	for k, v := range want {
		var a, b any
		json.Unmarshal(v, &a)
		json.Unmarshal(r.Extra[k], &b)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("extra %s: %s != %s", k, r.Extra[k], v)
		}
	}
}

func TestIDsAreStable(t *testing.T) {
	if NewID("a", "bc") == NewID("ab", "c") {
		t.Error("parts are not separated")
	}
	if got := NewID("normgenesis", "korean", "v2r", "0"); got != NewID("normgenesis", "korean", "v2r", "0") || len(got) != 16 {
		t.Errorf("NewID = %q", got)
	}
	// Pinned: ids must not change between versions, or --resume breaks.
	if got := NewID("x"); got != "2d711642b726b044" {
		t.Errorf("NewID(x) = %s, changed", got)
	}
	if NormID("Korean", "apology", " 사과 ") != NormID("korean", "apology", "사과") {
		t.Error("NormID depends on case or space")
	}
}

func TestBucketSpreadsAndIsStable(t *testing.T) {
	counts := make([]int, 4)
	for i := 0; i < 4000; i++ {
		counts[Bucket(NewID(string(rune(i))), 4)]++
	}
	for k, c := range counts {
		if c < 800 || c > 1200 {
			t.Errorf("bucket %d has %d of 4000", k, c)
		}
	}
	if Bucket("abc", 1) != 0 {
		t.Error("one bucket")
	}
	if u := Unit("abc"); u < 0 || u >= 1 {
		t.Errorf("Unit = %v", u)
	}
}

func TestValidate(t *testing.T) {
	if err := Full().Validate(); err != nil {
		t.Errorf("full record: %v", err)
	}
	r := Full()
	r.ID = ""
	r.DialogueType = "chat"
	r.Turns[1].Index = 5
	r.Quality.Norm = 9
	r.Lang = "english language"
	err := r.Validate()
	for _, want := range []string{"id is empty", "dialogue_type", "turns[1].index", "quality.norm", "lang"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate: want %q in %v", want, err)
		}
	}
}

// TestNarrationPositions: narration_at places each line among the turns,
// a record without it (written before positions were kept) has its
// narration after the last turn, and Validate refuses positions that are
// out of range, out of order or not one per line.
func TestNarrationPositions(t *testing.T) {
	r := &Record{ID: "n", Turns: []Turn{{Index: 0}, {Index: 1}}, Narration: []string{"a", "b", "c"}, NarrationAt: []int{0, 1, 2}}
	for i, want := range []int{0, 1, 2} {
		if got := r.NarrationPos(i); got != want {
			t.Errorf("NarrationPos(%d) = %d, want %d", i, got, want)
		}
	}
	if err := r.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
	old := &Record{ID: "o", Turns: r.Turns, Narration: r.Narration}
	for i := range old.Narration {
		if got := old.NarrationPos(i); got != 2 {
			t.Errorf("old record: NarrationPos(%d) = %d, want 2 (after the last turn)", i, got)
		}
	}
	if err := old.Validate(); err != nil {
		t.Errorf("old record: Validate: %v", err)
	}
	for _, c := range []struct {
		at   []int
		want string
	}{
		{[]int{0, 1}, "narration_at has 2 positions for 3 narration lines"},
		{[]int{0, 3, 3}, "narration_at[1] is 3: want 0 to 2"},
		{[]int{1, 0, 2}, "narration_at[1] is 0: want 1 to 2"},
		{[]int{-1, 0, 0}, "narration_at[0] is -1: want 0 to 2"},
	} {
		bad := &Record{ID: "b", Turns: r.Turns, Narration: r.Narration, NarrationAt: c.at}
		if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("narration_at %v: Validate = %v, want %q", c.at, err, c.want)
		}
		for i := range bad.Narration {
			if p := bad.NarrationPos(i); p < 0 || p > 2 {
				t.Errorf("narration_at %v: NarrationPos(%d) = %d, outside the turns", c.at, i, p)
			}
		}
	}
}

func TestExplode(t *testing.T) {
	rows := Explode(Full())
	if len(rows) != 2 || rows[1].ID != "r1/1" || rows[0].Intent != "QUE" || rows[1].Turns != 2 || rows[0].Culture != "korean" {
		t.Errorf("Explode = %+v", rows)
	}
}
