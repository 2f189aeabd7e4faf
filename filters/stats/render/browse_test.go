package render

import (
	"strings"
	"testing"

	"github.com/ngkit/ngkit/filters/stats"
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

func browseReport(t *testing.T) *stats.Report {
	t.Helper()
	c := stats.NewCollector()
	c.Browse, c.Examples, c.ShowDefect = true, 2, audit.DefectSingleSpeaker
	a := &audit.Audit{MinTurns: 0, MaxTurns: 0, MinLangShare: 0}
	for _, r := range browseRecords() {
		a.Record(r)
		c.Add(r)
	}
	return c.Report()
}

func TestBrowserHTML(t *testing.T) {
	page := renderHTML(t, browseReport(t))
	for _, want := range []string{
		`<a href="#dialogues">Dialogues</a>`,
		`<h3>american/v2r</h3>`, `<h3>korean/adherence</h3>`,
		`id="d-v1"`, `id="d-v2"`, `id="d-ko"`, // v3: beyond --examples 2
		`<span class="who">Sam</span> <span class="act">(sits down)</span>: <span class="txt">So, where are we?</span>`,
		`<span class="chip k-bad">writer's stage: violation</span>`, `<span class="chip k-bad">norm: violated</span>`,
		`<span class="chip k-warn">writer's stage: recognition</span>`, `<span class="chip k-fix">writer's stage: repair</span>`,
		// the labeller's stage is named as such, and a turn whose two
		// stages differ is flagged
		`<span class="chip k-fix">labeller&#39;s stage: repair</span><span class="chip flag">stages disagree</span>`,
		`<span class="chip k-good">norm: adhered</span>`, `<span class="chip k-plain">intent: APO</span>`,
		`<span class="human">reviewers:</span>`,
		`<span class="chip">task relevance 5</span>`, `<span class="chip">norm 3</span>`,
		`<dd>accept (1 reviewers, labelstudio)</dd>`,
		// narration in its place: before the first turn, after the last
		"<ol class=\"turns\">\n<li class=\"narr\">(The meeting has already started.)</li>\n<li class=\"k-bad\"><span class=\"who\">Sam</span>",
		"<li class=\"narr\">(Everyone gets back to work.)</li>\n</ol>",
		"그래, 좋은 아침이에요.</span></li>\n<li class=\"narr\">(복도에서 마주친다.)</li>\n</ol>",
		`Records with single_speaker (1)`, `id="d-solo"`, `<code>single_speaker</code>`,
		`lang="ko"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	// v1 and v2 are shown, each with one turn whose stages differ
	if n := strings.Count(page, "stages disagree</span>"); n != 2 {
		t.Errorf("%d turns flagged with stages that disagree, want 2", n)
	}
	if strings.Contains(page, `id="d-v3"`) {
		t.Error("more examples than --examples")
	}
	if strings.Contains(page, "<script") {
		t.Error("the browser needs no script")
	}
	// Without Browse, no section.
	c := stats.NewCollector()
	c.Add(browseRecords()[0])
	if p := renderHTML(t, c.Report()); strings.Contains(p, `id="dialogues"`) {
		t.Error("dialogues section without --html browsing")
	}
}
