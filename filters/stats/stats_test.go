package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/filters/stats/internal/statstest"
	"github.com/ngkit/ngkit/pkg/audit"
	"github.com/ngkit/ngkit/pkg/record"
)

func TestHistQuantilesExactBelowLimit(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var h hist
	var vals []int64
	for range 5000 {
		v := int64(rng.ExpFloat64() * 60)
		v = min(v, exactBelow-1)
		h.add(v)
		vals = append(vals, v)
	}
	slices.Sort(vals)
	rank := func(q float64) float64 { return float64(vals[int(math.Ceil(q*float64(len(vals))))-1]) }
	s := h.summary()
	if s.Median != rank(0.5) || s.P95 != rank(0.95) {
		t.Fatalf("median %v p95 %v, want %v %v", s.Median, s.P95, rank(0.5), rank(0.95))
	}
	if s.Min != vals[0] || s.Max != vals[len(vals)-1] {
		t.Fatalf("min/max %d/%d, want %d/%d", s.Min, s.Max, vals[0], vals[len(vals)-1])
	}
	var sum, n int64
	for _, v := range vals {
		sum += v
	}
	for i, b := range s.Hist {
		n += b.Count
		if b.Lo > b.Hi || i > 0 && b.Lo != s.Hist[i-1].Hi+1 {
			t.Fatalf("bin %d %+v does not follow %+v", i, b, s.Hist[max(i-1, 0)])
		}
	}
	if n != s.N || s.N != 5000 || len(s.Hist) > MaxBins+1 {
		t.Fatalf("bins hold %d of %d values in %d bins", n, s.N, len(s.Hist))
	}
	if s.Mean != float64(sum)/5000 {
		t.Fatalf("mean %v, want %v", s.Mean, float64(sum)/5000)
	}
	if s.Hist[0].Lo != s.Min || s.Hist[len(s.Hist)-1].Hi != s.Max {
		t.Fatalf("bins cover %d..%d, want %d..%d", s.Hist[0].Lo, s.Hist[len(s.Hist)-1].Hi, s.Min, s.Max)
	}
}

func TestHistLargeValuesWithinOneSixtyFourth(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var h hist
	var vals []int64
	for range 3000 {
		v := exactBelow + rng.Int64N(1<<30)
		h.add(v)
		vals = append(vals, v)
	}
	slices.Sort(vals)
	for _, q := range []float64{0.5, 0.95} {
		want := float64(vals[int(math.Ceil(q*3000))-1])
		if got := h.quantile(q); math.Abs(got-want) > want/64 {
			t.Fatalf("q%.2f = %v, want %v within 1/64", q, got, want)
		}
	}
	var empty hist
	if s := empty.summary(); s.N != 0 || len(s.Hist) != 0 || s.Median != 0 {
		t.Fatalf("empty summary %+v", s)
	}
}

func TestDistinctExactAndEstimated(t *testing.T) {
	d := newDistinct()
	for i := range 1000 {
		d.add(record.Mix64(uint64(i % 250)))
	}
	if r, approx := d.ratio(); r != 0.25 || approx {
		t.Fatalf("ratio %v approx %v, want exact 0.25", r, approx)
	}
	var h hll
	const n = 200000
	for i := range n {
		h.add(record.Mix64(uint64(i)))
	}
	if e := h.estimate(); math.Abs(e-n)/n > 0.03 {
		t.Fatalf("HyperLogLog estimate %v for %d distinct", e, n)
	}
	var small hll
	for i := range 100 {
		small.add(record.Mix64(uint64(i)))
	}
	if e := small.estimate(); math.Abs(e-100) > 3 {
		t.Fatalf("small-range estimate %v for 100", e)
	}
}

func TestMeasure(t *testing.T) {
	for _, c := range []struct {
		text          string
		chars, tokens int64
		grams         int
	}{
		{"Hello, Mr. Kim!  How are you?", 23, 6, 6},
		{"你好，世界。", 6, 4, 4},
		{"안녕하세요, 김 선생님.", 11, 3, 3},
		{"こんにちは OK", 7, 6, 6},
		{"— ... !", 5, 0, 0},
		{"", 0, 0, 0},
		{"Café CAFÉ", 8, 2, 2},
	} {
		var buf []byte
		var hs []uint64
		chars, tokens := measure(c.text, &buf, func(h uint64) { hs = append(hs, h) })
		if chars != c.chars || tokens != c.tokens || len(hs) != c.grams {
			t.Errorf("measure(%q) = %d chars, %d tokens, %d grams; want %d, %d, %d", c.text, chars, tokens, len(hs), c.chars, c.tokens, c.grams)
		}
		if c.text == "Café CAFÉ" && hs[0] != hs[1] {
			t.Errorf("tokens are not lower-cased: %x %x", hs[0], hs[1])
		}
	}
}

func collect(t *testing.T, recs ...*record.Record) *Report {
	t.Helper()
	return collectAt(t, 0, recs...)
}

// collectAt collects at a near-duplicate threshold (0: the default).
func collectAt(t *testing.T, dupThreshold float64, recs ...*record.Record) *Report {
	t.Helper()
	a := &audit.Audit{MinTurns: 5, MaxTurns: 15, MinLangShare: 0.8}
	c := NewCollector()
	c.DupThreshold = dupThreshold
	for _, r := range recs {
		a.Record(r)
		c.Add(r)
	}
	return c.Report()
}

func defectIDs(r *Report) map[string][]string {
	m := map[string][]string{}
	for _, d := range r.Defects {
		if d.Count != int64(len(d.IDs))+d.More {
			panic("count and ids disagree")
		}
		m[d.Name] = d.IDs
	}
	return m
}

// TestEveryDefectClass builds one record per defect class that ngstats
// finds itself, plus records carrying the defects earlier stages found, and
// checks each is counted against exactly the right ids.
func TestEveryDefectClass(t *testing.T) {
	rec := func(id string, lines ...string) *record.Record {
		return &record.Record{ID: id, Culture: "american", Lang: "en", DialogueType: "adherence", Scenario: "scenario of " + id, Turns: statstest.Turns(lines...)}
	}
	withText := func(id string, i int, text string) *record.Record {
		r := rec(id, statstest.GoodEN...)
		r.Turns[i].Text = text
		return r
	}
	good := rec("good", statstest.GoodEN...)
	dup := rec("dup", statstest.GoodEN...)
	near := rec("near", statstest.GoodEN...)
	for i := range near.Turns {
		near.Turns[i].Text = strings.ToUpper(near.Turns[i].Text) + " !!"
		near.Turns[i].Speaker = "X" + near.Turns[i].Speaker
	}
	scenDup := rec("scendup", "Ann: A different first line here, truly.", statstest.GoodEN[1], statstest.GoodEN[2], statstest.GoodEN[3], statstest.GoodEN[4])
	scenDup.Scenario = good.Scenario
	scenNear := rec("scennear", "Ann: Another first line, quite unlike.", statstest.GoodEN[1], statstest.GoodEN[2], statstest.GoodEN[3], statstest.GoodEN[4])
	scenNear.Scenario = "SCENARIO of good!!"
	otherType := rec("othertype", "Ann: Yet another opening for a new type.", statstest.GoodEN[1], statstest.GoodEN[2], statstest.GoodEN[3], statstest.GoodEN[4])
	otherType.Scenario, otherType.DialogueType = good.Scenario, "violation"
	few := rec("few", statstest.GoodEN[:3]...)
	many := rec("many", append(append(append([]string{}, statstest.GoodEN...), statstest.GoodEN...), append(statstest.GoodEN, statstest.GoodEN[0])...)...)
	single := rec("single", "Ann: Hello there.", "Ann: Is anyone here at all?", "Ann: I guess not, then.", "Ann: Oh well, goodbye.", "Ann: Talking to myself again.")
	empty := rec("emptyturn", statstest.GoodEN...)
	empty.Turns[2].Text = ""
	nonverbal := rec("nonverbal", "Ann: Good evening to you, sir.", statstest.GoodEN[1], statstest.GoodEN[2], statstest.GoodEN[3], statstest.GoodEN[4])
	nonverbal.Turns[2].Text, nonverbal.Turns[2].Action = "", "nods"
	wrong := &record.Record{ID: "wronglang", Culture: "korean", Lang: "ko", Turns: statstest.Turns(append(statstest.GoodEN[1:], "Ben: Goodbye then, see you soon.")...)}
	failed := &record.Record{ID: "failed", Culture: "american", Lang: "en",
		Checks: &record.Checks{Defects: []string{record.DefectFailedGeneration, record.DefectEmptyDialogue, "placeholder"}}}
	noTurns := &record.Record{ID: "noturns", Culture: "american"}
	noTurns.SetExtra("dialogue", "")
	seed := &record.Record{ID: "seed", Culture: "american", DialogueType: "adherence", Scenario: "a seed, no dialogue yet"}
	oneWord := rec("oneword", "Ann: 12345", "Ben: Malike", "Ann: Maria", "Ben: Jessica", "Ann: Anna")
	recs := []*record.Record{good, dup, near, scenDup, scenNear, otherType, few, many, single, empty, nonverbal, wrong, failed, noTurns, seed, oneWord,
		withText("endmarker", 4, "I have been well, thanks. [END]"),
		withText("endmarker2", 4, "잘 지냈어요 [끝]"),
		withText("header", 0, "Dialogue:\nHello there, how are you doing today?"),
		withText("separator", 4, "I have been well.\n---"),
		withText("newline", 1, `I am fine.\nBen: thank you.`),
		withText("markdown", 1, "I am **fine**, thank you."),
	}
	r := collectAt(t, 0.9, recs...)
	want := map[string][]string{
		audit.DefectDuplicateDialogue: {"dup"},
		// At --dup-threshold 0.9 (below), the variants of goodEN with one
		// turn of five rewritten are not near-duplicates; "near", goodEN
		// three times over, and goodEN with a marker added to one turn
		// are (the markers' punctuation is not compared); "markdown" also
		// drops "for asking" (exact Jaccard 0.89: not one).
		audit.DefectNearDupDialogue:   {"near", "many", "endmarker", "header", "separator"},
		audit.DefectDuplicateScenario: {"scendup"},
		// "scenario of endmarker2" is "scenario of endmarker" and a digit.
		audit.DefectNearDupScenario: {"scennear", "endmarker2"},
		audit.DefectTooFewTurns:     {"few"},
		audit.DefectTooManyTurns:    {"many"},
		audit.DefectSingleSpeaker:   {"single"},
		audit.DefectEmptyTurn:       {"emptyturn"},
		audit.DefectWrongLanguage:   {"wronglang"},
		// ngv2r's turn rules: goodEN said again, the English speakers of
		// a Korean dialogue, names and numbers for turns
		audit.DefectRepeatedTurn:      {"many"},
		audit.DefectNameScript:        {"wronglang"},
		audit.DefectOneWordTurns:      {"oneword"},
		record.DefectFailedGeneration: {"failed"},
		record.DefectEmptyDialogue:    {"failed", "noturns"},
		"placeholder":                 {"failed"},
		record.DefectEndMarker:        {"endmarker", "endmarker2"},
		record.DefectHeader:           {"header"},
		record.DefectSeparator:        {"separator"},
		record.DefectLiteralNewline:   {"newline"},
		record.DefectMarkdown:         {"markdown"},
	}
	got := defectIDs(r)
	for name, ids := range want {
		if !slices.Equal(got[name], ids) {
			t.Errorf("%s: ids %v, want %v", name, got[name], ids)
		}
		delete(got, name)
	}
	for name, ids := range got {
		t.Errorf("unexpected defect %s on %v", name, ids)
	}
	if r.Records != int64(len(recs)) || r.Dialogues != int64(len(recs)-3) {
		t.Errorf("records %d dialogues %d", r.Records, r.Dialogues)
	}
	// good, otherType, nonverbal and seed have no defect.
	if r.RecordsWithDefects != r.Records-4 {
		t.Errorf("records with defects %d of %d, want all but 4", r.RecordsWithDefects, r.Records)
	}
	for _, d := range r.Defects {
		if d.Help == "" || d.Kind == "" || d.Rate != float64(d.Count)/float64(r.Records) {
			t.Errorf("defect %+v lacks help, kind or rate", d)
		}
	}
}

func TestDefectIDsAreBounded(t *testing.T) {
	c := NewCollector()
	c.IDs = 3
	for i := range 10 {
		c.Add(&record.Record{ID: string(rune('a' + i)), Checks: &record.Checks{Defects: []string{"end_marker", "a_new_kind"}}})
	}
	r := c.Report()
	for _, d := range r.Defects {
		if d.Count != 10 || len(d.IDs) != 3 || d.More != 7 || !slices.Equal(d.IDs, []string{"a", "b", "c"}) {
			t.Errorf("%+v", d)
		}
		if d.Name == "a_new_kind" && d.Kind != "other" {
			t.Errorf("unknown defect kind %q", d.Kind)
		}
	}
}

func TestLanguageConsistency(t *testing.T) {
	ko := &record.Record{ID: "ko1", Culture: "korean", Lang: "ko", Turns: statstest.Turns(
		"민수: 안녕하세요, 선생님. 오늘 날씨가 참 좋네요.", "선생님: 그래, 민수야. 오랜만이구나.",
		"민수: Sorry, I forgot my homework at home today.", "선생님: 괜찮아, 내일 가져오렴.", "민수: 네, 감사합니다!", "선생님: OK")}
	zh := &record.Record{ID: "zh1", Culture: "chinese", Turns: statstest.Turns(
		"小王: 你好，李老师，好久不见了。", "李老师: 是啊，最近工作怎么样？", "小王: 还不错，谢谢您的关心。", "李老师: 那就好。", "小王: 下次再聊！")}
	r := collect(t, ko, zh)
	if len(r.Language) != 2 {
		t.Fatalf("language %+v", r.Language)
	}
	c, k := r.Language[0], r.Language[1]
	if c.Culture != "chinese" || c.Expected != "zh" || c.Share != 1 || c.Matching != 5 || len(c.Mismatches) != 0 {
		t.Errorf("chinese: %+v (expected language from the culture)", c)
	}
	if k.Culture != "korean" || k.Expected != "ko" || k.Turns != 6 || k.Confident != 5 || k.Matching != 4 || k.RecordsBelow != 0 {
		t.Errorf("korean: %+v", k)
	}
	if len(k.Mismatches) != 1 || k.Mismatches[0].Detected != "en" || k.Mismatches[0].Examples[0] != (Example{ID: "ko1", Turn: 2, Text: "Sorry, I forgot my homework at home today."}) {
		t.Errorf("korean mismatches: %+v", k.Mismatches)
	}
	if ko.Checks == nil || ko.Checks.LangShare != 0.8 || ko.Checks.LangOK == nil || !*ko.Checks.LangOK || ko.Turns[5].Lang != "" || ko.Turns[2].Lang != "en" {
		t.Errorf("audit of ko1: %+v, turns %+v", ko.Checks, ko.Turns)
	}
}

// TestCountsAndLabels (render's TestQualityFitColumn shows the fit).
func TestCountsAndLabels(t *testing.T) {
	r := collect(t, statstest.CountsAndLabelsRecords()...)
	if got := r.Counts.ByCulture; len(got) != 2 || got[0] != (Count{Key: "american", Records: 2, Dialogues: 2, Turns: 7}) || got[1] != (Count{Key: "chinese", Records: 1}) {
		t.Errorf("by culture %+v", got)
	}
	if got := r.Counts.ByCultureType; len(got) != 3 || got[0].Key != "american/adherence" || got[2].Key != "chinese/" {
		t.Errorf("by culture/type %+v", got)
	}
	if r.TurnsPerDialogue.N != 2 || r.TurnsPerDialogue.Mean != 3.5 || r.TurnsPerDialogue.Max != 5 {
		t.Errorf("turns per dialogue %+v", r.TurnsPerDialogue)
	}
	if r.Labels == nil {
		t.Fatal("no labels")
	}
	var norms []string
	for _, d := range r.Labels.Dist {
		if d.Task == "norm" {
			norms = append(norms, d.Group)
			if d.Group == "all" && (d.Turns != 3 || d.Counts["adhered"] != 2 || d.Counts["violated"] != 1) {
				t.Errorf("norm/all %+v", d)
			}
		}
	}
	if !slices.Equal(norms, []string{"all", "american/adherence", "american/v2r"}) {
		t.Errorf("norm groups %v", norms)
	}
	q := r.Labels.Quality
	if len(q) != 3 || q[0].Group != "all" || q[0].N != 2 || q[0].Naturalness != 4.5 || q[0].Norm != 3 || q[0].Coherence != 0 || q[0].Fit != 2 || q[1].Fit != 0 {
		t.Errorf("quality %+v", q)
	}
}

func TestSameSpeakerAndSpeakers(t *testing.T) {
	r := collect(t, &record.Record{ID: "x", Turns: statstest.Turns("A: one two", "A: three", "B: four", "C: five", "C: six", "C: seven")})
	if r.SameSpeaker != (SameSpeaker{Pairs: 3, Dialogues: 1}) || r.SpeakersPerDialogue.Max != 3 {
		t.Errorf("same speaker %+v speakers %+v", r.SameSpeaker, r.SpeakersPerDialogue)
	}
}

func TestFailOn(t *testing.T) {
	ts, err := ParseFailOn("end_marker=0.01, wrong_language=2%,any=0.5")
	if err != nil || len(ts) != 3 || ts[1].Max != 0.02 || ts[2].Defect != AnyDefect {
		t.Fatalf("%+v %v", ts, err)
	}
	r := &Report{Records: 100, RecordsWithDefects: 40, Defects: []Defect{{Name: "end_marker", Count: 2, Rate: 0.02}}}
	if !ApplyFailOn(r, ts) || !r.FailOn[0].Exceeded || r.FailOn[1].Exceeded || r.FailOn[2].Exceeded || r.FailOn[2].Rate != 0.4 {
		t.Fatalf("%+v", r.FailOn)
	}
	for _, bad := range []string{"end_marker", "nosuch=0.1", "end_marker=x", "end_marker=2", "end_marker=-1", ","} {
		if _, err := ParseFailOn(bad); err == nil {
			t.Errorf("ParseFailOn(%q) accepted", bad)
		}
	}
}
