package audit

import (
	"strings"
	"testing"

	"github.com/ngkit/ngkit/pkg/dialogue"
	"github.com/ngkit/ngkit/pkg/record"
)

// FuzzTextDefects: the audit never panics, names only documented defect
// classes, and EndMarkerIn names a piece of the text it was given.
func FuzzTextDefects(f *testing.F) {
	for _, m := range dialogue.EndMarkers() {
		f.Add("Bye. " + m)
	}
	for _, s := range []string{"(end)", "（完", "( END )\nok", "[END", "Dialogue 2:", "## 대화", "---", "<think>x</think>ok",
		"analysisWe need", "\"},", `a\nb`, "**bold**", "(", "（", "(END"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		TextDefects(text, func(d string) {
			if _, _, ok := Describe(d); !ok {
				t.Fatalf("%q: undocumented defect %s", text, d)
			}
		})
		if m := dialogue.EndMarkerIn(text); m != "" && !strings.Contains(text, m) {
			t.Fatalf("%q: EndMarkerIn gave %q, not in the text", text, m)
		}
		rec := &record.Record{Scenario: text, Turns: []record.Turn{{Speaker: "A", Text: text}, {Speaker: "B"}}}
		(&Audit{Detector: nil}).Record(rec)
	})
}
