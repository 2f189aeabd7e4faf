package recio

import (
	"bytes"
	"maps"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/ngkit/ngkit/pkg/record"
)

// personaRecords: persona set (several attributes, one, an empty value,
// non-ASCII) and unset, variant_of set and unset.
func personaRecords() []record.Record {
	return []record.Record{
		{ID: "p0", Persona: map[string]string{"age": "30-49", "hierarchy": "junior", "relationship": "동료"}, VariantOf: "base"},
		{ID: "p1"},
		{ID: "p2", Persona: map[string]string{"gender": ""}, VariantOf: "base"},
		{ID: "p3", Scenario: "no persona, no variant"},
		{ID: "p4", Persona: map[string]string{"setting": "office"}},
	}
}

func checkPersonas(t *testing.T, format string, got []record.Record) {
	t.Helper()
	want := personaRecords()
	if len(got) != len(want) {
		t.Fatalf("%s: %d records, want %d", format, len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.ID != w.ID || g.VariantOf != w.VariantOf || !maps.Equal(g.Persona, w.Persona) || (g.Persona == nil) != (w.Persona == nil) {
			t.Errorf("%s: record %d: persona %#v variant_of %q, want %#v %q", format, i, g.Persona, g.VariantOf, w.Persona, w.VariantOf)
		}
	}
}

// TestPersonaRoundTrip: persona and variant_of through JSONL, Parquet and
// Arrow (stream and file), set and unset: an unset persona reads back as
// nil, not as an empty map.
func TestPersonaRoundTrip(t *testing.T) {
	rows := personaRecords()

	var jb bytes.Buffer
	writeAll[record.Record](t, NewJSONLWriter[record.Record](&jb), rows)
	if !strings.Contains(jb.String(), `"persona":{"age":"30-49","hierarchy":"junior","relationship":"동료"},"variant_of":"base"`) ||
		strings.Count(jb.String(), `"persona"`) != 3 {
		t.Errorf("JSONL:\n%s", jb.String())
	}
	checkPersonas(t, "jsonl", readAll(t, NewJSONLReader("t.jsonl", bytes.NewReader(jb.Bytes()))))

	pq := writeParquet(t, rows, WriteOptions{})
	checkPersonas(t, "parquet", readParquet(t, pq))

	for _, file := range []bool{false, true} {
		var ab bytes.Buffer
		w, err := NewArrowWriter[record.Record](&ab, file)
		if err != nil {
			t.Fatal(err)
		}
		writeAll(t, w, rows)
		checkPersonas(t, map[bool]string{false: "arrow stream", true: "arrow file"}[file], readAll(t, openArrow(t, ab.Bytes(), file, nil)))
	}

	// arrow-go's own Parquet reader: persona is list<struct<key, value>>,
	// null where unset, entries in key order.
	tbl := readPQArrow(t, pq)
	defer tbl.Release()
	idx := tbl.Schema().FieldIndices("persona")
	if len(idx) != 1 {
		t.Fatal("no persona column")
	}
	col := tbl.Column(idx[0]).Data().Chunk(0).(*array.List)
	st := col.ListValues().(*array.Struct)
	keys, vals := st.Field(0).(*array.String), st.Field(1).(*array.String)
	for i, w := range rows {
		if col.IsNull(i) != (w.Persona == nil) {
			t.Errorf("row %d: persona null %v, want %v", i, col.IsNull(i), w.Persona == nil)
			continue
		}
		got := map[string]string{}
		var order []string
		start, end := col.ValueOffsets(i)
		for j := start; j < end; j++ {
			got[keys.Value(int(j))] = vals.Value(int(j))
			order = append(order, keys.Value(int(j)))
		}
		if w.Persona != nil && (!maps.Equal(got, w.Persona) || !isSorted(order)) {
			t.Errorf("row %d: arrow-go reads persona %v (order %v), want %v", i, got, order, w.Persona)
		}
	}
	vi := tbl.Schema().FieldIndices("variant_of")
	if len(vi) != 1 || tbl.Schema().Field(vi[0]).Type.ID() != arrow.STRING {
		t.Fatal("variant_of is not a string column")
	}
	vo := tbl.Column(vi[0]).Data().Chunk(0).(*array.String)
	for i, w := range rows {
		if vo.IsNull(i) != (w.VariantOf == "") || (!vo.IsNull(i) && vo.Value(i) != w.VariantOf) {
			t.Errorf("row %d: variant_of null=%v %q, want %q", i, vo.IsNull(i), vo.Value(i), w.VariantOf)
		}
	}
}

func isSorted(s []string) bool {
	for i := 1; i < len(s); i++ {
		if s[i-1] > s[i] {
			return false
		}
	}
	return true
}
