package dialogue

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/ngkit/ngkit/pkg/dialogue/internal/lex"
)

// releaseRecord is one object of the NormGenesis release files.
type releaseRecord struct {
	Dialogue      string `json:"dialogue"`
	ParsingFailed bool   `json:"parsing_failed"`
}

type releaseDialogue struct {
	file  string
	index int
	text  string
}

// releaseDir finds the NormGenesis release: $NG_RELEASE_DIR, or
// ../shared/data/normgenesis beside the repository. CI checks out only the
// repository, so tests that need it skip when it is absent.
func releaseDir(tb testing.TB) string {
	tb.Helper()
	dirs := []string{os.Getenv("NG_RELEASE_DIR"), filepath.Join("..", "..", "..", "shared", "data", "normgenesis")}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		if m, _ := filepath.Glob(filepath.Join(d, "*.json")); len(m) > 0 {
			return d
		}
	}
	tb.Skip("NormGenesis release not found (set NG_RELEASE_DIR)")
	return ""
}

func loadRelease(tb testing.TB) []releaseDialogue {
	tb.Helper()
	dir := releaseDir(tb)
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	sort.Strings(files)
	var out []releaseDialogue
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		var recs []releaseRecord
		if err := json.Unmarshal(b, &recs); err != nil {
			tb.Fatalf("%s: %v", f, err)
		}
		for i, r := range recs {
			out = append(out, releaseDialogue{filepath.Base(f), i, r.Dialogue})
		}
	}
	return out
}

// letters returns the multiset of letters and digits of s: what a parser
// must not lose.
func letters(s string, m map[rune]int, sign int) {
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			m[r] += sign
		}
	}
}

// checkAccounted checks that every letter of text is in the result (a
// turn, narration, unplaced) or in a piece the parser removed on purpose
// (an end marker, a header, reasoning), and that nothing was added. It
// returns the input lines whose letters are not all accounted for.
func checkAccounted(text string, res Result, tr *trace) (lost []string) {
	if res.Removed != len(tr.removed) { // what importers report in checks.removed
		return []string{fmt.Sprintf("Result.Removed is %d, the parser removed %d pieces", res.Removed, len(tr.removed))}
	}
	pool := map[rune]int{} // letters of the output, used up line by line
	for _, d := range res.Dialogues {
		for _, t := range d.Turns {
			letters(t.Speaker, pool, 1)
			letters(t.Action, pool, 1)
			letters(t.Text, pool, 1)
		}
		for _, n := range d.Narration {
			letters(n, pool, 1)
		}
	}
	for _, u := range res.Unplaced {
		// unplaced lines are kept verbatim, end markers included; the
		// markers are taken from the input lines below
		for _, mk := range lex.EndMarkers {
			u = strings.ReplaceAll(u, mk, " ")
		}
		letters(u, pool, 1)
	}
	for _, r := range tr.removed {
		if r != endMarkerTrace { // end markers are taken from the lines below
			// reasoning is removed before escapes are undone: count
			// its letters as the input's are counted
			letters(unescapeAll(r), pool, 1)
		}
	}
	// a JSON envelope's strings count as they decode ("\\b", "\\u0062")
	for _, d := range tr.decoded {
		text = strings.Replace(text, d[0], d[1], 1)
	}
	norm := unescapeAll(lex.Normalize(text))
	for line := range strings.SplitSeq(norm, "\n") {
		rest := line
		for _, mk := range lex.EndMarkers {
			rest = strings.ReplaceAll(rest, mk, " ")
		}
		if strings.TrimSpace(rest) == "[END" {
			rest = ""
		}
		need := map[rune]int{}
		letters(rest, need, 1)
		ok := true
		for r, n := range need {
			if pool[r] < n {
				ok = false
			}
		}
		if !ok {
			lost = append(lost, strings.TrimSpace(line))
			continue
		}
		for r, n := range need {
			pool[r] -= n
		}
	}
	for _, n := range pool {
		if n != 0 {
			return append(lost, "(letters added)")
		}
	}
	return lost
}

func TestRelease(t *testing.T) {
	recs := loadRelease(t)
	defects := map[string]int{}
	unplaced, turns, dialogues, narration := 0, 0, 0, 0
	var unplacedLines []string
	for _, r := range recs {
		tr := &trace{}
		res := parse(r.text, "", tr)
		for _, d := range res.Defects {
			defects[d]++
		}
		if r.text == "" && (len(res.Defects) != 1 || res.Defects[0] != "empty_dialogue") {
			t.Errorf("%s[%d]: empty text: defects %v", r.file, r.index, res.Defects)
		}
		for _, d := range res.Dialogues {
			dialogues++
			turns += len(d.Turns)
			narration += len(d.Narration)
			for i, tn := range d.Turns {
				if tn.Index != i || tn.Speaker == "" {
					t.Errorf("%s[%d]: bad turn %d: %+v", r.file, r.index, i, tn)
				}
			}
		}
		unplaced += len(res.Unplaced)
		for _, u := range res.Unplaced {
			unplacedLines = append(unplacedLines, r.file+"["+itoa(r.index)+"]: "+u)
		}
		if lost := checkAccounted(r.text, res, tr); lost != nil {
			t.Errorf("%s[%d]: lines not accounted for: %q", r.file, r.index, lost)
		}
	}
	names := make([]string, 0, len(defects))
	for d := range defects {
		names = append(names, d)
	}
	sort.Strings(names)
	for _, d := range names {
		t.Logf("defect %-20s %5d", d, defects[d])
	}
	t.Logf("%d texts, %d dialogues, %d turns, %d narration lines, %d unplaced lines", len(recs), dialogues, turns, narration, unplaced)
	for _, u := range unplacedLines {
		t.Logf("unplaced: %s", u)
	}
	// a handful at most: each one is a line a human could not place either
	if unplaced > 5 { // the figure before the speaker forms; keep it at least as good
		t.Errorf("%d unplaced lines", unplaced)
	}
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b [20]byte
	n := len(b)
	for i > 0 {
		n--
		b[n] = byte('0' + i%10)
		i /= 10
	}
	return string(b[n:])
}

// TestReleaseRoundTrip: Parse(Render(d)) gives back d for every dialogue of
// the release.
func TestReleaseRoundTrip(t *testing.T) {
	recs := loadRelease(t)
	bad := 0
	for _, r := range recs {
		res := Parse(r.text)
		for k, d := range res.Dialogues {
			if msg := roundTrip(d); msg != "" {
				bad++
				if bad <= 20 {
					t.Errorf("%s[%d] dialogue %d: %s", r.file, r.index, k, msg)
				}
			}
		}
	}
}

func BenchmarkParseRelease(b *testing.B) {
	recs := loadRelease(b)
	size := 0
	for _, r := range recs {
		size += len(r.text)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, r := range recs {
			Parse(r.text)
		}
	}
	b.ReportMetric(float64(b.N)*float64(len(recs))/b.Elapsed().Seconds(), "dialogues/s")
}

// TestCheckAccounted: the whole-release check does fail when a line is lost
// or text is added.
func TestCheckAccounted(t *testing.T) {
	text := "Mike: (smiling) Hi\\n(They sit.)\\nSarah: Hello\\n[END]"
	tr := &trace{}
	res := parse(text, "", tr)
	if lost := checkAccounted(text, res, tr); lost != nil {
		t.Fatalf("good parse reported lost lines %q", lost)
	}
	d := res.Dialogues[0]
	dropped := Result{Dialogues: []Dialogue{{Turns: d.Turns[:1], Narration: d.Narration}}, Removed: res.Removed}
	if lost := checkAccounted(text, dropped, tr); len(lost) != 1 || lost[0] != "Sarah: Hello" {
		t.Errorf("dropped turn: lost %q", lost)
	}
	noNarr := Result{Dialogues: []Dialogue{{Turns: d.Turns}}, Removed: res.Removed}
	if lost := checkAccounted(text, noNarr, tr); len(lost) != 1 || lost[0] != "(They sit.)" {
		t.Errorf("dropped narration: lost %q", lost)
	}
	extra := Result{Dialogues: []Dialogue{{Turns: d.Turns, Narration: append(d.Narration, "x")}}, Removed: res.Removed}
	if lost := checkAccounted(text, extra, tr); lost == nil {
		t.Error("added text not reported")
	}
	if res.Removed != 1 { // the [END] marker
		t.Errorf("Removed = %d, want 1", res.Removed)
	}
	uncounted := res
	uncounted.Removed = 0
	if lost := checkAccounted(text, uncounted, tr); lost == nil {
		t.Error("a removed piece not counted in Removed was not reported")
	}
}
