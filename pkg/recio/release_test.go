package recio_test

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/ngkit/ngkit/filters/imports"
	"github.com/ngkit/ngkit/pkg/recio"
	"github.com/ngkit/ngkit/pkg/record"
)

// TestParquetReleaseNulls: the release record that showed the bug
// (3a664319872889d1: stage directions from turn 3 on, unset before) reads
// back from Parquet exactly as its JSONL, with parquet-go's reader seeing
// null actions where the JSONL has none.
func TestParquetReleaseNulls(t *testing.T) {
	dir := os.Getenv("NG_RELEASE_DIR")
	if dir == "" {
		dir = "../../../shared/data/normgenesis"
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) == 0 {
		t.Skip("no NormGenesis release at " + dir + " (set NG_RELEASE_DIR)")
	}
	imported, err := imports.ReadNormGenesis(files)
	if err != nil {
		t.Fatal(err)
	}
	var recs []record.Record
	for _, r := range imported {
		recs = append(recs, *r)
	}
	var buf bytes.Buffer
	w, err := recio.NewParquetWriter[record.Record](&buf, recio.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range recs {
		if err := w.Write(&recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	rd, err := recio.NewParquetReader("release.parquet", bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var got []record.Record
	for {
		r, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, *r)
	}
	if len(got) != len(recs) {
		t.Fatalf("read %d records, want %d", len(got), len(recs))
	}
	found := false
	for i := range recs {
		if g, w := jsonOf(t, &got[i]), jsonOf(t, &recs[i]); g != w {
			t.Fatalf("record %s differs after Parquet:\n got %s\nwant %s", recs[i].ID, g, w)
		}
		found = found || recs[i].ID == "3a664319872889d1"
	}
	if !found {
		t.Fatal("record 3a664319872889d1 not in the release")
	}
	f, err := parquet.OpenFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	pr := parquet.NewGenericReader[map[string]any](f, f.Schema())
	rows := make([]map[string]any, 256)
	empty := 0
	for base := 0; ; base += 256 {
		for i := range rows {
			rows[i] = map[string]any{}
		}
		n, err := pr.Read(rows)
		for i := range n {
			for j, e := range pqList(t, rows[i]["turns"]) {
				m := e.(map[string]any)
				if a, ok := m["action"].(string); ok && (a == "" || recs[base+i].Turns[j].Action != a) {
					empty++
				}
			}
		}
		if err != nil || n == 0 {
			break
		}
	}
	if empty > 0 {
		t.Errorf("parquet-go reads %d turn actions that the JSONL does not have", empty)
	}
}

func jsonOf(t *testing.T, r *record.Record) string {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// pqList is a LIST column's value as parquet-go reads it into maps: a
// []any of the elements (nil for a null list).
func pqList(t *testing.T, v any) []any {
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

// TestParquetByDuckDB: a file DuckDB wrote (its own dictionary and v1
// pages, columns in reverse order, maps as Parquet MAPs; see
// testdata/foreign) reads back as the JSONL of the same records.
func TestParquetByDuckDB(t *testing.T) {
	r, err := recio.Open("testdata/foreign/duckdb-maps.parquet", recio.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var buf bytes.Buffer
	w := recio.NewJSONLWriter[record.Record](&buf)
	n := 0
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		n++
	}
	w.Close()
	want, err := os.ReadFile("testdata/foreign/duckdb-maps.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		got := bytes.Split(buf.Bytes(), []byte("\n"))
		for i, l := range bytes.Split(want, []byte("\n")) {
			if i >= len(got) || !bytes.Equal(got[i], l) {
				t.Fatalf("%d records; line %d differs:\n got %.400s\nwant %.400s", n, i+1, got[min(i, len(got)-1)], l)
			}
		}
	}
	if !bytes.Contains(want, []byte(`"norm_dist"`)) {
		t.Fatal("fixture without label distributions")
	}
}
