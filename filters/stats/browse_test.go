package stats

import (
	"testing"

	"github.com/ngkit/ngkit/pkg/audit"
	"github.com/ngkit/ngkit/pkg/record"
)

// browseRecords: a labelled V2R dialogue with a reviewer's labels, seed
// and quality scores; a Korean adherence dialogue; a one-speaker dialogue
// (single_speaker); and more American V2R dialogues than --examples.
func browseRecords() []*record.Record {
	v2r := func(id string) *record.Record {
		return &record.Record{ID: id, Culture: "american", Lang: "en", DialogueType: "v2r", Category: "apology",
			Norm: "Apologize when you are late.", Scenario: "Sam is late to a meeting.", Situation: "Sam walks in ten minutes late.",
			Refinement:  &record.Refinement{Rounds: 1, After: &record.Scores{TaskRelevance: 5, LinguisticQuality: 4}, Accepted: true},
			Quality:     &record.Quality{Consistency: 5, Naturalness: 4, Relevance: 5, Coherence: 5, Emotion: 4, Norm: 3},
			Narration:   []string{"The meeting has already started.", "Everyone gets back to work."},
			NarrationAt: []int{0, 4},
			Turns: []record.Turn{
				{Index: 0, Speaker: "Sam", Action: "sits down", Text: "So, where are we?", Stage: "violation", Labels: &record.Labels{Norm: "violated", Intent: "QUE", Emotion: "neutral"},
					LabelsHuman: &record.Labels{Norm: "violated"}},
				{Index: 1, Speaker: "Ana", Text: "We started ten minutes ago, Sam.", Stage: "recognition", Labels: &record.Labels{Norm: "not_relevant", Intent: "CRT", Emotion: "anger", Stage: "repair"}},
				{Index: 2, Speaker: "Sam", Text: "I'm sorry, that was rude of me.", Stage: "repair", Labels: &record.Labels{Norm: "adhered", Intent: "APO", Emotion: "sadness", Stage: "repair"},
					LabelsHuman: &record.Labels{Norm: "adhered"}},
				{Index: 3, Speaker: "Ana", Text: "Thanks. Let's go on.", Stage: "resolution", Labels: &record.Labels{Norm: "adhered", Intent: "THX", Emotion: "joy"}},
			},
			Review: &record.Review{Tool: "labelstudio", Verdict: "accept", Reviewers: 1},
		}
	}
	// ko was written before narration kept its place: its line goes
	// after the last turn.
	ko := &record.Record{ID: "ko", Culture: "korean", Lang: "ko", DialogueType: "adherence", Norm: "윗사람에게 먼저 인사한다.",
		Narration: []string{"복도에서 마주친다."},
		Turns:     []record.Turn{{Index: 0, Speaker: "민수", Text: "부장님, 안녕하십니까?"}, {Index: 1, Speaker: "부장", Text: "그래, 좋은 아침이에요."}}}
	solo := &record.Record{ID: "solo", Culture: "korean", DialogueType: "adherence",
		Turns: []record.Turn{{Index: 0, Speaker: "민수", Text: "혼자 말한다."}}}
	return []*record.Record{v2r("v1"), ko, v2r("v2"), solo, v2r("v3")}
}

func browseReport(t *testing.T) *Report {
	t.Helper()
	c := NewCollector()
	c.Browse, c.Examples, c.ShowDefect = true, 2, audit.DefectSingleSpeaker
	a := &audit.Audit{MinTurns: 0, MaxTurns: 0, MinLangShare: 0}
	for _, r := range browseRecords() {
		a.Record(r)
		c.Add(r)
	}
	return c.Report()
}

// TestBrowser: the browser keeps --examples dialogues per group and every
// record of the --show-defect class; without Browse, nothing (render's
// TestBrowserHTML shows them).
func TestBrowser(t *testing.T) {
	r := browseReport(t)
	if b := r.Browser; b == nil || len(b.Examples) != 4 || len(b.Shown) != 1 || b.Shown[0].Record.ID != "solo" {
		t.Fatalf("browser %+v", r.Browser)
	}
	c := NewCollector()
	c.Add(browseRecords()[0])
	if b := c.Report().Browser; b != nil {
		t.Errorf("browser without Browse: %+v", b)
	}
}
