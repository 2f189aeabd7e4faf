package pipeline

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/pkg/recio"
)

// plainSink hides the sink's PreEncode: records are written one by one.
type plainSink struct{ Sink }

// A record over the record size limit fails alone, at write time: it goes
// to the errors file (without the record, which would make that file
// unreadable too), the run goes on, and the output reads back.
func TestRunRecordOverTheLimitFailsAlone(t *testing.T) {
	for _, pre := range []bool{true, false} {
		dir := t.TempDir()
		out, err := recio.Create(filepath.Join(dir, "out.jsonl"), recio.JSONL, nil)
		if err != nil {
			t.Fatal(err)
		}
		sink, err := NewRecordSink(out, recio.WriteOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !pre {
			sink = plainSink{sink}
		}
		elog, err := OpenErrorLog(filepath.Join(dir, "errors.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		in := recs(5)
		in[2].Norm = strings.Repeat("a", recio.MaxRecordBytes)
		st, err := Run(context.Background(), Config{Source: SliceSource(in), Sink: sink, Errors: elog, Workers: 2})
		if err != nil {
			t.Fatalf("pre-encoded %v: %v", pre, err)
		}
		if err := elog.Close(); err != nil {
			t.Fatal(err)
		}
		if st.Failed != 1 || st.Out != 4 {
			t.Errorf("pre-encoded %v: stats %+v", pre, st)
		}
		got := readBack(t, filepath.Join(dir, "out.jsonl"))
		if strings.Join(got, ",") != "0,1,3,4" {
			t.Errorf("pre-encoded %v: output %v", pre, got)
		}
		b, _ := os.ReadFile(filepath.Join(dir, "errors.jsonl"))
		if len(b) > 4096 || !strings.Contains(string(b), `"id":"2"`) || !strings.Contains(string(b), "32 MiB limit") {
			t.Errorf("pre-encoded %v: errors file (%d bytes): %.300s", pre, len(b), b)
		}
	}
}

func readBack(t *testing.T, path string) []string {
	t.Helper()
	src, err := recio.Open(path, recio.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var ids []string
	for {
		r, err := src.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatal(err)
			}
			return ids
		}
		ids = append(ids, r.ID)
	}
}
