package normbank

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"unicode"
)

// FuzzParseProfile: any bytes give a valid profile or an error naming the
// file, never a panic.
func FuzzParseProfile(f *testing.F) {
	for _, name := range BuiltinCultures() {
		b, _ := cultureFiles.ReadFile("cultures/" + name + ".yaml")
		f.Add(b)
	}
	f.Add([]byte(validProfile))
	f.Add([]byte(`{"name":"x","lang":"en"}`))
	f.Add([]byte("name: &a [*a]\n"))
	f.Add([]byte("---\n---\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseProfile("f.yaml", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.yaml: ") {
				t.Errorf("error does not name the file: %v", err)
			}
			return
		}
		if err := c.Validate(); err != nil {
			t.Errorf("parsed profile does not validate: %v", err)
		}
	})
}

// FuzzNormLines: the line decoding of a norm list gives norms with every
// field set, or an error naming the line, never a panic.
func FuzzNormLines(f *testing.F) {
	f.Add([]byte(`{"culture":"thai","category":"greeting","norm":"A wai."}` + "\n"))
	f.Add([]byte(`{"culture":"thai","category":"greeting","norm":"A wai.","norm_id":"x"}` + "\n" + `{"culture":1}`))
	f.Add([]byte("\ufeff{}\n\n"))
	norms := unzstd("norms.jsonl", normsZst)
	f.Add(norms[:bytes.IndexByte(norms, '\n')+1])
	f.Fuzz(func(t *testing.T, data []byte) {
		ns, err := readNorms("f.jsonl", bytes.NewReader(data))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.jsonl:") {
				t.Errorf("error does not name the file: %v", err)
			}
			return
		}
		for _, n := range ns {
			if n.ID == "" || n.Culture == "" || n.Category == "" || n.Text == "" || n.Source == "" {
				t.Errorf("incomplete norm %+v", n)
			}
		}
	})
}

// FuzzSearch: any texts give scores in [0, 1], the same on a second index.
func FuzzSearch(f *testing.F) {
	f.Add("민수가 사과한다.", "小李道歉。", "Mike apologizes.")
	f.Add("", "\x00\xff", "  ")
	f.Fuzz(func(t *testing.T, a, b, q string) {
		pool := []Exemplar{ex("1", a, b), ex("2", b, q), ex("3", q, a)}
		m1 := NewIndex(pool).Search(q, 3)
		m2 := NewIndex([]Exemplar{pool[2], pool[0], pool[1]}).Search(q, 3)
		for i := range m1 {
			s := m1[i].Score
			if math.IsNaN(s) || s < 0 || s > 1+1e-9 {
				t.Errorf("score %v", s)
			}
			if m1[i].Exemplar.ID != m2[i].Exemplar.ID || s != m2[i].Score {
				t.Errorf("order depends on the pool's: %+v vs %+v", m1, m2)
			}
		}
	})
}

// FuzzSentences: Sentences never panics, and counts at most one sentence
// per letter, digit or quotation mark (every sentence has one; an opening
// quote counts as content, so "\"\"" is one sentence), none without any.
func FuzzSentences(f *testing.F) {
	for _, s := range []string{"Mr. Evans came. He left!", "你好！！你好吗？？", "สมชายมาสาย หัวหน้าถามว่าเกิดอะไรขึ้น", "“Hi.” Then", "ก ข", " ก", "ก ", "\xff ก"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := Sentences(s)
		letters := 0
		for _, r := range s {
			if _, quote := quoteClose[r]; quote || unicode.IsLetter(r) || unicode.IsDigit(r) {
				letters++
			}
		}
		if n < 0 || n > letters {
			t.Errorf("Sentences(%q) = %d with %d letters and digits", s, n, letters)
		}
	})
}
