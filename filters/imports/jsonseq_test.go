package imports

import (
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func scanAll(t *testing.T, in string, bufSize int) ([]string, []int64, error) {
	t.Helper()
	s := newValueScanner(iotest.HalfReader(strings.NewReader(in)), 1<<20)
	if bufSize > 0 {
		s.buf = make([]byte, bufSize) // tiny buffers exercise refills mid-value
	}
	var vals []string
	var lines []int64
	for {
		v, line, err := s.Next()
		if errors.Is(err, io.EOF) {
			return vals, lines, nil
		}
		if err != nil {
			return vals, lines, err
		}
		vals = append(vals, string(v))
		lines = append(lines, line)
	}
}

func TestValueScanner(t *testing.T) {
	in := "[\n {\"a\": \"x]}\\\"{\"},\n {\"b\": [1, {\"c\": \"\\\\\"}]}\n]\n"
	for _, size := range []int{0, 1, 3, 7} {
		vals, lines, err := scanAll(t, in, size)
		if err != nil {
			t.Fatalf("buf %d: %v", size, err)
		}
		if len(vals) != 2 || vals[0] != `{"a": "x]}\"{"}` || vals[1] != `{"b": [1, {"c": "\\"}]}` || lines[0] != 2 || lines[1] != 3 {
			t.Errorf("buf %d: %q at lines %v", size, vals, lines)
		}
	}
	// JSONL works too.
	vals, lines, err := scanAll(t, "{\"a\":1}\n\n{\"a\":2}\n", 0)
	if err != nil || len(vals) != 2 || lines[1] != 3 {
		t.Errorf("jsonl: %q %v %v", vals, lines, err)
	}
	for in, want := range map[string]string{
		"[{\"a\":1},":      "array is not closed",
		"[{\"a\":1}] {}":   "after the end of the JSON array",
		"[{\"a\":\"unterm": "truncated",
		"[1, 2]":           "want a JSON object",
	} {
		if _, _, err := scanAll(t, in, 0); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
}

func FuzzValueScanner(f *testing.F) {
	f.Add([]byte(`[{"a":"b"},{"c":[1,2,{"d":"]"}]}]`))
	f.Add([]byte("{\"a\":1}\n{\"b\":\"\\\"\"}\n"))
	f.Add([]byte(`[{"dialogue":"A: hi\\nB: yo"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		s := newValueScanner(strings.NewReader(string(b)), 1<<16)
		s.buf = make([]byte, 16)
		for i := 0; i < 1000; i++ {
			v, _, err := s.Next()
			if err != nil {
				return
			}
			// Every value handed out is balanced; valid JSON ones decode.
			if v[0] != '{' && v[0] != '[' {
				t.Fatalf("value %q", v)
			}
			if json.Valid(v) {
				var x any
				if err := json.Unmarshal(v, &x); err != nil {
					t.Fatal(err)
				}
			}
		}
	})
}
