package label

import (
	"strconv"
	"strings"
	"testing"
)

func TestParseTurns(t *testing.T) {
	spec := turnsSpec{turns: 3, tasks: []string{"norm", "intent", "safety"}, explainLang: "en", rotsLang: "ko"}
	ok := `{"turns":[
		{"index":0,"norm":"adhered","intent":"QUE","safety":"casual","explanation":"Asks politely."},
		{"index":1,"norm":"violated","intent":"CRT","safety":"needs_caution","rots":["남을 공개적으로 비난하는 것은 무례하다."],"explanation":"Criticises in public."},
		{"index":2,"norm":"adhered","intent":"APO","safety":"casual","explanation":"Apologises."}]}`
	got, err := parseTurns([]byte(ok), spec)
	if err != nil || len(got) != 3 || got[1].Intent != "CRT" || len(got[1].Rots) != 1 {
		t.Fatalf("%+v %v", got, err)
	}
	// Out of order is fine: entries are placed by index.
	shuffled := `{"turns":[
		{"index":2,"norm":"adhered","intent":"APO","safety":"casual","explanation":"Apologises."},
		{"index":0,"norm":"adhered","intent":"QUE","safety":"casual","explanation":"Asks."},
		{"index":1,"norm":"violated","intent":"CRT","safety":"needs_caution","rots":["  ","남을 비난하는 것은 무례하다."],"explanation":"Criticises."}]}`
	got, err = parseTurns([]byte(shuffled), spec)
	if err != nil || *got[2].Index != 2 || got[2].Intent != "APO" || len(got[1].Rots) != 1 {
		t.Fatalf("shuffled: %+v %v", got, err)
	}

	for _, c := range []struct{ name, reply, want string }{
		{"missing turn", `{"turns":[
			{"index":0,"norm":"adhered","intent":"QUE","safety":"casual","explanation":"x"},
			{"index":2,"norm":"adhered","intent":"APO","safety":"casual","explanation":"x"}]}`, "no entry for turn 1 (every turn from 0 to 2 needs one)"},
		{"extra turn", `{"turns":[
			{"index":0,"norm":"adhered","intent":"QUE","safety":"casual","explanation":"x"},
			{"index":1,"norm":"adhered","intent":"QUE","safety":"casual","explanation":"x"},
			{"index":2,"norm":"adhered","intent":"APO","safety":"casual","explanation":"x"},
			{"index":3,"norm":"adhered","intent":"APO","safety":"casual","explanation":"x"}]}`, "there is no turn 3 (the dialogue has turns 0 to 2)"},
		{"duplicate", `{"turns":[
			{"index":0,"norm":"adhered","intent":"QUE","safety":"casual","explanation":"x"},
			{"index":0,"norm":"adhered","intent":"QUE","safety":"casual","explanation":"x"},
			{"index":1,"norm":"adhered","intent":"QUE","safety":"casual","explanation":"x"},
			{"index":2,"norm":"adhered","intent":"APO","safety":"casual","explanation":"x"}]}`, "turn 0 has more than one entry"},
		{"no index", `{"turns":[{"norm":"adhered"}]}`, "an entry has no index"},
		{"unknown label", `{"turns":[
			{"index":0,"norm":"followed","intent":"QUE","safety":"casual","explanation":"x"},
			{"index":1,"norm":"adhered","intent":"ASK","safety":"casual","explanation":"x"},
			{"index":2,"norm":"adhered","intent":"APO","safety":"unsafe","explanation":"x"}]}`, `turn 0: norm "followed" is not one of adhered, violated, not_relevant; turn 1: intent "ASK" is not one of ACK`},
		{"missing label", `{"turns":[
			{"index":0,"intent":"QUE","safety":"casual","explanation":"x"},
			{"index":1,"norm":"adhered","intent":"QUE","safety":"casual","explanation":"x"},
			{"index":2,"norm":"adhered","intent":"APO","safety":"casual","explanation":""}]}`, "turn 0 has no norm label; turn 2 has no explanation"},
		{"no rots", `{"turns":[
			{"index":0,"norm":"adhered","intent":"QUE","safety":"casual","explanation":"x"},
			{"index":1,"norm":"violated","intent":"CRT","safety":"needs_intervention","rots":[""],"explanation":"x"},
			{"index":2,"norm":"adhered","intent":"APO","safety":"casual","explanation":"x"}]}`, "turn 1 is needs_intervention but has no rules-of-thumb (rots)"},
		{"rots language", `{"turns":[
			{"index":0,"norm":"adhered","intent":"QUE","safety":"casual","explanation":"Asks."},
			{"index":1,"norm":"violated","intent":"CRT","safety":"needs_caution","rots":["It's rude to criticise people in public."],"explanation":"Criticises."},
			{"index":2,"norm":"adhered","intent":"APO","safety":"casual","explanation":"Apologises."}]}`, "rules-of-thumb (rots) must be in Korean"},
		{"explanation language", `{"turns":[
			{"index":0,"norm":"adhered","intent":"QUE","safety":"casual","explanation":"정중하게 묻는다."},
			{"index":1,"norm":"violated","intent":"CRT","safety":"needs_caution","rots":["남을 비난하는 것은 무례하다."],"explanation":"공개적으로 비난한다."},
			{"index":2,"norm":"adhered","intent":"APO","safety":"casual","explanation":"사과한다."}]}`, "explanations must be in English"},
		{"not an object", `[1,2]`, "not the expected JSON object"},
	} {
		_, err := parseTurns([]byte(c.reply), spec)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}

	// Many problems are cut short.
	var b strings.Builder
	b.WriteString(`{"turns":[`)
	for i := range 20 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"index":` + strconv.Itoa(i) + `,"explanation":"x"}`)
	}
	b.WriteString(`]}`)
	_, err = parseTurns([]byte(b.String()), turnsSpec{turns: 20, tasks: []string{"norm"}})
	if err == nil || !strings.Contains(err.Error(), "and 14 more problems") {
		t.Errorf("long error: %v", err)
	}
}

// Labels a task was not asked for are ignored, not errors.
func TestParseTurnsIgnoresOtherLabels(t *testing.T) {
	spec := turnsSpec{turns: 1, tasks: []string{"emotion"}}
	got, err := parseTurns([]byte(`{"turns":[{"index":0,"emotion":"joy","norm":"adhered","explanation":"x"}]}`), spec)
	if err != nil || got[0].Emotion != "joy" {
		t.Fatalf("%+v %v", got, err)
	}
}
