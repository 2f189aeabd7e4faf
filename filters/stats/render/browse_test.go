package render

import (
	"strings"
	"testing"

	"github.com/ngkit/ngkit/filters/stats"
	"github.com/ngkit/ngkit/filters/stats/internal/statstest"
	"github.com/ngkit/ngkit/pkg/audit"
)

func browseReport(t *testing.T) *stats.Report {
	t.Helper()
	c := stats.NewCollector()
	c.Browse, c.Examples, c.ShowDefect = true, 2, audit.DefectSingleSpeaker
	a := &audit.Audit{MinTurns: 0, MaxTurns: 0, MinLangShare: 0}
	for _, r := range statstest.BrowseRecords() {
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
	c.Add(statstest.BrowseRecords()[0])
	if p := renderHTML(t, c.Report()); strings.Contains(p, `id="dialogues"`) {
		t.Error("dialogues section without --html browsing")
	}
}
