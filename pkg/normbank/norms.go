package normbank

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"

	json "github.com/goccy/go-json"

	"github.com/ngkit/ngkit/pkg/recio"
	"github.com/ngkit/ngkit/pkg/record"
)

// Norm is one social norm of a culture and category.
type Norm struct {
	// ID is record.NormID(Culture, Category, Text), or the norm_id of the
	// input record when it has one.
	ID       string `json:"id"`
	Culture  string `json:"culture"`
	Category string `json:"category"`
	Text     string `json:"norm"`
	// Source is where the norm was read: the release file and index of its
	// first record ("korean_adherence.json#0") for built-in norms, the file
	// and line ("norms.jsonl:3") or row for loaded ones.
	Source string `json:"source,omitempty"`
}

// normsZst is data/norms.jsonl, zstd-compressed (see unzstd).
//
//go:embed data/norms.jsonl.zst
var normsZst []byte

var builtinNorms = sync.OnceValue(func() []Norm {
	ns, err := readNorms("builtin:norms.jsonl", bytes.NewReader(unzstd("norms.jsonl", normsZst)))
	if err != nil {
		panic("normbank: embedded norms: " + err.Error()) // a test keeps the data valid
	}
	return ns
})

// BuiltinNorms returns every built-in norm: the norms of the NormGenesis
// release, deduplicated, ordered by culture, category and first appearance
// in the release. The slice is the caller's.
func BuiltinNorms() []Norm {
	return append([]Norm(nil), builtinNorms()...)
}

// Norms returns the built-in norms of a culture ("" for all) in the given
// categories (none for all). Unknown names give no norms; SelectNorms says
// which name matched nothing.
func Norms(culture string, categories []string) []Norm {
	return filterNorms(builtinNorms(), culture, categories)
}

// SelectNorms keeps the norms of a culture ("" for all) in the given
// categories (none for all), in order. Names match case-insensitively. A
// culture or category that matches no norm at all is an error naming the
// ones there are, so that a typo in --culture or --categories is caught.
func SelectNorms(norms []Norm, culture string, categories []string) ([]Norm, error) {
	culture = key(culture)
	if culture != "" && !anyNorm(norms, func(n Norm) bool { return n.Culture == culture }) {
		return nil, fmt.Errorf("no norms for culture %q; there are norms for %s", culture,
			strings.Join(distinct(norms, func(n Norm) string { return n.Culture }), ", "))
	}
	for _, c := range categories {
		c = key(c)
		if !anyNorm(norms, func(n Norm) bool { return n.Category == c && (culture == "" || n.Culture == culture) }) {
			return nil, fmt.Errorf("no norms in category %q; the categories are %s", c,
				strings.Join(distinct(norms, func(n Norm) string { return n.Category }), ", "))
		}
	}
	return filterNorms(norms, culture, categories), nil
}

func filterNorms(norms []Norm, culture string, categories []string) []Norm {
	culture = key(culture)
	cats := map[string]bool{}
	for _, c := range categories {
		cats[key(c)] = true
	}
	var out []Norm
	for _, n := range norms {
		if (culture == "" || n.Culture == culture) && (len(cats) == 0 || cats[n.Category]) {
			out = append(out, n)
		}
	}
	return out
}

func anyNorm(norms []Norm, f func(Norm) bool) bool {
	for _, n := range norms {
		if f(n) {
			return true
		}
	}
	return false
}

func distinct[T any](xs []T, f func(T) string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if k := f(x); !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// key normalizes a culture or category name.
func key(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// LoadNorms reads a norm list for ngseed --norms: records in JSONL,
// Parquet or Arrow IPC (sniffed; "-" is stdin) with culture, category and
// norm. norm_id is kept when given, else derived (record.NormID). A norm
// listed twice (same id) is kept once. Errors name the file and line (or
// row) of the record at fault.
func LoadNorms(file string) ([]Norm, error) {
	r, err := recio.Open(file, recio.OpenOptions{})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return collectNorms(r)
}

// readNorms reads JSONL norm records from r; name is used in errors.
func readNorms(name string, r io.Reader) ([]Norm, error) {
	return collectNorms(recio.NewJSONLReader(name, r))
}

func collectNorms(r recio.Reader) ([]Norm, error) {
	var out []Norm
	seen := map[string]bool{}
	err := eachRecord(r, func(rec *record.Record, where string) error {
		n, err := NormFromRecord(rec)
		if err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		if seen[n.ID] {
			return nil
		}
		seen[n.ID] = true
		if n.Source == "" {
			n.Source = where
		}
		out = append(out, n)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, errors.New(r.Where() + ": no norms")
	}
	return out, nil
}

// eachRecord calls f with every record of r and its position for messages:
// "file:line 3" in JSONL (as recio's own errors say), "file: row 3" in
// Parquet and Arrow.
func eachRecord(r recio.Reader, f func(rec *record.Record, where string) error) error {
	jr, _ := r.(*recio.JSONLReader)
	for {
		var rec *record.Record
		var err error
		where := ""
		if jr != nil {
			var raw []byte
			var line int64
			raw, line, err = jr.NextRaw()
			if err == nil {
				rec, err = recio.DecodeJSONL(jr.Name(), line, raw)
				where = jr.Name() + ":line " + strconv.FormatInt(line, 10)
			}
		} else {
			rec, err = r.Next()
			where = r.Where()
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := f(rec, where); err != nil {
			return err
		}
	}
}

// NormFromRecord makes a norm of a record with culture, category and norm
// (a line of a norm list). Culture and category are lower-cased, the text
// trimmed. The source_file and source_index fields of a record imported
// from the release become the norm's Source.
func NormFromRecord(rec *record.Record) (Norm, error) {
	n := Norm{Culture: key(rec.Culture), Category: key(rec.Category), Text: strings.TrimSpace(rec.Norm)}
	var missing []string
	for _, f := range []struct{ name, v string }{{"culture", n.Culture}, {"category", n.Category}, {"norm", n.Text}} {
		if f.v == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return Norm{}, fmt.Errorf("%s missing or empty (a norm record needs culture, category and norm)", strings.Join(missing, ", "))
	}
	n.ID = strings.TrimSpace(rec.NormID)
	if n.ID == "" {
		n.ID = record.NormID(n.Culture, n.Category, n.Text)
	}
	n.Source = sourceOf(rec)
	return n, nil
}

// sourceOf names the release record a record came from ("file#index"),
// from the source_file and source_index fields ngcat's import writes.
func sourceOf(rec *record.Record) string {
	var file string
	var idx int64
	if json.Unmarshal(rec.Extra["source_file"], &file) != nil || file == "" {
		return ""
	}
	if json.Unmarshal(rec.Extra["source_index"], &idx) != nil {
		return file
	}
	return file + "#" + strconv.FormatInt(idx, 10)
}

// Categories lists the categories of the built-in norms, sorted (the 12
// NormGenesis categories).
func Categories() []string {
	return distinct(builtinNorms(), func(n Norm) string { return n.Category })
}

// NormCultures lists the cultures that have built-in norms, sorted.
func NormCultures() []string {
	return distinct(builtinNorms(), func(n Norm) string { return n.Culture })
}
