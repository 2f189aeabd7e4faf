package recio_test

import (
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"

	"github.com/ngkit/ngkit/pkg/recio"
	"github.com/ngkit/ngkit/pkg/record"
)

// benchRows is the release sample repeated to about 2,000 records, the
// same in-memory records for both Parquet writers below.
func benchRows(b *testing.B) []*record.Record {
	one := sampleRecords(b)
	var rows []*record.Record
	for len(rows) < 2000 {
		rows = append(rows, one...)
	}
	return rows
}

// BenchmarkParquetWrite is ngkit's writer (arrow-go pqarrow, the schema of
// -o and --hf), zstd level 3.
func BenchmarkParquetWrite(b *testing.B) {
	rows := benchRows(b)
	var out countingWriter
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out = 0
		w, err := recio.NewParquetWriter[record.Record](&out, recio.WriteOptions{})
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range rows {
			if err := w.Write(r); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(rows))/b.Elapsed().Seconds(), "records/s")
	b.ReportMetric(float64(out), "file-bytes")
}

// BenchmarkParquetGoWrite writes the same records with parquet-go's
// GenericWriter (its schema from the structs' parquet tags: repeated
// groups rather than our LIST/MAP layout, so not byte-compatible with
// ours; a throughput comparison only), zstd level 3, dictionary off.
func BenchmarkParquetGoWrite(b *testing.B) {
	rows := benchRows(b)
	vals := make([]record.Record, len(rows))
	for i, r := range rows {
		vals[i] = *r
		vals[i].EncodeExtra()
	}
	var out countingWriter
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out = 0
		w := parquet.NewGenericWriter[record.Record](&out,
			parquet.Compression(&zstd.Codec{Level: zstd.SpeedDefault}),
			parquet.PageBufferSize(1<<20))
		for j := 0; j < len(vals); j += 64 {
			if _, err := w.Write(vals[j:min(j+64, len(vals))]); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(vals))/b.Elapsed().Seconds(), "records/s")
	b.ReportMetric(float64(out), "file-bytes")
}

// countingWriter counts the bytes written to it.
type countingWriter int64

func (c *countingWriter) Write(p []byte) (int, error) {
	*c += countingWriter(len(p))
	return len(p), nil
}
