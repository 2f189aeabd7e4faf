package imports

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
	"unicode"

	"github.com/ngkit/ngkit/pkg/record"
)

func splitAll(in, sep string, max int) ([]string, []int64, error) {
	s := newTextSplitter(bufio.NewReaderSize(iotest.HalfReader(strings.NewReader(in)), 16), sep, max)
	var texts []string
	var lines []int64
	for {
		b, line, err := s.Next()
		if errors.Is(err, io.EOF) {
			return texts, lines, nil
		}
		if err != nil {
			return texts, lines, err
		}
		texts = append(texts, string(b))
		lines = append(lines, line)
	}
}

func TestTextSplitter(t *testing.T) {
	in := "\ufeff\n\nA: hi\r\nB: hello there, a line longer than the reader's buffer\n  \nA: bye\n---\n\nC: new\n\n\n  ---  \nD: x\nE: y\n"
	cases := []struct {
		sep   string
		texts []string
		lines []int64
	}{
		{SeparatorBlank, []string{"A: hi\nB: hello there, a line longer than the reader's buffer", "A: bye\n---", "C: new", "  ---  \nD: x\nE: y"}, []int64{3, 6, 9, 12}},
		{"---", []string{"A: hi\nB: hello there, a line longer than the reader's buffer\n  \nA: bye", "C: new", "D: x\nE: y"}, []int64{3, 9, 13}},
		{SeparatorNone, []string{"A: hi\nB: hello there, a line longer than the reader's buffer\n  \nA: bye\n---\n\nC: new\n\n\n  ---  \nD: x\nE: y"}, []int64{3}},
	}
	for _, c := range cases {
		texts, lines, err := splitAll(in, c.sep, 1<<20)
		if err != nil {
			t.Fatalf("%s: %v", c.sep, err)
		}
		if !reflect.DeepEqual(texts, c.texts) || !reflect.DeepEqual(lines, c.lines) {
			t.Errorf("%s:\n got %q %v\nwant %q %v", c.sep, texts, lines, c.texts, c.lines)
		}
	}
	if texts, _, err := splitAll("\n \n\t\n", SeparatorBlank, 1<<20); err != nil || len(texts) != 0 {
		t.Errorf("blank input: %q %v", texts, err)
	}
	if _, _, err := splitAll("A: hi\nB: caf\xe9\n", SeparatorBlank, 1<<20); err == nil || !strings.Contains(err.Error(), "not UTF-8 text (invalid byte at column 7)") {
		t.Errorf("latin-1: %v", err)
	}
	if _, _, err := splitAll("A: hi\nB: hello\nA: more\n", SeparatorNone, 12); err == nil || !strings.Contains(err.Error(), "longer than") {
		t.Errorf("too long: %v", err)
	}
}

func TestTextSource(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a.txt", "Mike: Hi, Sarah.\nSarah: (smiling) Hello!\n[END]\n\nTom: Sorry I'm late.\nAnn: No problem.\n")
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	b := writeFile(t, sub, "a.txt", "Ben: Thanks for dinner.\nAmy: Any time.\n")
	recs, err := drain(mustText(t, []string{a, b}, TextOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 {
		t.Fatalf("%d records", len(recs))
	}
	r := recs[0]
	if len(r.Turns) != 2 || r.Turns[1].Speaker != "Sarah" || r.Turns[1].Action != "smiling" || r.Turns[1].Text != "Hello!" {
		t.Errorf("turns: %+v", r.Turns)
	}
	if r.Checks == nil || !has(r.Checks.Defects, record.DefectEndMarker) {
		t.Errorf("defects: %+v", r.Checks)
	}
	if string(r.Extra["dialogue"]) != `"Mike: Hi, Sarah.\nSarah: (smiling) Hello!\n[END]"` || string(r.Extra["source_index"]) != "0" ||
		string(r.Extra["source_file"]) != `"`+filepath.ToSlash(a)+`"` || string(recs[1].Extra["source_index"]) != "1" {
		t.Errorf("extra: %s / %s", r.Extra, recs[1].Extra)
	}
	if r.ID != record.NewID("text", filepath.ToSlash(a), "0") || recs[2].ID != record.NewID("text", filepath.ToSlash(b), "0") {
		t.Errorf("ids: %s %s", r.ID, recs[2].ID)
	}
	for _, x := range recs {
		if err := x.Validate(); err != nil {
			t.Error(err)
		}
	}

	// A separator line; blank lines inside a dialogue are then its own.
	c := writeFile(t, dir, "c.txt", "A: one\n\nB: two\n===\nC: three\nD: four\n===\n")
	recs, err = drain(mustText(t, []string{c}, TextOptions{Separator: "==="}))
	if err != nil || len(recs) != 2 || len(recs[0].Turns) != 2 || recs[1].Turns[1].Text != "four" {
		t.Fatalf("separator: %v %+v", err, recs)
	}
	recs, err = drain(mustText(t, []string{c}, TextOptions{Separator: SeparatorNone}))
	if err != nil || len(recs) != 1 {
		t.Fatalf("one per file: %v %d", err, len(recs))
	}

	// Stdin, gzip-free; a dialogue no parser can read is kept, flagged.
	recs, err = drain(mustText(t, nil, TextOptions{Stdin: strings.NewReader("just some words\n")}))
	if err != nil || len(recs) != 1 || recs[0].Checks == nil || !has(recs[0].Checks.Defects, record.DefectEmptyDialogue) ||
		string(recs[0].Extra["source_file"]) != `"stdin"` {
		t.Fatalf("stdin: %v %+v", err, recs)
	}

	// Errors name the file (and line).
	pq := filepath.Join(dir, "rows.parquet")
	writeColumnar(t, pq, readHubRows(t, prosocialSample))
	for _, c := range []struct{ path, want string }{
		{writeFile(t, dir, "empty.txt", "\n\n"), "empty.txt: no dialogue in it"},
		{writeFile(t, dir, "latin1.txt", "A: hi\n\nB: caf\xe9\n"), "latin1.txt:line 3: not UTF-8 text"},
		{pq, "rows.parquet: this is parquet, not text"},
		{filepath.Join(dir, "missing.txt"), "missing.txt: no such file"},
	} {
		_, err := drain(mustText(t, []string{a, c.path}, TextOptions{}))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.path, err, c.want)
		}
	}
	if _, err := NewText(nil, TextOptions{Separator: "a\nb"}); err == nil {
		t.Error("a separator of two lines accepted")
	}
}

func mustText(t *testing.T, names []string, opt TextOptions) *Text {
	t.Helper()
	src, err := NewText(names, opt)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// FuzzTextSplitter: every non-blank, non-separator line of valid UTF-8
// input lands in exactly one dialogue, in order, and no dialogue holds a
// separator or starts or ends blank (but for the empty dialogue between two
// separator lines).
func FuzzTextSplitter(f *testing.F) {
	f.Add([]byte("A: hi\nB: yo\n\nC: x\n"), "")
	f.Add([]byte("\ufeffA: hi\r\n---\r\nB: yo"), "---")
	f.Add([]byte("A\n \n\t\nB"), "none")
	f.Add([]byte("x\n== \n==\n"), "==")
	f.Fuzz(func(t *testing.T, in []byte, sep string) {
		if strings.ContainsAny(sep, "\r\n") {
			return
		}
		if strings.TrimSpace(sep) == "" {
			sep = SeparatorBlank
		}
		texts, lines, err := splitAll(string(in), sep, 1<<20)
		if err != nil {
			if bytes.ContainsRune(in, '\n') && !strings.Contains(err.Error(), "UTF-8") {
				t.Fatalf("error on small input: %v", err)
			}
			return
		}
		isSep := func(l string) bool {
			tr := strings.TrimSpace(l)
			return sep == SeparatorBlank && tr == "" || sep != SeparatorBlank && sep != SeparatorNone && tr == strings.TrimSpace(sep)
		}
		// The lines that must be kept, independently of the splitter.
		body := strings.TrimPrefix(string(in), "\ufeff")
		var want []string
		for _, l := range strings.Split(body, "\n") {
			l = strings.TrimSuffix(l, "\r")
			if strings.TrimSpace(l) != "" && !isSep(l) {
				want = append(want, l)
			}
		}
		// two separator lines with only blank lines between: an empty dialogue
		wantEmpty, prevSep := 0, false
		if sep != SeparatorBlank && sep != SeparatorNone {
			for _, l := range strings.Split(body, "\n") {
				switch {
				case isSep(l):
					if prevSep {
						wantEmpty++
					}
					prevSep = true
				case strings.TrimSpace(l) != "":
					prevSep = false
				}
			}
		}
		empty := 0
		for _, text := range texts {
			if text == "" {
				empty++
			}
		}
		if empty != wantEmpty {
			t.Fatalf("%d empty dialogues, want %d", empty, wantEmpty)
		}
		var got []string
		last := int64(0)
		for i, text := range texts {
			if lines[i] <= last {
				t.Fatalf("dialogue %d starts at line %d, after %d", i, lines[i], last)
			}
			last = lines[i]
			if text == "" && sep != SeparatorBlank && sep != SeparatorNone {
				continue // an empty dialogue between two separators
			}
			ls := strings.Split(text, "\n")
			if strings.TrimSpace(ls[0]) == "" || strings.TrimSpace(ls[len(ls)-1]) == "" && len(ls) > 1 {
				t.Fatalf("dialogue %d starts or ends blank: %q", i, text)
			}
			for _, l := range ls {
				if isSep(l) && sep != SeparatorBlank {
					t.Fatalf("dialogue %d holds the separator: %q", i, text)
				}
				if strings.TrimSpace(l) != "" {
					got = append(got, l)
				}
			}
		}
		// The last line of a dialogue loses trailing white space.
		for i := range want {
			if i < len(got) && strings.TrimRightFunc(want[i], unicode.IsSpace) == strings.TrimRightFunc(got[i], unicode.IsSpace) {
				got[i] = want[i]
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("lines:\n got %q\nwant %q", got, want)
		}
	})
}
