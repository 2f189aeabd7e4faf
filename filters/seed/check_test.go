package seed

import (
	"strings"
	"testing"

	"github.com/ngkit/ngkit/pkg/normbank"
)

func TestCheckText(t *testing.T) {
	ko, det := culture(t, "korean")
	en, _ := culture(t, "american")
	zh, _ := culture(t, "chinese")
	const koSit = "민수는 회의에 늦어 부장님께 고개를 숙였다. 그는 변명하지 않고 바로 죄송하다고 말했다. 부장님은 다음부터 조심하라고 부드럽게 답했다."
	const enSit = "Mike is late for the Monday meeting. He apologises to Mrs. Thompson at once. She nods and thanks him for saying so."
	for _, tc := range []struct {
		name string
		c    *normbank.Culture
		s    string
		sit  bool
		kind string // "" when it passes
	}{
		{"korean situation", ko, koSit, true, ""},
		{"english situation", en, enSit, true, ""},
		{"chinese scenario", zh, "小王开会迟到后，立刻向李经理道歉。", false, ""},
		{"english scenario for korean", ko, "Minsu apologises to his manager after being late.", false, kindLanguage},
		{"korean situation for american", en, koSit, true, kindLanguage},
		{"too short", ko, "민수는 부장님께 사과했다.", true, kindLength},
		{"too long", en, strings.Repeat("He apologises. ", 6), true, kindLength},
		{"scenario of three sentences", en, "Mike is late. He apologises. She nods.", false, kindLength},
		{"empty", en, "  ", false, kindEmpty},
		{"end marker", en, enSit + " [END]", true, kindMarker},
		{"line break", en, strings.Replace(enSit, " He", "\nHe", 1), true, kindMarker},
		{"literal newline", en, strings.Replace(enSit, " He", `\nHe`, 1), true, kindMarker},
		{"markdown", en, "**Scenario:** Mike apologises to Mrs. Thompson.", false, kindMarker},
		{"json", zh, `{"scenario": "小王开会迟到后，立刻向李经理道歉。"}`, false, kindMarker},
		{"reasoning", en, "analysisWe need to write a scenario. Mike apologises.", false, kindMarker},
	} {
		var err error
		if tc.sit {
			err = checkSituation(det, tc.c, tc.s)
		} else {
			err = checkScenario(det, tc.c, tc.s)
		}
		switch {
		case tc.kind == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.kind != "" && (err == nil || kindOf(err) != tc.kind):
			t.Errorf("%s: got %v (%s), want a %s error", tc.name, err, kindOf(err), tc.kind)
		}
	}
	// The message says what to do, in words the model can act on.
	err := checkSituation(det, ko, "Minsu bows to his manager. He apologises at once. The manager nods.")
	if err == nil || !strings.Contains(err.Error(), "must be in Korean (ko)") {
		t.Errorf("message: %v", err)
	}
}

func TestParseTypes(t *testing.T) {
	got, err := ParseTypes([]string{"V2R", "adherence", "v2r", " violation "})
	if err != nil || strings.Join(got, ",") != "v2r,adherence,violation" {
		t.Errorf("%v %v", got, err)
	}
	for _, bad := range [][]string{{"adherance"}, {""}, nil} {
		if _, err := ParseTypes(bad); err == nil || !strings.Contains(err.Error(), "adherence, violation, v2r") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
