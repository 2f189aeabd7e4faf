package recio

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/parquet-go/parquet-go"

	"github.com/ngkit/ngkit/pkg/record"
)

// mixedNullRecords are records whose lists of structs have every optional
// field unset in some elements and set in others ([null, null, set, null]
// and its shifts): parquet-go v0.32.0's typed writer wrote "", 0 or false
// (definition level 3 where 2 was due) for the unset ones, which every
// reader then returned as values.
func mixedNullRecords() []record.Record {
	var out []record.Record
	for set := range 4 {
		r := record.Record{ID: fmt.Sprintf("r%d", set)}
		for i := range 4 {
			turn := record.Turn{Index: i, Speaker: "A", Text: fmt.Sprintf("t%d", i)}
			g := record.Gen{Stage: "v2r"}
			if i == set {
				turn.Action = "sighs"
				turn.Lang = "en"
				turn.Stage = "repair"
				turn.Labels = &record.Labels{Norm: "adhered", Intent: "APO", Rots: []string{"be kind"},
					NormDist: map[string]float64{"adhered": 1}, Agreement: 0.5}
				g = record.Gen{Stage: "v2r", Call: "dialogue", Model: "m", PromptPack: "v1", TokensIn: 7,
					TokensOut: 8, CacheHit: true, Retries: 2, Seconds: 1.5}
			} else if i == (set+1)%4 {
				turn.Labels = &record.Labels{} // present, every field unset
			}
			r.Turns = append(r.Turns, turn)
			r.Gen = append(r.Gen, g)
		}
		out = append(out, r)
	}
	return out
}

// TestParquetMixedNulls writes lists with unset and set optional fields and
// reads them back three ways: with our reader (the same JSONL), with
// arrow-go's Arrow view of the file (the validity of each leaf), and with
// parquet-go's reader into plain Go maps (an independent implementation of
// definition levels). Unset fields must be null everywhere, never "", 0 or
// false.
func TestParquetMixedNulls(t *testing.T) {
	recs := mixedNullRecords()
	b := writeParquet(t, recs, WriteOptions{})

	// 1. Our reader gives back the JSONL of what was written.
	got := readParquet(t, b)
	if len(got) != len(recs) {
		t.Fatalf("read %d records, want %d", len(got), len(recs))
	}
	for i := range recs {
		if g, w := mustJSON(got[i]), mustJSON(recs[i]); g != w {
			t.Errorf("record %d:\n got %s\nwant %s", i, g, w)
		}
	}

	// 2. arrow-go: the leaf arrays' validity is exactly "set".
	tbl := readPQArrow(t, b)
	defer tbl.Release()
	leaf := func(col, field string) arrow.Array {
		c := tbl.Column(tbl.Schema().FieldIndices(col)[0]).Data().Chunk(0).(*array.List)
		st := c.ListValues().(*array.Struct)
		i, _ := st.DataType().(*arrow.StructType).FieldIdx(field)
		return st.Field(i)
	}
	for _, c := range []struct{ col, field string }{
		{"turns", "action"}, {"turns", "lang"}, {"turns", "stage"},
		{"gen", "call"}, {"gen", "model"}, {"gen", "prompt_pack"}, {"gen", "tokens_in"},
		{"gen", "tokens_out"}, {"gen", "cache_hit"}, {"gen", "retries"}, {"gen", "seconds"},
	} {
		a := leaf(c.col, c.field)
		for j := 0; j < a.Len(); j++ {
			if want := j%4 == j/4; a.IsValid(j) != want {
				t.Errorf("arrow-go: %s[%d].%s valid = %v, want %v (value %v)", c.col, j%4, c.field, a.IsValid(j), want, a.GetOneForMarshal(j))
			}
		}
	}
	labels := leaf("turns", "labels").(*array.Struct)
	for _, field := range []string{"norm", "intent", "emotion", "stage", "safety", "explanation", "agreement", "rots", "norm_dist"} {
		i, _ := labels.DataType().(*arrow.StructType).FieldIdx(field)
		a := labels.Field(i)
		for j := 0; j < a.Len(); j++ {
			set := j%4 == j/4
			if a.IsValid(j) && !(set && field != "emotion" && field != "stage" && field != "safety" && field != "explanation") {
				t.Errorf("arrow-go: turns[%d].labels.%s = %v, want null", j%4, field, a.GetOneForMarshal(j))
			}
		}
	}

	// 3. parquet-go's reader, into maps: nil where unset.
	f, err := parquet.OpenFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	rows := make([]map[string]any, len(recs))
	for i := range rows {
		rows[i] = map[string]any{}
	}
	pr := parquet.NewGenericReader[map[string]any](f, f.Schema())
	if n, err := pr.Read(rows); n != len(recs) || (err != nil && err != io.EOF) {
		t.Fatalf("parquet-go read %d rows: %v", n, err)
	}
	for i, row := range rows {
		for _, list := range []string{"turns", "gen"} {
			elems := listOf(t, row[list])
			for j, e := range elems {
				m, _ := e.(map[string]any)
				for k, v := range m {
					if k == "labels" || k == "index" || k == "speaker" || k == "text" || k == "stage" && list == "gen" {
						continue
					}
					if set := j == i; !set && v != nil {
						t.Errorf("parquet-go: record %d %s[%d].%s = %#v, want null", i, list, j, k, v)
					}
				}
			}
		}
	}
}

// listOf is a LIST column's value as parquet-go reads it into maps: a
// []any of the elements (nil for a null list).
func listOf(t *testing.T, v any) []any {
	t.Helper()
	if v == nil {
		return nil
	}
	l, ok := v.([]any)
	if !ok {
		t.Fatalf("list column read as %T", v)
	}
	return l
}
