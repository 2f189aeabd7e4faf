package testkit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/ngkit/ngkit/pkg/record"
)

// RecordCheck is what a stream of JSON values (JSONL records, or one
// JSON report) must hold: the records key of a CLI case (README.md).
// Absent fields are not checked.
type RecordCheck struct {
	Count *int `yaml:"count"` // how many values
	Min   *int `yaml:"min"`   // at least
	Max   *int `yaml:"max"`   // at most
	// Unique are paths whose values no two records share.
	Unique []string `yaml:"unique"`
	// All must hold for every record; At for the record at an index
	// (0-based).
	All []Match         `yaml:"all"`
	At  map[int][]Match `yaml:"at"`
	// Some counts the records that Where holds for.
	Some []Subset `yaml:"some"`
	// Valid: every value is a record that passes record.Validate.
	Valid bool `yaml:"valid"`
}

// Subset is a count of the records a list of matches holds for.
type Subset struct {
	Where []Match `yaml:"where"`
	Count *int    `yaml:"count"`
	Min   *int    `yaml:"min"`
	Max   *int    `yaml:"max"`
}

// Match is one test of the value at Path: dot-separated keys and array
// indexes ("turns.0.speaker"); "*" stands for every element of an array
// ("turns.*.text": each turn's text must pass, none at all passes too).
// Give one test or more.
type Match struct {
	Path string `yaml:"path" json:"path"`
	// Equals compares as JSON (a YAML 3 equals a JSON 3.0).
	Equals any `yaml:"equals" json:"equals,omitempty"`
	// Contains: a substring of a string, an element of an array, a key
	// of an object; Excludes its opposite.
	Contains any `yaml:"contains" json:"contains,omitempty"`
	Excludes any `yaml:"excludes" json:"excludes,omitempty"`
	// Exists false: the path leads nowhere; true: it leads somewhere.
	Exists *bool `yaml:"exists" json:"exists,omitempty"`
	// Len of an array, object or string (in characters).
	Len *int `yaml:"len" json:"len,omitempty"`
	// Matches is a regular expression a string must match in whole.
	Matches string `yaml:"matches" json:"matches,omitempty"`
	// Between [lo, hi]: a number from lo to hi (for figures that need not
	// be exact to the last bit).
	Between []float64 `yaml:"between" json:"between,omitempty"`
	// SameAs is another path of the record that must hold the same value.
	SameAs string `yaml:"same_as" json:"same_as,omitempty"`
}

// DecodeValues reads every JSON value of data, one after another (JSONL
// lines, or one indented report).
func DecodeValues(data []byte) ([]any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var out []any
	for n := 1; ; n++ {
		var v any
		if err := dec.Decode(&v); err == io.EOF {
			return out, nil
		} else if err != nil {
			return out, fmt.Errorf("value %d: %v", n, err)
		}
		out = append(out, v)
	}
}

// Check tests data against c; it returns what failed, one line each.
func (c *RecordCheck) Check(data []byte) []string {
	recs, err := DecodeValues(data)
	if err != nil {
		return []string{err.Error()}
	}
	var bad []string
	bad = append(bad, counted("records", len(recs), c.Count, c.Min, c.Max)...)
	for _, p := range c.Unique {
		seen := map[string]int{}
		for i, r := range recs {
			for _, v := range resolve(r, p) {
				k := jsonText(v)
				if j, ok := seen[k]; ok {
					bad = append(bad, fmt.Sprintf("records %d and %d have the same %s: %s", j, i, p, k))
				}
				seen[k] = i
			}
		}
	}
	if c.Valid {
		for i, l := range lines(data) {
			r := &record.Record{}
			if err := r.UnmarshalJSON(l); err != nil {
				bad = append(bad, fmt.Sprintf("line %d: %v", i, err))
			} else if err := r.Validate(); err != nil {
				bad = append(bad, fmt.Sprintf("line %d: %s: %v", i, r.ID, err))
			}
		}
	}
	for i, r := range recs {
		for _, m := range c.All {
			if why := m.test(r); why != "" {
				bad = append(bad, fmt.Sprintf("record %d: %s", i, why))
			}
		}
	}
	for i, ms := range c.At {
		if i >= len(recs) {
			bad = append(bad, fmt.Sprintf("no record %d (%d records)", i, len(recs)))
			continue
		}
		for _, m := range ms {
			if why := m.test(recs[i]); why != "" {
				bad = append(bad, fmt.Sprintf("record %d: %s", i, why))
			}
		}
	}
	for _, s := range c.Some {
		n := 0
		for _, r := range recs {
			if s.holds(r) {
				n++
			}
		}
		bad = append(bad, counted(fmt.Sprintf("records where %s", s.describe()), n, s.Count, s.Min, s.Max)...)
	}
	return bad
}

func counted(what string, n int, count, lo, hi *int) []string {
	switch {
	case count != nil && n != *count:
		return []string{fmt.Sprintf("%d %s, want %d", n, what, *count)}
	case lo != nil && n < *lo:
		return []string{fmt.Sprintf("%d %s, want at least %d", n, what, *lo)}
	case hi != nil && n > *hi:
		return []string{fmt.Sprintf("%d %s, want at most %d", n, what, *hi)}
	}
	return nil
}

func (s *Subset) holds(r any) bool {
	for _, m := range s.Where {
		if m.test(r) != "" {
			return false
		}
	}
	return true
}

func (s *Subset) describe() string {
	var parts []string
	for _, m := range s.Where {
		parts = append(parts, m.describe())
	}
	return strings.Join(parts, " and ")
}

func (m *Match) describe() string {
	b, _ := json.Marshal(m)
	return string(b)
}

// test is "" when m holds for r, or why not.
func (m *Match) test(r any) string {
	vals := resolve(r, m.Path)
	if m.Exists != nil {
		if *m.Exists != (len(vals) > 0) {
			return fmt.Sprintf("%s: exists is %v, want %v", m.Path, len(vals) > 0, *m.Exists)
		}
		if !*m.Exists {
			return ""
		}
	}
	if m.SameAs != "" {
		other := resolve(r, m.SameAs)
		if len(other) != 1 || len(vals) != 1 || jsonText(vals[0]) != jsonText(other[0]) {
			return fmt.Sprintf("%s is %s, %s is %s: want the same", m.Path, clip(jsonText(vals)), m.SameAs, clip(jsonText(other)))
		}
	}
	if m.Equals == nil && m.Contains == nil && m.Excludes == nil && m.Len == nil && m.Matches == "" && m.Between == nil {
		return ""
	}
	if len(vals) == 0 && !strings.Contains("."+m.Path+".", ".*.") {
		return fmt.Sprintf("no %s", m.Path)
	}
	for _, v := range vals {
		if why := m.testValue(v); why != "" {
			return fmt.Sprintf("%s is %s: %s", m.Path, clip(jsonText(v)), why)
		}
	}
	return ""
}

func (m *Match) testValue(v any) string {
	if m.Equals != nil && jsonText(v) != jsonText(normal(m.Equals)) {
		return fmt.Sprintf("want %s", jsonText(normal(m.Equals)))
	}
	if m.Contains != nil && !contains(v, normal(m.Contains)) {
		return fmt.Sprintf("want it to contain %s", jsonText(normal(m.Contains)))
	}
	if m.Excludes != nil && contains(v, normal(m.Excludes)) {
		return fmt.Sprintf("want no %s in it", jsonText(normal(m.Excludes)))
	}
	if m.Len != nil {
		n := -1
		switch x := v.(type) {
		case []any:
			n = len(x)
		case map[string]any:
			n = len(x)
		case string:
			n = len([]rune(x))
		}
		if n != *m.Len {
			return fmt.Sprintf("length %d, want %d", n, *m.Len)
		}
	}
	if m.Between != nil {
		x, ok := v.(float64)
		if len(m.Between) != 2 {
			return "between takes [lo, hi]"
		}
		if !ok || x < m.Between[0] || x > m.Between[1] {
			return fmt.Sprintf("want a number from %v to %v", m.Between[0], m.Between[1])
		}
	}
	if m.Matches != "" {
		s, ok := v.(string)
		re, err := regexp.Compile(`\A(?:` + m.Matches + `)\z`)
		if err != nil {
			return err.Error()
		}
		if !ok || !re.MatchString(s) {
			return fmt.Sprintf("want a match of %s", re)
		}
	}
	return ""
}

func contains(v, want any) bool {
	switch x := v.(type) {
	case string:
		s, ok := want.(string)
		return ok && strings.Contains(x, s)
	case []any:
		for _, e := range x {
			if jsonText(e) == jsonText(want) {
				return true
			}
		}
	case map[string]any:
		s, ok := want.(string)
		_, has := x[s]
		return ok && has
	}
	return false
}

// resolve is the values at path in v: none when it leads nowhere, one
// each element where it says "*".
func resolve(v any, path string) []any {
	if path == "" {
		return []any{v}
	}
	key, rest, _ := strings.Cut(path, ".")
	switch x := v.(type) {
	case map[string]any:
		if e, ok := x[key]; ok {
			return resolve(e, rest)
		}
	case []any:
		if key == "*" {
			var out []any
			for _, e := range x {
				out = append(out, resolve(e, rest)...)
			}
			return out
		}
		if i, err := strconv.Atoi(key); err == nil && i >= 0 && i < len(x) {
			return resolve(x[i], rest)
		}
	}
	return nil
}

// normal is a YAML value as JSON would decode it (numbers as float64,
// objects with string keys).
func normal(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	var out any
	json.Unmarshal(b, &out)
	return out
}

// jsonText is v as canonical JSON (sorted keys), for comparing.
func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func clip(s string) string {
	if len(s) > 120 {
		return s[:120] + "..."
	}
	return s
}

// FileCheck is what an output file must hold (a file_checks entry of a
// CLI case); absent fields are not checked.
type FileCheck struct {
	Has     []string     `yaml:"has"`     // substrings it must contain
	Lacks   []string     `yaml:"lacks"`   // substrings it must not
	Lines   *int         `yaml:"lines"`   // how many lines
	Matches string       `yaml:"matches"` // a regular expression for all of it
	SameAs  string       `yaml:"same_as"` // a file it must equal byte for byte
	Differs string       `yaml:"differs"` // a file it must not equal
	Records *RecordCheck `yaml:"records"` // its JSON values
}

// Check tests data against c; same and differs are the contents of SameAs
// and Differs, read by the caller. It returns what failed, one line each.
func (c *FileCheck) Check(data, same, differs []byte) []string {
	var bad []string
	s := string(data)
	for _, h := range c.Has {
		if !strings.Contains(s, h) {
			bad = append(bad, fmt.Sprintf("has no %q", h))
		}
	}
	for _, h := range c.Lacks {
		if strings.Contains(s, h) {
			bad = append(bad, fmt.Sprintf("has %q", h))
		}
	}
	if c.Lines != nil {
		if n := strings.Count(s, "\n"); n != *c.Lines || s != "" && !strings.HasSuffix(s, "\n") {
			bad = append(bad, fmt.Sprintf("%d lines, want %d whole lines", n, *c.Lines))
		}
	}
	if c.Matches != "" {
		if re, err := regexp.Compile(`\A(?:` + c.Matches + `)\z`); err != nil {
			bad = append(bad, err.Error())
		} else if !re.Match(data) {
			bad = append(bad, fmt.Sprintf("does not match %s", re))
		}
	}
	if c.SameAs != "" && !bytes.Equal(data, same) {
		bad = append(bad, fmt.Sprintf("differs from %s", c.SameAs))
	}
	if c.Differs != "" && bytes.Equal(data, differs) {
		bad = append(bad, fmt.Sprintf("is the same as %s", c.Differs))
	}
	if c.Records != nil {
		bad = append(bad, c.Records.Check(data)...)
	}
	return bad
}
