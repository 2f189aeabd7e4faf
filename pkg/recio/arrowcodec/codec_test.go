package arrowcodec

import (
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ngkit/ngkit/pkg/record"
)

// Rows built into a batch decode back as the same records; a full batch
// says so at BatchRows rows. The readers and writers of pkg/recio test
// the codec further, through the files.
func TestBuildAndDecode(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	b, err := NewBuilder[record.Record](mem, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	want := []record.Record{
		{ID: "a", Culture: "ko", Turns: []record.Turn{{Index: 0, Speaker: "A", Text: "안녕"}, {Index: 1, Speaker: "B", Action: "nods", Text: "hi"}}},
		{ID: "b", Persona: map[string]string{"age": "30s", "city": "Seoul"}},
	}
	for i := range want {
		if b.Add(&want[i]) {
			t.Fatal("a batch of two rows is full")
		}
	}
	batch, n := b.Batch()
	defer batch.Release()
	if batch.NumRows() != 2 || n <= 0 {
		t.Fatalf("%d rows, %d bytes", batch.NumRows(), n)
	}
	dec, err := NewDecoder(batch.Schema())
	if err != nil {
		t.Fatal(err)
	}
	if !dec.Schema().Equal(b.Schema()) {
		t.Error("the decoder's schema is not the builder's")
	}
	bind := dec.Bind(batch)
	for i := range want {
		var got record.Record
		if err := bind(i, &got); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want[i]) {
			t.Errorf("row %d: %+v, want %+v", i, got, want[i])
		}
	}
	full := false
	for i := 0; i < BatchRows && !full; i++ {
		full = b.Add(&want[0])
	}
	if !full {
		t.Errorf("not full at %d rows", BatchRows)
	}
	rest, _ := b.Batch()
	rest.Release()
}

// A column of a type the record cannot hold is an error naming it (turns
// as text is JSON text, as datasets writes it: recio's
// TestParquetFromDatasets).
func TestDecoderRefusesAColumn(t *testing.T) {
	bad := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.BinaryTypes.String}, {Name: "turns", Type: arrow.PrimitiveTypes.Int64}}, nil)
	if _, err := NewDecoder(bad); err == nil || !strings.Contains(err.Error(), `"turns"`) {
		t.Errorf("turns as int64: error %v", err)
	}
}

// SchemaOf wants a struct; ColumnTag reads the parquet tag, else json's.
func TestSchemaOfAndTags(t *testing.T) {
	if _, err := SchemaOf(reflect.TypeFor[int]()); err == nil {
		t.Error("an int has a schema")
	}
	type row struct {
		A string `parquet:"a,optional" json:"x"`
		B int    `json:"b,omitempty"`
		C bool   `parquet:"-"`
	}
	rt := reflect.TypeFor[row]()
	for i, want := range []struct {
		name           string
		optional, skip bool
	}{{"a", true, false}, {"b", true, false}, {"", false, true}} {
		name, optional, skip := ColumnTag(rt.Field(i))
		if skip != want.skip || !skip && (name != want.name || optional != want.optional) {
			t.Errorf("field %d: %q %v %v", i, name, optional, skip)
		}
	}
}
