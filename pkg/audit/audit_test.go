package audit

import (
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/pkg/dialogue"
	"github.com/ngkit/ngkit/pkg/record"
)

func TestDefectNamesDocumented(t *testing.T) {
	names := DefectNames()
	if !sort.StringsAreSorted(names) || len(names) != len(defectInfos) {
		t.Fatal(names)
	}
	for _, n := range names {
		if i := defectInfos[n]; i.help == "" || i.kind == "" {
			t.Errorf("%s undocumented", n)
		}
	}
	// every defect the parser can name is documented
	for _, d := range dialogue.Defects() {
		if _, _, ok := Describe(d); !ok {
			t.Errorf("the parser's defect %s is not documented", d)
		}
	}
}

func textDefects(text string) []string {
	var got []string
	TextDefects(text, func(d string) {
		if !slices.Contains(got, d) {
			got = append(got, d)
		}
	})
	return got
}

// parsed parses a two-turn dialogue whose second turn is text and returns
// the parser's defects and the second turn's text.
func parsed(t *testing.T, text string) ([]string, string) {
	t.Helper()
	res := dialogue.Parse("Ann: Are we done here?\nBen: " + text)
	if len(res.Dialogues) != 1 || len(res.Dialogues[0].Turns) < 2 {
		t.Fatalf("%q: parsed as %+v", text, res)
	}
	turns := res.Dialogues[0].Turns
	return res.Defects, turns[len(turns)-1].Text
}

// TestEndMarkersAgree keeps ngstats' audit and the parser in agreement on
// every end-marker form: each one the parser removes (and names as
// end_marker) the audit finds in a turn's text, before, after or inside
// the words, and on a line of its own.
func TestEndMarkersAgree(t *testing.T) {
	forms := dialogue.EndMarkers()
	if len(forms) < 16 {
		t.Fatalf("only %d end-marker forms: %q", len(forms), forms)
	}
	// the forms the issue found ngstats missing, and the stage directions
	// the parser removes as end markers besides the list
	for _, m := range []string{"(끝)", "【完】", "（END）", "(end)", "（完）", "( END )"} {
		if !slices.Contains(forms, m) {
			forms = append(forms, m)
		}
	}
	for _, m := range forms {
		for _, text := range []string{"Yes, we are done. " + m, m + " Yes, we are done.", "Yes, we are " + m + " done.", "Yes, we are done.\n" + m} {
			defs, clean := parsed(t, text)
			if !slices.Contains(defs, record.DefectEndMarker) {
				t.Errorf("%q: the parser does not name end_marker (%v)", text, defs)
			}
			if dialogue.EndMarkerIn(clean) != "" || strings.Contains(clean, m) {
				t.Errorf("%q: the parser left %q", text, clean)
			}
			if got := textDefects(text); !slices.Contains(got, record.DefectEndMarker) {
				t.Errorf("%q: the audit finds %v, not end_marker", text, got)
			}
			if got := textDefects(clean); len(got) != 0 {
				t.Errorf("%q: the audit finds %v in the parsed text %q", text, got, clean)
			}
		}
	}
	// a line that is only an end word in square brackets, or "[END" cut short
	for _, line := range []string{"[ end ]", "【 完 】", "[END", "【End】"} {
		text := "Yes, we are done.\n" + line
		defs, clean := parsed(t, text)
		if !slices.Contains(defs, record.DefectEndMarker) || clean != "Yes, we are done." {
			t.Errorf("%q: the parser gives %v, %q", text, defs, clean)
		}
		if got := textDefects(text); !slices.Contains(got, record.DefectEndMarker) {
			t.Errorf("%q: the audit finds %v, not end_marker", text, got)
		}
	}
}

// TestHeadersAndSeparatorsAgree: a header or separator line the parser
// removes, the audit names.
func TestHeadersAndSeparatorsAgree(t *testing.T) {
	cases := map[string]string{}
	for _, w := range dialogue.HeaderWords {
		cases[w+":"] = record.DefectHeader
		cases["## "+w] = record.DefectHeader
		cases["**"+w+" 2:**"] = record.DefectHeader
	}
	for _, l := range []string{"---", "——", "***", "=====", "—", "- - -", "＝＝＝"} {
		cases[l] = record.DefectSeparator
	}
	for line, want := range cases {
		res := dialogue.Parse("Ann: Are we done here?\n" + line + "\nBen: Yes, we are done.")
		if !slices.Contains(res.Defects, want) {
			t.Errorf("%q: the parser names %v, not %s", line, res.Defects, want)
		}
		text := "Yes, we are done.\n" + line + "\nSee you."
		if got := textDefects(text); !slices.Contains(got, want) {
			t.Errorf("%q: the audit finds %v, not %s", line, got, want)
		}
	}
}

// TestReasoningAgrees: what the parser strips as leaked reasoning the
// audit names, in a turn and in a scenario.
func TestReasoningAgrees(t *testing.T) {
	var texts []string
	for _, tag := range dialogue.ReasoningTags() {
		texts = append(texts, "<"+tag+">The user wants a dialogue.</"+tag+">Ann: Hello.\nBen: Hi.", "Ann: Hello.\nBen: Hi.<"+tag+">Now check it")
	}
	texts = append(texts, "analysisWe need to write it.assistantfinalAnn: Hello.\nBen: Hi.",
		"<|channel|>analysis<|message|>Plan.<|end|><|start|>assistant<|channel|>final<|message|>Ann: Hello.\nBen: Hi.",
		"analysis We need to produce JSON")
	for _, text := range texts {
		res := dialogue.Parse(text)
		if !slices.Contains(res.Defects, record.DefectReasoning) {
			t.Errorf("%q: the parser names %v", text, res.Defects)
		}
		if got := textDefects(text); !slices.Contains(got, record.DefectReasoning) {
			t.Errorf("%q: the audit finds %v", text, got)
		}
		rec := &record.Record{Scenario: text}
		FieldDefects(rec)
		if rec.Checks == nil || !slices.Contains(rec.Checks.Defects, record.DefectReasoning) {
			t.Errorf("%q in a scenario: no leaked_reasoning", text)
		}
	}
}

// TestCleanTextHasNoDefects: ordinary turns, including brackets, dashes
// and the words of the vocabulary used as words, are not defects.
func TestCleanTextHasNoDefects(t *testing.T) {
	for _, text := range []string{
		"We reached the end of the road.",
		"(smiles) That's the end, isn't it?",
		"I finished it (finally).",
		"The dialogue was long - but good.",
		"Analysis shows we were right.",
		"Let me think about it.",
		"结束了吗？(笑)",
		"끝났어요. 정말 끝.",
		"对话很顺利。",
		"대화가 끝났어요.",
		"A well-known — and well-loved — song.",
		"I said \"no\", and that's final.",
	} {
		if got := textDefects(text); len(got) != 0 {
			t.Errorf("%q: %v", text, got)
		}
		if dialogue.HasReasoning(text) {
			t.Errorf("%q: reasoning", text)
		}
	}
}

// TestJSONResidue: a line of only JSON syntax in a turn is json_residue.
func TestJSONResidue(t *testing.T) {
	if got := textDefects("Yes, we are done.\n\"},"); !slices.Contains(got, dialogue.DefectJSONResidue) {
		t.Errorf("%v", got)
	}
}

// The turn bounds are the dialogues', not a simulated episode's: an
// 18-turn episode is not too long, the same turns as a dialogue are.
func TestTurnBoundsSkipEpisodes(t *testing.T) {
	turns := func() []record.Turn {
		var ts []record.Turn
		for i := range 18 {
			sp := map[bool]string{true: "user", false: "assistant"}[i%2 == 0]
			ts = append(ts, record.Turn{Index: i, Speaker: sp, Text: "Could you tell me which gift would be right for my host family?"})
		}
		return ts
	}
	a := &Audit{MinTurns: record.DefaultMinTurns, MaxTurns: record.DefaultMaxTurns}
	dialogue := &record.Record{ID: "d", Lang: "en", Turns: turns()}
	episode := &record.Record{ID: "e", Lang: "en", Turns: turns(), Sim: &record.Sim{Assistant: "a", Mode: "benchmark", End: "max_turns"}}
	a.Record(dialogue)
	a.Record(episode)
	if dialogue.Checks == nil || !slices.Contains(dialogue.Checks.Defects, DefectTooManyTurns) {
		t.Errorf("an 18-turn dialogue: defects %+v, want %s", dialogue.Checks, DefectTooManyTurns)
	}
	if episode.Checks != nil && slices.Contains(episode.Checks.Defects, DefectTooManyTurns) {
		t.Errorf("an 18-turn episode: defects %v", episode.Checks.Defects)
	}
}

// The audit says which of Singapore's languages a dialogue was found in.
func TestFoundLanguage(t *testing.T) {
	for _, c := range []struct {
		texts []string
		want  string
	}{
		{[]string{"Selamat pagi, mak cik. Saya nak beli nasi lemak dua bungkus.", "Boleh, adik. Nak sambal lebih tak?", "Tak payah, terima kasih mak cik."}, "ms"},
		{[]string{"வணக்கம், நீங்கள் எப்படி இருக்கிறீர்கள்?", "நான் நன்றாக இருக்கிறேன், நன்றி."}, "ta"},
		{[]string{"Thank you so much for helping me carry the bags up.", "No problem lah, see you tomorrow."}, "en"},
	} {
		rec := &record.Record{ID: "x", Culture: "singaporean", Lang: "en"}
		for i, s := range c.texts {
			rec.Turns = append(rec.Turns, record.Turn{Index: i, Speaker: []string{"A", "B"}[i%2], Text: s})
		}
		(&Audit{MinLangShare: 0.8}).Record(rec)
		if rec.Checks == nil || rec.Checks.LangExpected != c.want || rec.Checks.LangOK == nil || !*rec.Checks.LangOK {
			t.Errorf("%q: checks %+v, want lang_expected %s and ok", c.texts, rec.Checks, c.want)
		}
	}
}

// TestLiveRepaired: a format defect the parser repaired is not live unless
// a turn still shows it; content defects and unrepairable ones stay live.
func TestLiveRepaired(t *testing.T) {
	turns := func(last string) []record.Turn {
		return []record.Turn{{Speaker: "A", Text: "Thank you for the help."}, {Speaker: "B", Text: last}}
	}
	a := &Audit{MinLangShare: DefaultMinLangShare} // no turn bounds
	for _, c := range []struct {
		name           string
		rec            record.Record
		live, repaired string
	}{
		{"repaired", record.Record{Turns: turns("You are welcome."), Checks: &record.Checks{Defects: []string{"end_marker", "separator"}}}, "", "end_marker,separator"},
		{"still in the text", record.Record{Turns: turns("You are welcome. [END]"), Checks: &record.Checks{Defects: []string{"end_marker"}}}, "end_marker", ""},
		{"content stays", record.Record{Turns: turns("You are welcome."), Checks: &record.Checks{Defects: []string{"failed_generation", "unplaced_lines", "end_marker"}}}, "failed_generation,unplaced_lines", "end_marker"},
		{"no turns, nothing repaired", record.Record{Checks: &record.Checks{Defects: []string{"end_marker"}}}, "end_marker", ""},
	} {
		before := slices.Clone(c.rec.Checks.Defects)
		live, repaired := a.Live(&c.rec)
		if strings.Join(live, ",") != c.live || strings.Join(repaired, ",") != c.repaired {
			t.Errorf("%s: live %v, repaired %v; want %q, %q", c.name, live, repaired, c.live, c.repaired)
		}
		if !slices.Equal(c.rec.Checks.Defects, before) {
			t.Errorf("%s: the record's defects changed: %v", c.name, c.rec.Checks.Defects)
		}
	}
}
