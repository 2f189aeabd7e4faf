package render

import (
	"bytes"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/filters/stats"
)

// htmlTestReport has something in every section of the HTML report,
// including the awkward cases: markup and CJK in texts, a very long id,
// counts near the int64 limit, an empty culture key.
func htmlTestReport() *stats.Report {
	longID := strings.Repeat("very-long-id-", 20) + "end"
	ids := make([]string, 12)
	for i := range ids {
		ids[i] = "rec-" + strings.Repeat("x", i)
	}
	hist := func(lo, width int64, counts ...int64) []stats.Bin {
		var bs []stats.Bin
		for i, c := range counts {
			bs = append(bs, stats.Bin{Lo: lo + int64(i)*width, Hi: lo + int64(i+1)*width - 1, Count: c})
		}
		return bs
	}
	return &stats.Report{
		Version: stats.Version, Records: 1200, Dialogues: 1180, Turns: 9876,
		Counts: stats.Counts{
			ByCulture: []stats.Count{{Key: "american", Records: 400, Dialogues: 390, Turns: 3000},
				{Key: "korean", Records: 800, Dialogues: 790, Turns: 6876}},
			ByType: []stats.Count{{Key: "adherence", Records: 600}, {Key: "v2r", Records: 600}},
			ByCategory: []stats.Count{{Key: "apology", Records: 700}, {Key: "greeting", Records: 499},
				{Key: "", Records: 1}},
			ByCultureType: []stats.Count{{Key: "american/adherence", Records: 200}, {Key: "american/v2r", Records: 200},
				{Key: "korean/adherence", Records: 400}, {Key: "korean/v2r", Records: 400}},
		},
		TurnsPerDialogue:    stats.Summary{N: 1180, Mean: 8.4, Median: 8, P95: 12, Min: 2, Max: 14, Hist: hist(2, 1, 3, 10, 40, 90, 200, 300, 250, 150, 80, 40, 10, 5, 2)},
		SpeakersPerDialogue: stats.Summary{N: 1180, Mean: 2.1, Median: 2, P95: 3, Min: 1, Max: 4, Hist: hist(1, 1, 10, 1000, 160, 10)},
		SameSpeaker:         stats.SameSpeaker{Pairs: 33, Dialogues: 20},
		Lengths: []stats.LangLengths{
			{Lang: "ko", Turns: 6000, Chars: stats.Summary{N: 6000, Mean: 40, Max: 300, Hist: hist(0, 10, 5, 50, 500, 1200, 900, 300, 60, 6)},
				Tokens: stats.Summary{N: 6000, Mean: 12, Max: 60, Hist: hist(0, 2, 100, 900, 2000, 1500, 300)}, Distinct1: 0.31, Distinct2: 0.72},
			{Lang: "en", Turns: 3876, Chars: stats.Summary{N: 3876, Mean: 70, Max: 1 << 40, Hist: hist(0, 1<<35, math.MaxInt64/4, 1)},
				Tokens: stats.Summary{N: 3876, Mean: 15, Max: 40, Hist: hist(0, 5, 10, 20, 3000, 800, 46)}, Distinct1: 0.2, Distinct2: 0.6, Approx: true},
		},
		Language: []stats.LangConsistency{
			{Culture: "korean", Expected: "ko", Records: 800, Turns: 6876, Confident: 6800, Matching: 6700, Share: 6700.0 / 6800, RecordsBelow: 12,
				Mismatches: []stats.Mismatch{{Detected: "en", Turns: 100, Examples: []stats.Example{
					{ID: "k1", Turn: 3, Text: `Hello <script>alert("x")</script> & bye`},
					{ID: longID, Turn: 0, Text: "죄송합니다 — 中文也有"},
				}}}},
			{Culture: "american", Expected: "en", Records: 400, Turns: 3000, Confident: 2990, Matching: 2990, Share: 1},
		},
		Defects: []stats.Defect{
			{Name: "empty_dialogue", Kind: "content", Help: "no turns", Count: 20, Rate: 20.0 / 1200, IDs: ids, More: 8},
			{Name: "end_marker", Kind: "format", Help: "leftover [END] marker", Count: 3, Rate: 3.0 / 1200, IDs: []string{"a", longID, "<b>bold</b>"}},
		},
		RecordsWithDefects: 23,
		Labels: &stats.Labels{
			Dist: []stats.LabelDist{
				{Task: "norm", Group: "all", Turns: 100, Counts: map[string]int64{"adhered": 70, "violated": 20, "not_relevant": 10}},
				{Task: "norm", Group: "korean/v2r", Turns: 40, Counts: map[string]int64{"adhered": 20, "violated": 20}},
				{Task: "intent", Group: "all", Turns: 100, Counts: map[string]int64{"ACK": 30, "APO": 50, "QUE": 20}},
			},
			Quality: []stats.QualityMeans{{Group: "all", N: 50, Consistency: 4.5, Naturalness: 4.1, Relevance: 4.9, Coherence: 4.4, Emotion: 3.8, Norm: 3.2}},
		},
		FailOn: []stats.Threshold{{Defect: "empty_dialogue", Max: 0.01, Rate: 20.0 / 1200, Exceeded: true},
			{Defect: "end_marker", Max: 0.01, Rate: 3.0 / 1200}},
	}
}

func renderHTML(t *testing.T, r *stats.Report) string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestHTMLSections(t *testing.T) {
	h := renderHTML(t, htmlTestReport())
	for _, want := range []string{
		`<meta charset="utf-8">`,
		`<meta http-equiv="Content-Security-Policy" content="` + strings.ReplaceAll(htmlCSP, "'", "&#39;") + `">`,
		`id="totals"`, `id="counts"`, `id="distributions"`, `id="language"`, `id="defects"`, `id="labels"`, `id="fail-on"`,
		`aria-label="Records by category: bar chart of 3 bars, largest apology (700)"`,
		`aria-label="Turns per dialogue: histogram`,
		`aria-label="Characters per turn, ko: histogram`,
		`aria-label="Tokens per turn, en: histogram`,
		`aria-label="Records with each defect: bar chart of 2 bars, largest empty_dialogue (20)"`,
		`aria-label="Distribution of norm labels per group"`,
		`aria-label="Distribution of intent labels per group"`,
		`<td>american</td><td class="n">200</td><td class="n">200</td>`, // culture x type
		"죄송합니다 — 中文也有",
		`<blockquote lang="en">`,
		"<details><summary>12 ids (and 8 more not listed)</summary>",
		"2,305,843,009,213,693,951", // math.MaxInt64/4 with separators
		"<span class=\"bad\">FAIL</span>: 1 of 2 thresholds exceeded",
		"Dialogue quality",
		"4.9",
		"(none)",
	} {
		if !strings.Contains(h, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	// Every chart is an accessible image; count them: 1 category + 6
	// histograms + 1 defects + 2 label tasks.
	charts := regexp.MustCompile(`<svg class="chart [a-z]+" role="img" aria-label="[^"]+"`).FindAllString(h, -1)
	if len(charts) != 10 || strings.Count(h, "<svg") != 10 {
		t.Errorf("%d accessible charts of %d svg elements, want 10", len(charts), strings.Count(h, "<svg"))
	}
	// Hover titles on every bar of the turns histogram (13 bins).
	if n := strings.Count(h, " turns: "); n < 13 {
		t.Errorf("%d bar titles of the turns histogram, want >= 13", n)
	}
}

func TestHTMLEscapes(t *testing.T) {
	h := renderHTML(t, htmlTestReport())
	if strings.Contains(h, "<script") || strings.Contains(h, "<b>bold") {
		t.Error("markup from the data reached the HTML unescaped")
	}
	for _, want := range []string{`Hello &lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; bye`, `&lt;b&gt;bold&lt;/b&gt;`} {
		if !strings.Contains(h, want) {
			t.Errorf("HTML lacks escaped %q", want)
		}
	}
}

// TestHTMLFetchesNothing: no attribute may name anything to load; the only
// links are fragments (#section).
func TestHTMLFetchesNothing(t *testing.T) {
	h := renderHTML(t, htmlTestReport())
	for _, m := range regexp.MustCompile(`(?i)\s(src|href|srcset|action|data|poster|xlink:href)\s*=\s*"([^"]*)"`).FindAllStringSubmatch(h, -1) {
		if m[1] != "href" || !strings.HasPrefix(m[2], "#") {
			t.Errorf("attribute %s=%q", m[1], m[2])
		}
	}
	for _, bad := range []string{"http://", "https://", "url(", "@import", "<link", "<img", "<script", "<iframe", "<object", "<embed"} {
		if strings.Contains(strings.ToLower(h), bad) {
			t.Errorf("HTML contains %q", bad)
		}
	}
	if regexp.MustCompile(`(?i)(src|href)\s*=\s*"//`).MatchString(h) {
		t.Error("protocol-relative URL")
	}
}

func TestHTMLEmpty(t *testing.T) {
	for _, r := range []*stats.Report{nil, {Version: stats.Version}} {
		h := renderHTML(t, r)
		if strings.Contains(h, "<svg") {
			t.Error("empty report draws a chart")
		}
		for _, want := range []string{"No records.", "No defects found.", "No language check.", strings.ReplaceAll(htmlCSP, "'", "&#39;")} {
			if !strings.Contains(h, want) {
				t.Errorf("empty report lacks %q", want)
			}
		}
		if strings.Contains(h, `id="labels"`) || strings.Contains(h, `id="fail-on"`) {
			t.Error("empty report shows labels or fail-on")
		}
	}
}

func TestHTMLHistogramZeroBins(t *testing.T) {
	if newHist("x", "v", "n", []stats.Bin{{Lo: 0, Hi: 1, Count: 0}, {Lo: 2, Hi: 3, Count: 0}}) != nil {
		t.Error("all-zero histogram drawn")
	}
	c := newHist("x", "v", "n", []stats.Bin{{Lo: 0, Hi: 0, Count: math.MaxInt64}, {Lo: 1, Hi: 1, Count: 1}})
	if c == nil || c.Bars[1].H < 1 {
		t.Errorf("a count of 1 next to MaxInt64 must still show: %+v", c)
	}
}

// TestHTMLHistogramBarsOneWidth: a histogram of one bin, one of a few and
// one of the most bins a summary has draw bars of one width, and each x
// axis ends with its last bar.
func TestHTMLHistogramBarsOneWidth(t *testing.T) {
	var width px
	for _, n := range []int{1, 3, stats.MaxBins} {
		bins := make([]stats.Bin, n)
		for i := range bins {
			bins[i] = stats.Bin{Lo: int64(i), Hi: int64(i), Count: int64(i + 1)}
		}
		c := newHist("x", "v", "n", bins)
		for _, b := range c.Bars {
			if width == 0 {
				width = b.W
			}
			if b.W != width {
				t.Errorf("%d bins: a bar %v wide, want %v as every other", n, b.W, width)
			}
		}
		last := c.Bars[len(c.Bars)-1]
		if end := last.X + last.W + 1; math.Abs(float64(end-c.X1)) > 0.5 {
			t.Errorf("%d bins: the axis ends at %v, the last bar at %v", n, c.X1, end)
		}
	}
}

func TestHTMLShortNumbers(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 9999: "9,999", 10000: "10k", 123456: "123k", 999500: "1M",
		2_500_000_000: "2.5G", math.MaxInt64: "9.22E", -12345: "-12.3k"} {
		if got := short(n); got != want {
			t.Errorf("short(%d) = %q, want %q", n, got, want)
		}
	}
}
