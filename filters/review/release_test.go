package review

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/ngkit/ngkit/filters/imports"
)

// Every dialogue of the NormGenesis sample (always) and of the whole
// release (when ../shared/data/normgenesis or $NG_RELEASE_DIR has it)
// exports to Argilla within its server's ChatField limits
// (argilla-server api/schemas/v1/chat.py: role 1-20 characters, no
// whitespace in older servers; content 1-20,000) and reads back as the
// same turns; and to Label Studio with a region on a turn that exists.
func TestReleaseDialoguesExport(t *testing.T) {
	sample, _ := filepath.Glob("../../testdata/normgenesis/*.json")
	if len(sample) == 0 {
		t.Fatal("no testdata/normgenesis")
	}
	checkExports(t, "testdata/normgenesis", sample)
	dir := os.Getenv("NG_RELEASE_DIR")
	if dir == "" {
		dir = "../../../shared/data/normgenesis"
	}
	release, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	switch {
	case len(release) == 0:
		t.Logf("the release is not in %s (set NG_RELEASE_DIR): checked the sample only", dir)
	case testing.Short() || raceEnabled:
		t.Log("the whole release is not read with -short or -race: checked the sample only")
	default:
		checkExports(t, dir, release)
	}
}

func checkExports(t *testing.T, name string, files []string) {
	recs, err := imports.ReadNormGenesis(files)
	if err != nil {
		t.Fatal(err)
	}
	toArgilla, toLS := Argilla(DefaultReviewTasks()), LabelStudio(DefaultReviewTasks())
	turns, bad := 0, 0
	for _, r := range recs {
		for _, a := range toArgilla(r) {
			for i, m := range a.Fields.Dialogue {
				turns++
				if n := utf8.RuneCountInString(m.Role); n < 1 || n > 20 || strings.IndexFunc(m.Role, unicode.IsSpace) >= 0 {
					bad++
					t.Errorf("%s: record %s turn %d: role %q outside Argilla's limits", name, r.ID, i, m.Role)
				}
				if n := utf8.RuneCountInString(m.Content); n < 1 || n > 20000 {
					bad++
					t.Errorf("%s: record %s turn %d: content of %d characters", name, r.ID, i, n)
				}
			}
			b, _ := json.Marshal(a)
			back, err := DecodeArgilla(b)
			if err != nil {
				t.Fatalf("%s: record %s: %v", name, r.ID, err)
			}
			for i, tu := range back.Turns {
				o := r.Turns[i]
				if tu.Speaker != o.Speaker || turnText(tu) != turnText(o) {
					t.Fatalf("%s: record %s turn %d: read back as %q %q, was %q %q", name, r.ID, i, tu.Speaker, turnText(tu), o.Speaker, turnText(o))
				}
			}
		}
		for _, task := range toLS(r) {
			if len(task.Data.Dialogue) != len(r.Turns) {
				t.Fatalf("%s: record %s: %d paragraphs for %d turns", name, r.ID, len(task.Data.Dialogue), len(r.Turns))
			}
		}
	}
	t.Logf("%s: %d dialogues, %d turns, %d outside Argilla's limits", name, len(recs), turns, bad)
}
