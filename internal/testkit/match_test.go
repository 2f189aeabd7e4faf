package testkit

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestRecordCheck(t *testing.T) {
	data := []byte(`{"id":"a","n":3,"turns":[{"speaker":"Mike","text":"hi"}],"tags":["x"]}` + "\n" +
		`{"id":"b","n":4,"turns":[{"speaker":"Ann","text":"yo [END]"}]}` + "\n")
	for _, c := range []struct {
		spec string
		bad  []string // substrings of the failures, in order; none: it holds
	}{
		{spec: `{count: 2, unique: [id], all: [{path: turns.*.speaker, exists: true}]}`},
		{spec: `{at: {0: [{path: n, equals: 3}, {path: turns.0.speaker, equals: Mike}, {path: tags, contains: x}, {path: turns, len: 1}]}}`},
		{spec: `{some: [{where: [{path: tags, exists: true}], count: 1}], all: [{path: id, matches: "[ab]"}]}`},
		{spec: `{at: {0: [{path: turns.0.text, same_as: tags.0}]}}`, bad: []string{`record 0: turns.0.text is ["hi"], tags.0 is ["x"]`}},
		{spec: `{at: {1: [{path: id, same_as: id}]}}`},
		{spec: `{all: [{path: n, between: [3, 4]}]}`},
		{spec: `{all: [{path: n, between: [3.5, 4]}]}`, bad: []string{"record 0: n is 3: want a number from 3.5 to 4"}},
		{spec: `{count: 3}`, bad: []string{"2 records, want 3"}},
		{spec: `{min: 3}`, bad: []string{"want at least 3"}},
		{spec: `{all: [{path: turns.*.text, excludes: "[END]"}]}`, bad: []string{`record 1: turns.*.text is "yo [END]"`}},
		{spec: `{all: [{path: n, equals: 3}]}`, bad: []string{"record 1: n is 4: want 3"}},
		{spec: `{all: [{path: tags, exists: false}]}`, bad: []string{"record 0: tags: exists is true"}},
		{spec: `{at: {0: [{path: nothing.here, equals: 1}]}, unique: [turns.0.text]}`, bad: []string{"record 0: no nothing.here"}},
		{spec: `{at: {5: []}}`, bad: []string{"no record 5"}},
	} {
		var rc RecordCheck
		if err := yaml.Unmarshal([]byte(c.spec), &rc); err != nil {
			t.Fatal(err)
		}
		bad := rc.Check(data)
		if len(bad) != len(c.bad) {
			t.Errorf("%s: %q, want %q", c.spec, bad, c.bad)
			continue
		}
		for i := range bad {
			if !strings.Contains(bad[i], c.bad[i]) {
				t.Errorf("%s: %q, want %q", c.spec, bad[i], c.bad[i])
			}
		}
	}
	var rc RecordCheck
	if bad := rc.Check([]byte("{\"id\":\n")); len(bad) != 1 || !strings.Contains(bad[0], "value 1") {
		t.Errorf("malformed: %q", bad)
	}
}

func TestFileCheck(t *testing.T) {
	n := 2
	fc := FileCheck{Has: []string{"a"}, Lacks: []string{"z"}, Lines: &n, SameAs: "x", Differs: "y", Matches: "a\n.*\n"}
	if bad := fc.Check([]byte("a\nb\n"), []byte("a\nb\n"), []byte("b\n")); len(bad) != 0 {
		t.Errorf("%q", bad)
	}
	if bad := fc.Check([]byte("z\n"), []byte("a\nb\n"), []byte("z\n")); len(bad) != 6 {
		t.Errorf("%q", bad)
	}
}
