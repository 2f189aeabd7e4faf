package v2r

import (
	"strings"
	"testing"

	"github.com/ngkit/ngkit/pkg/record"
)

func turns(spec ...string) []record.Turn {
	// spec: "Speaker|stage|text"
	var out []record.Turn
	for _, s := range spec {
		p := strings.SplitN(s, "|", 3)
		out = append(out, record.Turn{Speaker: p[0], Stage: p[1], Text: p[2]})
	}
	return out
}

// The V2R stage rule, case by case: never back, all four main stages,
// context only first.
func TestCheckStages(t *testing.T) {
	for _, c := range []struct {
		stages []string
		err    string
	}{
		{[]string{"violation", "recognition", "repair", "resolution"}, ""},
		{[]string{"context", "context", "violation", "violation", "recognition", "repair", "repair", "resolution", "resolution"}, ""},
		{[]string{"violation", "context", "recognition", "repair", "resolution"}, "turn 2 (A) goes back from violation to context"},
		{[]string{"violation", "recognition", "violation", "repair", "resolution"}, "goes back from recognition to violation"},
		{[]string{"violation", "recognition", "resolution"}, "no repair turn"},
		{[]string{"context", "context", "context"}, "no violation, no recognition, no repair, no resolution turn"},
		{[]string{"violation", "", "repair", "resolution"}, "turn 2 (A) has no stage; no recognition turn"},
		{[]string{"violation", "recognize", "repair", "resolution"}, `has the unknown stage "recognize"`},
	} {
		var ts []record.Turn
		for _, s := range c.stages {
			ts = append(ts, record.Turn{Speaker: "A", Stage: s})
		}
		err := checkStages(ts, record.TypeV2R)
		if (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("%v: %v, want %q", c.stages, err, c.err)
		}
	}
	if err := checkStages(turns("A||x", "B|violation|y"), record.TypeViolation); err != nil {
		t.Error(err)
	}
	if err := checkStages(turns("A||x", "B||y"), record.TypeViolation); err == nil {
		t.Error("a violation dialogue without a violation passed")
	}
	if err := checkStages(turns("A||x"), record.TypeAdherence); err != nil {
		t.Error(err)
	}
}

func TestRulesCheck(t *testing.T) {
	ok := turns("Mike||Hi there, how are you today?", "Anna||I am fine, thank you for asking.", "Mike||Good to hear that from you.",
		"Anna||What about you and your family?", "Mike||We are all doing well, thanks.")
	r := Rules{MinTurns: 5, MaxTurns: 15, MinLangShare: 1}
	for _, c := range []struct {
		name string
		edit func(d *Dialogue)
		err  string
	}{
		{"valid", func(*Dialogue) {}, ""},
		{"a turn of only a direction", func(d *Dialogue) { d.Turns[2].Text, d.Turns[2].Action = "", "nods" }, ""},
		{"an empty turn", func(d *Dialogue) { d.Turns[2].Text = "" }, "turn 3 (Mike) is empty"},
		{"a colon in the name", func(d *Dialogue) { d.Turns[0].Speaker = "Mike:" }, "holds more than a name"},
		{"the text in the name", func(d *Dialogue) { d.Turns[0].Speaker = "Mike says that he is very glad to be here today" }, "holds more than a name"},
		{"markdown name", func(d *Dialogue) { d.Turns[0].Speaker = "**Mike**" }, "the speaker's name has format markers (markdown **)"},
		{"the name in the text", func(d *Dialogue) { d.Turns[1].Text = "Anna: I am fine." }, "repeats the speaker's name"},
		{"a stage tag in the text", func(d *Dialogue) { d.Turns[1].Text = "[repair] I am sorry." }, `the stage tag "[repair]"`},
		{"literal newline", func(d *Dialogue) { d.Turns[1].Text = `I am fine.\nReally.` }, `a literal \n`},
		{"a line break in a direction", func(d *Dialogue) { d.Turns[1].Action = "smiles\nwaves" }, "a line break"},
		{"a separator in the narration", func(d *Dialogue) { d.Narration = []string{"---"} }, "a narration line has format markers"},
		{"French", func(d *Dialogue) { d.Turns[3].Text = "Je ne sais pas ce que tu veux dire avec cela." }, "turn 4 (Anna) is in French"},
		// what the release does on purpose, refused by the rules as first written
		{"a formula said twice", func(d *Dialogue) { d.Turns[2].Text, d.Turns[4].Text = "Goodnight!", "Goodnight!" }, ""},
		{"a greeting said twice", func(d *Dialogue) { d.Turns[2].Text, d.Turns[4].Text = "Good morning, Emily.", "Good morning, Emily." }, ""},
		{"curt replies, 4 of 5", func(d *Dialogue) {
			d.Turns[1].Text, d.Turns[2].Text, d.Turns[3].Text, d.Turns[4].Text = "Okay.", "Sure.", "Yeah.", "Mhm."
		}, ""},
		{"a sentence said twice", func(d *Dialogue) {
			d.Turns[4].Text = d.Turns[2].Text + " Really, it is good to hear."
			d.Turns[2].Text = d.Turns[4].Text
		}, "repeats turn 3 (Mike) word for word"},
		{"every turn one word", func(d *Dialogue) {
			for i, w := range []string{"12345", "Malike", "Maria", "Jessica", "Anna"} {
				d.Turns[i].Text = w
			}
		}, "5 of 5 turns are a single word"},
		{"too many", func(d *Dialogue) {
			for len(d.Turns) < 16 {
				d.Turns = append(d.Turns, d.Turns[len(d.Turns)-2])
			}
		}, "16 turns, more than 15"},
	} {
		d := &Dialogue{Turns: append([]record.Turn(nil), ok...)}
		c.edit(d)
		rec, err := r.Check(d, record.TypeAdherence, "en")
		if (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: %v, want %q", c.name, err, c.err)
		}
		if err == nil && (rec.Checks == nil || rec.Checks.LangExpected != "en" || rec.Turns[0].Lang != "en" || rec.Turns[4].Index != 4) {
			t.Errorf("%s: audit not kept: %+v", c.name, rec)
		}
	}
}
