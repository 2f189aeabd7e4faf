// Package imports turns foreign datasets into ngkit records (ngcat
// --from): the NormGenesis release JSON, ProsocialDialog rows from the
// Hugging Face Hub, "Name: text" transcripts, CSV/TSV with a transcript
// column, chat messages (OpenAI or ShareGPT), PACT items and ngsim episode
// specs. Each importer is a pipeline.Source; most decode their items on
// the pipeline's workers.
package imports

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	json "github.com/goccy/go-json"

	"github.com/ngkit/ngkit/pkg/audit"
	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/recio"
	"github.com/ngkit/ngkit/pkg/record"
)

// NormGenesisOptions override what the file name says.
type NormGenesisOptions struct {
	// Fields set on every record; Culture (american, chinese, korean, or
	// any other) and Type (adherence, violation, v2r) also stand for what
	// the file name says.
	Fields
	Stdin io.Reader
}

// NormGenesis reads release files (<culture>_<type>.json: a JSON array of
// {scenario, situation, dialogue, category, norm[, parsing_failed,
// error_msg]}, or the same objects one per line) as a pipeline.Source.
type NormGenesis struct {
	names   []string
	opt     NormGenesisOptions
	cur     *valueScanner
	f       io.Closer
	display string
	culture string
	typ     string
	index   int64
}

// NewNormGenesis imports the named files ("-" or none: stdin). Its errors
// are the user's to fix: a name that says neither culture nor type.
func NewNormGenesis(names []string, opt NormGenesisOptions) (*NormGenesis, error) {
	if err := opt.Fields.Check(); err != nil {
		return nil, err
	}
	if len(names) == 0 {
		names = []string{"-"}
	}
	for _, n := range names {
		// A missing file first: a shell pattern that matched nothing
		// (data/*.json) is a missing file, not a badly named one.
		if n != "-" {
			if _, err := os.Stat(n); errors.Is(err, fs.ErrNotExist) {
				if strings.ContainsAny(n, "*?[") {
					return nil, fmt.Errorf("%s: no such file or directory (no file matches the pattern)", n)
				}
				return nil, fmt.Errorf("%s: no such file or directory", n)
			}
		}
		if _, _, err := releaseKeys(n, opt); err != nil {
			return nil, err
		}
	}
	return &NormGenesis{names: names, opt: opt}, nil
}

// releaseKeys finds culture and dialogue type from the flags or the file
// name (american_v2r.json, korean_adherence.jsonl.gz, ...).
func releaseKeys(name string, opt NormGenesisOptions) (culture, typ string, err error) {
	base := strings.ToLower(filepath.Base(name))
	for _, ext := range []string{".gz", ".zst", ".json", ".jsonl"} {
		base = strings.TrimSuffix(base, ext)
	}
	c, t, _ := strings.Cut(base, "_")
	culture, typ = opt.Culture, opt.Type
	if culture == "" {
		culture = c
	}
	if typ == "" {
		typ = t
	}
	if name == "-" && (opt.Culture == "" || opt.Type == "") {
		return "", "", errors.New("reading the release from stdin needs --culture and --type")
	}
	if culture == "" || !validType(typ) {
		return "", "", fmt.Errorf("%s: cannot tell culture and dialogue type from the name (want <culture>_<adherence|violation|v2r>.json); give --culture and --type", name)
	}
	return culture, typ, nil
}

func validType(t string) bool {
	return t == record.TypeAdherence || t == record.TypeViolation || t == record.TypeV2R
}

// Next implements pipeline.Source.
func (g *NormGenesis) Next() (pipeline.Item, error) {
	for {
		if g.cur == nil {
			if len(g.names) == 0 {
				return pipeline.Item{}, io.EOF
			}
			name := g.names[0]
			g.names = g.names[1:]
			display, dr, f, err := openInput(name, g.opt.Stdin)
			if err != nil {
				return pipeline.Item{}, err
			}
			g.display, g.f = display, f
			g.culture, g.typ, _ = releaseKeys(name, g.opt)
			g.cur = newValueScanner(dr, 64<<20)
			g.index = 0
		}
		raw, line, err := g.cur.Next()
		if err == nil && !utf8.Valid(raw) {
			return pipeline.Item{}, notUTF8(g.display, line, raw)
		}
		if err == nil {
			idx := g.index
			g.index++
			name, culture, typ := g.display, g.culture, g.typ
			src := filepath.Base(name)
			return pipeline.Item{
				Raw:  append([]byte(nil), raw...),
				Name: name, Line: line,
				Decode: func(b []byte) (*record.Record, error) {
					rec, err := decodeRelease(b, culture, typ, src, idx)
					if err != nil {
						return nil, fmt.Errorf("%s:%d: element %d: %w", name, line, idx, err)
					}
					g.opt.Fields.apply(rec)
					return rec, nil
				},
			}, nil
		}
		if !errors.Is(err, io.EOF) {
			return pipeline.Item{}, fmt.Errorf("%s:%d: %w", g.display, line, err)
		}
		if g.index == 0 {
			return pipeline.Item{}, fmt.Errorf("%s: empty input (no records)", g.display)
		}
		g.Close()
	}
}

// Close implements pipeline.Source.
func (g *NormGenesis) Close() error {
	g.cur = nil
	if g.f != nil {
		err := g.f.Close()
		g.f = nil
		return err
	}
	return nil
}

// releaseFields are the release's own keys; anything else is kept in extra.
var releaseFields = map[string]bool{"scenario": true, "situation": true, "category": true, "norm": true}

// decodeRelease maps one release object to a record. The original dialogue
// text and every field the record does not own (parsing_failed, error_msg,
// dialogue_end, ...) are kept in extra; the source file and index too.
func decodeRelease(raw []byte, culture, typ, src string, idx int64) (*record.Record, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, describe(err)
	}
	str := func(k string) (string, error) {
		v, ok := m[k]
		if !ok || bytes.Equal(v, []byte("null")) {
			return "", nil
		}
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return "", fmt.Errorf("field %s: want a string, got %s", k, kind(v))
		}
		return s, nil
	}
	rec := &record.Record{
		ID:           record.NewID("normgenesis", culture, typ, strconv.FormatInt(idx, 10)),
		Culture:      culture,
		Lang:         normbank.CultureLang(culture),
		DialogueType: typ,
	}
	var err error
	for _, f := range []struct {
		k string
		p *string
	}{{"scenario", &rec.Scenario}, {"situation", &rec.Situation}, {"category", &rec.Category}, {"norm", &rec.Norm}} {
		if *f.p, err = str(f.k); err != nil {
			return nil, err
		}
	}
	text, err := str("dialogue")
	if err != nil {
		return nil, err
	}
	if rec.Norm != "" {
		rec.NormID = record.NormID(culture, rec.Category, rec.Norm)
	}
	rec.Extra = make(map[string]json.RawMessage, len(m)+2)
	for k, v := range m {
		if !releaseFields[k] {
			rec.Extra[k] = v
		}
	}
	rec.SetExtra("source_file", src)
	rec.SetExtra("source_index", idx)

	failed := false
	if v, ok := m["parsing_failed"]; ok && bytes.Equal(bytes.TrimSpace(v), []byte("true")) {
		failed = true
	}
	if failed {
		rec.AddDefect(record.DefectFailedGeneration)
	}
	audit.FieldDefects(rec)
	setDialogue(rec, text)
	return rec, nil
}

// openInput opens a named input ("-": stdin, or os.Stdin when stdin is
// nil), unpacks gzip or zstd, and drops a UTF-8 BOM. display is the name
// for messages; c, when not nil, is to be closed after reading.
func openInput(name string, stdin io.Reader) (display string, r *bufio.Reader, c io.Closer, err error) {
	var in io.Reader
	display = name
	if name == "-" {
		display = "stdin"
		in = stdin
		if in == nil {
			in = os.Stdin
		}
	} else {
		f, err := os.Open(name)
		if err != nil {
			return "", nil, nil, fmt.Errorf("%s: %w", name, errors.Unwrap(err))
		}
		in, c = f, f
	}
	r, _, err = recio.Decompress(in)
	if err != nil {
		if c != nil {
			c.Close()
		}
		return "", nil, nil, fmt.Errorf("%s: %w", display, err)
	}
	if b, _ := r.Peek(1); len(b) == 1 && b[0] == 0xef {
		b, _ = r.Peek(3) // the first byte of a BOM: the rest follows at once
		if bytes.Equal(b, []byte("\xef\xbb\xbf")) {
			r.Discard(3) // a UTF-8 BOM is harmless: drop it
		}
	}
	return display, r, c, nil
}

func kind(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	}
	return "a number"
}

func describe(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("malformed JSON at byte %d of the element: %v", se.Offset, se)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Errorf("want a JSON object, got %s", te.Value)
	}
	return err
}

// ReadNormGenesis imports whole release files into memory, in order: for
// tests, benchmarks and the generators of built-in data, which want all
// records at once rather than a stream.
func ReadNormGenesis(names []string) ([]*record.Record, error) {
	src, err := NewNormGenesis(names, NormGenesisOptions{})
	if err != nil {
		return nil, err
	}
	defer src.Close()
	return ReadAll(src)
}

// ReadAll drains a source (any importer's, review.Source, a recio reader)
// into memory, decoding each item, in order; it does not close src. For
// tests and generators, like ReadNormGenesis.
func ReadAll(src pipeline.Source) ([]*record.Record, error) {
	var out []*record.Record
	for {
		it, err := src.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		rec := it.Rec
		if it.Decode != nil {
			if rec, err = it.Decode(it.Raw); err != nil {
				return nil, err
			}
		}
		out = append(out, rec)
	}
}
