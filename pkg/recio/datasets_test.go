package recio

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// datasetsRow is a record as the datasets library writes it after
// load_dataset("json") of ngkit's JSONL (datasets 5.2, found by
// scripts/interop-py.sh): a field whose objects have different keys from
// row to row is JSON text (its Json feature; turns a list of them), and an
// object of varying keys it could type (a label distribution,
// quality.explanations) is a struct with a field per key seen, null where a
// row lacks it.
type datasetsRow struct {
	ID      string   `parquet:"id"`
	Turns   []string `parquet:"turns,optional,list"`
	Persona string   `parquet:"persona,optional"`
	Quality *struct {
		Norm         int64 `parquet:"norm"`
		Explanations *struct {
			Norm *string `parquet:"norm,optional"`
			Fit  *string `parquet:"fit,optional"`
		} `parquet:"explanations,optional"`
	} `parquet:"quality,optional"`
}

// TestParquetFromDatasets: ngkit reads such a file back to the records
// it came from: JSON text into turns and persona, structs into maps (a
// key per non-null field).
func TestParquetFromDatasets(t *testing.T) {
	row := datasetsRow{
		ID: "a",
		Turns: []string{
			`{"index":0,"speaker":"A","text":"Hi.","labels":{"norm":"adhered","norm_dist":{"adhered":0.67,"violated":0.33}}}`,
			`{"index":1,"speaker":"B","text":"Hello."}`,
		},
		Persona: `{"age":"30-49"}`,
	}
	row.Quality = &struct {
		Norm         int64 `parquet:"norm"`
		Explanations *struct {
			Norm *string `parquet:"norm,optional"`
			Fit  *string `parquet:"fit,optional"`
		} `parquet:"explanations,optional"`
	}{Norm: 4}
	row.Quality.Explanations = &struct {
		Norm *string `parquet:"norm,optional"`
		Fit  *string `parquet:"fit,optional"`
	}{Norm: ptr("violated then resolved")}
	b := writeParquet(t, []datasetsRow{row, {ID: "b"}}, WriteOptions{})
	got := readParquet(t, b)
	if len(got) != 2 {
		t.Fatalf("%d records", len(got))
	}
	j, _ := json.Marshal(got[0])
	want := `{"id":"a","turns":[{"index":0,"speaker":"A","text":"Hi.","labels":{"norm":"adhered","norm_dist":{"adhered":0.67,"violated":0.33}}},{"index":1,"speaker":"B","text":"Hello."}],"quality":{"norm":4,"explanations":{"norm":"violated then resolved"}},"persona":{"age":"30-49"}}`
	if string(j) != want {
		t.Errorf("got  %s\nwant %s", j, want)
	}
	if j, _ := json.Marshal(got[1]); string(j) != `{"id":"b"}` {
		t.Errorf("a row of nulls: %s", j)
	}

	// JSON text that is not a turn is corrupt data: one line naming the
	// column, not a panic.
	row.Turns = []string{`{"index":"zero"}`}
	b = writeParquet(t, []datasetsRow{row}, WriteOptions{})
	r, err := NewParquetReader("bad.parquet", bytes.NewReader(b), int64(len(b)))
	if err == nil {
		_, err = drain(r)
	}
	if err == nil || !strings.Contains(err.Error(), "JSON text") {
		t.Fatalf("a turn that is not JSON of a turn: error %v", err)
	}
	checkReadError(t, "bad JSON text", err)
}
