package recio

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// TestParquetWriterOf: rows of a type made at run time are written as the
// same static type would be, rows of another type are refused, and a list
// where Record has a map is a read error, not an empty map.
func TestParquetWriterOf(t *testing.T) {
	kv := reflect.SliceOf(reflect.StructOf([]reflect.StructField{
		{Name: "Key", Type: reflect.TypeFor[string](), Tag: `parquet:"key"`},
		{Name: "Value", Type: reflect.TypeFor[float64](), Tag: `parquet:"value"`},
	}))
	typ := reflect.StructOf([]reflect.StructField{
		{Name: "ID", Type: reflect.TypeFor[string](), Tag: `parquet:"id"`},
		{Name: "Quality", Type: reflect.PointerTo(reflect.StructOf([]reflect.StructField{
			{Name: "Explanations", Type: kv, Tag: `parquet:"explanations,optional,list"`},
		})), Tag: `parquet:"quality,optional"`},
	})
	var buf bytes.Buffer
	w, err := NewParquetWriterOf(&buf, typ, WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range []string{"a", "b", "c"} {
		row := reflect.New(typ).Elem()
		row.Field(0).SetString(id)
		if i == 1 {
			q := reflect.New(typ.Field(1).Type.Elem())
			s := reflect.MakeSlice(kv, 1, 1)
			s.Index(0).Field(0).SetString("norm")
			s.Index(0).Field(1).SetFloat(0.5)
			q.Elem().Field(0).Set(s)
			row.Field(1).Set(q)
		}
		v := row.Interface()
		if err := w.Write(&v); err != nil {
			t.Fatal(err)
		}
	}
	var wrong any = struct{ ID string }{"x"}
	if err := w.Write(&wrong); err == nil || !strings.Contains(err.Error(), "row of type") {
		t.Fatalf("a row of another type: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := parquet.OpenFile(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if f.NumRows() != 3 {
		t.Fatalf("%d rows, want 3", f.NumRows())
	}
	for _, c := range f.Metadata().RowGroups[0].Columns {
		if c.ColumnIndexOffset == 0 || c.OffsetIndexOffset == 0 {
			t.Errorf("column %v: no page index", c.MetaData.PathInSchema)
		}
	}
	_, err = NewParquetReader("kv.parquet", bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err == nil || !strings.Contains(err.Error(), `column "quality.explanations" is a list in the file, want a map`) {
		t.Fatalf("a list of {key, value} read as a map: error %v", err)
	}
	if got := ApproxSize(&struct{ S string }{"abcd"}); got != 8 {
		t.Errorf("ApproxSize = %d, want 8", got)
	}
}
