package pipeline

import (
	"path/filepath"
	"testing"

	"github.com/ngkit/ngkit/pkg/recio"
	"github.com/ngkit/ngkit/pkg/record"
)

// Items of columnar inputs name the file and the row, for the errors file.
func TestFileSourcePositions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "in.parquet")
	out, err := recio.Create(path, recio.Parquet, nil)
	if err != nil {
		t.Fatal(err)
	}
	sink, err := NewRecordSink(out, recio.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a", "b"} {
		if err := sink.Write(&record.Record{ID: id}); err != nil {
			t.Fatal(err)
		}
	}
	if err := sink.Close(); err != nil {
		t.Fatal(err)
	}
	src := NewFileSource([]string{path}, recio.OpenOptions{})
	defer src.Close()
	for want := int64(1); want <= 2; want++ {
		it, err := src.Next()
		if err != nil {
			t.Fatal(err)
		}
		if it.Name != path || it.Line != want {
			t.Errorf("item at %s:%d, want %s:%d", it.Name, it.Line, path, want)
		}
	}
}
