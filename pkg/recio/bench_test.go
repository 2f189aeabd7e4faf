package recio_test

import (
	"bytes"
	"io"
	"path/filepath"
	"testing"

	"github.com/ngkit/ngkit/filters/imports"
	"github.com/ngkit/ngkit/pkg/recio"
	"github.com/ngkit/ngkit/pkg/record"
)

// sampleRecords imports the bundled release sample (135 real dialogues).
func sampleRecords(tb testing.TB) []*record.Record {
	files, _ := filepath.Glob("../../testdata/normgenesis/*.json")
	out, err := imports.ReadNormGenesis(files)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

func sampleJSONL(tb testing.TB) []byte {
	var buf bytes.Buffer
	w := recio.NewJSONLWriter[record.Record](&buf)
	for _, r := range sampleRecords(tb) {
		if err := w.Write(r); err != nil {
			tb.Fatal(err)
		}
	}
	w.Close()
	return buf.Bytes()
}

func BenchmarkJSONLDecode(b *testing.B) {
	data := sampleJSONL(b)
	lines := bytes.Split(bytes.TrimSpace(data), []byte{'\n'})
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j, l := range lines {
			if _, err := recio.DecodeJSONL("b", int64(j), l); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.N*len(lines))/b.Elapsed().Seconds(), "records/s")
}

func BenchmarkJSONLEncode(b *testing.B) {
	recs := sampleRecords(b)
	data := sampleJSONL(b)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w := recio.NewJSONLWriter[record.Record](io.Discard)
		for _, r := range recs {
			if err := w.Write(r); err != nil {
				b.Fatal(err)
			}
		}
		w.Close()
	}
	b.ReportMetric(float64(b.N*len(recs))/b.Elapsed().Seconds(), "records/s")
}
