package recio

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/pkg/record"
)

// The writer writes exactly what the reader reads: a record whose JSONL
// line is MaxRecordBytes long (newline included) is written and read
// back; one byte longer is refused when written (ngcat wrote a
// 37 MB line that ngcat could not read).
func TestRecordSizeLimitIsShared(t *testing.T) {
	small, _ := EncodeJSONL(nil, &record.Record{ID: "x", Norm: "a"})
	pad := MaxRecordBytes - len(small) + 1 // the line is now MaxRecordBytes long
	at := &record.Record{ID: "x", Norm: strings.Repeat("a", pad)}
	over := &record.Record{ID: "y", Norm: strings.Repeat("a", pad+1)}
	var buf bytes.Buffer
	w := NewJSONLWriter[record.Record](&buf)
	if err := w.Write(at); err != nil {
		t.Fatalf("a record at the limit: %v", err)
	}
	var big *TooLargeError
	if err := w.Write(over); !errors.As(err, &big) || big.Size != MaxRecordBytes+1 || !strings.Contains(err.Error(), "32 MiB limit") {
		t.Fatalf("a record over the limit: %v", err)
	}
	if err := w.Write(&record.Record{ID: "z"}); err != nil { // the writer goes on
		t.Fatal(err)
	}
	w.Close()
	if buf.Len() != MaxRecordBytes+len(`{"id":"z"}`)+1 {
		t.Errorf("written: %d bytes", buf.Len())
	}
	r := NewJSONLReader("out.jsonl", &buf)
	var ids []string
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("reading what was written: %v", err)
		}
		ids = append(ids, rec.ID)
	}
	if strings.Join(ids, ",") != "x,z" {
		t.Errorf("read back %v", ids)
	}
	if b, err := EncodeJSONL([]byte("prefix"), over); err == nil || string(b) != "prefix" {
		t.Errorf("EncodeJSONL over the limit: %q %v", b[:min(len(b), 10)], err)
	}
}
