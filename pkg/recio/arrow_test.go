package recio

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ngkit/ngkit/pkg/recio/arrowcodec"
	"github.com/ngkit/ngkit/pkg/record"
)

func writeArrow[T any](t testing.TB, rows []T, file bool, mem memory.Allocator) []byte {
	t.Helper()
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	var buf bytes.Buffer
	w, err := newArrowWriter[T](&buf, file, mem)
	if err != nil {
		t.Fatal(err)
	}
	writeAll(t, w, rows)
	return buf.Bytes()
}

func openArrow(t testing.TB, b []byte, file bool, mem memory.Allocator) Reader {
	t.Helper()
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	var r Reader
	var err error
	if file {
		r, err = newArrowFileReader("test.arrow", bytes.NewReader(b), int64(len(b)), mem)
	} else {
		r, err = newArrowReader("test.arrows", bytes.NewReader(b), mem)
	}
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// arrowStreamTable reads an IPC stream with arrow-go into a table.
func arrowStreamTable(t testing.TB, b []byte) arrow.Table {
	t.Helper()
	r, err := ipc.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	var recs []arrow.RecordBatch
	for r.Next() {
		rec := r.RecordBatch()
		rec.Retain()
		recs = append(recs, rec)
	}
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
	tbl := array.NewTableFromRecords(r.Schema(), recs)
	for _, rec := range recs {
		rec.Release()
	}
	return tbl
}

func TestArrowRoundTrip(t *testing.T) {
	for _, file := range []bool{false, true} {
		t.Run(fmt.Sprintf("file=%v", file), func(t *testing.T) {
			const n = 300
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			b := writeArrow(t, testRecords(n), file, mem)
			if file != bytes.HasPrefix(b, []byte("ARROW1")) {
				t.Fatalf("file=%v but the output starts % x", file, b[:8])
			}
			if !file && !bytes.HasPrefix(b, []byte{0xff, 0xff, 0xff, 0xff}) {
				t.Fatalf("stream does not start with a continuation marker: % x", b[:8])
			}
			checkRecords(t, readAll(t, openArrow(t, b, file, mem)), n)
		})
	}
}

// TestArrowSchema pins the column names and types: the same top-level
// names as Parquet and JSON, and the documented type mapping.
func TestArrowSchema(t *testing.T) {
	s, err := arrowcodec.SchemaOf(reflect.TypeFor[record.Record]())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range s.Fields() {
		got = append(got, fmt.Sprintf("%s %s nullable=%v", f.Name, f.Type, f.Nullable))
	}
	want := []string{
		"id utf8 nullable=false",
		"parent_id utf8 nullable=true",
		"culture utf8 nullable=true",
		"lang utf8 nullable=true",
		"category utf8 nullable=true",
		"norm_id utf8 nullable=true",
		"norm utf8 nullable=true",
		"dialogue_type utf8 nullable=true",
		"scenario utf8 nullable=true",
		"situation utf8 nullable=true",
		"refinement struct<rounds: int64, before: struct<task_relevance: float64 nullable, linguistic_quality: float64 nullable, semantic_preservation: float64 nullable> nullable, after: struct<task_relevance: float64 nullable, linguistic_quality: float64 nullable, semantic_preservation: float64 nullable> nullable, exemplar_ids: list<item: utf8> nullable, accepted: bool, critique: utf8 nullable> nullable=true",
		"turns list<item: struct<index: int64, speaker: utf8, action: utf8 nullable, text: utf8, lang: utf8 nullable, stage: utf8 nullable, labels: struct<norm: utf8 nullable, intent: utf8 nullable, emotion: utf8 nullable, stage: utf8 nullable, safety: utf8 nullable, rots: list<item: utf8> nullable, explanation: utf8 nullable, norm_dist: list<item: struct<key: utf8, value: float64>> nullable, intent_dist: list<item: struct<key: utf8, value: float64>> nullable, emotion_dist: list<item: struct<key: utf8, value: float64>> nullable, stage_dist: list<item: struct<key: utf8, value: float64>> nullable, safety_dist: list<item: struct<key: utf8, value: float64>> nullable, agreement: float64 nullable, by_model: list<item: struct<labeller: utf8, norm: utf8 nullable, intent: utf8 nullable, emotion: utf8 nullable, stage: utf8 nullable, safety: utf8 nullable>> nullable> nullable, labels_human: struct<norm: utf8 nullable, intent: utf8 nullable, emotion: utf8 nullable, stage: utf8 nullable, safety: utf8 nullable, rots: list<item: utf8> nullable, explanation: utf8 nullable, norm_dist: list<item: struct<key: utf8, value: float64>> nullable, intent_dist: list<item: struct<key: utf8, value: float64>> nullable, emotion_dist: list<item: struct<key: utf8, value: float64>> nullable, stage_dist: list<item: struct<key: utf8, value: float64>> nullable, safety_dist: list<item: struct<key: utf8, value: float64>> nullable, agreement: float64 nullable, by_model: list<item: struct<labeller: utf8, norm: utf8 nullable, intent: utf8 nullable, emotion: utf8 nullable, stage: utf8 nullable, safety: utf8 nullable>> nullable> nullable>> nullable=true",
		"narration list<item: utf8> nullable=true",
		"narration_at list<item: int64> nullable=true",
		"labels_meta struct<model: utf8 nullable, tasks: list<item: utf8> nullable, samples: int64 nullable, agreement: float64 nullable, kappa: float64 nullable, panel: list<item: utf8> nullable, failed_labellers: list<item: struct<labeller: utf8, error: utf8>> nullable, fleiss_kappa: float64 nullable, krippendorff_alpha: float64 nullable, cohen_kappa: list<item: struct<a: utf8, b: utf8, kappa: float64 nullable>> nullable> nullable=true",
		"quality struct<consistency: int64 nullable, naturalness: int64 nullable, relevance: int64 nullable, coherence: int64 nullable, emotion: int64 nullable, norm: int64 nullable, fit: int64 nullable, explanations: list<item: struct<key: utf8, value: utf8>> nullable> nullable=true",
		"checks struct<lang_expected: utf8 nullable, lang_ok: bool nullable, lang_share: float64 nullable, defects: list<item: utf8> nullable, unplaced: list<item: utf8> nullable, removed: int64 nullable> nullable=true",
		"review struct<tool: utf8, verdict: utf8 nullable, reviewers: int64 nullable, comments: list<item: utf8> nullable> nullable=true",
		"gen list<item: struct<stage: utf8, role: utf8 nullable, endpoint: utf8 nullable, call: utf8 nullable, model: utf8 nullable, model_answered: utf8 nullable, prompt_pack: utf8 nullable, tokens_in: int64 nullable, tokens_out: int64 nullable, cache_hit: bool nullable, retries: int64 nullable, seconds: float64 nullable, cost_usd: float64 nullable, tokens_cached: int64 nullable, cached_saved_usd: float64 nullable>> nullable=true",
		"persona list<item: struct<key: utf8, value: utf8>> nullable=true",
		"variant_of utf8 nullable=true",
		"pact_item struct<scenario_id: utf8 nullable, actor: utf8, receiver: utf8 nullable, actor_country: utf8 nullable, receiver_country: utf8 nullable, actor_age: utf8 nullable, actor_gender: utf8 nullable, receiver_age: utf8 nullable, receiver_gender: utf8 nullable, metadata_source: utf8 nullable, persona_country: utf8 nullable, persona_demo: utf8 nullable, expectation: utf8, preference: utf8, follow_option: utf8, allow_option: utf8, human: struct<follow_culture: float64, n: int64 nullable, personal: float64 nullable, norm: float64 nullable, answers: list<item: struct<respondent: utf8, country: utf8 nullable, demo: utf8 nullable, age: utf8 nullable, gender: utf8 nullable, personal: utf8 nullable, norm: utf8 nullable>> nullable> nullable> nullable=true",
		"pact list<item: struct<model: utf8, question: utf8, method: utf8, p_follow: float64 nullable, samples: int64, valid: int64, majority: utf8 nullable, entropy: float64 nullable, error: utf8 nullable, base: bool nullable>> nullable=true",
		"episode struct<subgroup: utf8, domain: utf8, goal: utf8, constraints: list<item: struct<id: utf8, text: utf8, norm_id: utf8 nullable, reveal: utf8 nullable>>, opening: utf8> nullable=true",
		"sim struct<assistant: utf8, mode: utf8, end: utf8, revealed: list<item: utf8> nullable, judge: struct<assistance: int64, assistance_rationale: utf8 nullable, cultural: int64, cultural_rationale: utf8 nullable, language: int64, language_rationale: utf8 nullable, constraints: list<item: struct<id: utf8, outcome: utf8, rationale: utf8 nullable>> nullable> nullable, human: struct<assistance: float64 nullable, cultural: float64 nullable, language: float64 nullable, reviewers: int64> nullable> nullable=true",
		"extra utf8 nullable=true",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Arrow schema of Record:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Same top-level names as JSON (plus extra) and as Parquet.
	names := append(record.JSONFields(record.Record{}), "extra")
	if len(names) != len(s.Fields()) {
		t.Fatalf("%d Arrow columns, %d JSON fields + extra", len(s.Fields()), len(names))
	}
	pq := writeParquet[record.Record](t, nil, WriteOptions{})
	pqSchema := parquetSchemaNames(t, pq)
	for i, f := range s.Fields() {
		if f.Name != names[i] || f.Name != pqSchema[i] {
			t.Errorf("column %d: Arrow %q, JSON %q, Parquet %q", i, f.Name, names[i], pqSchema[i])
		}
	}
	// Nested field nullability follows `optional`: turn.speaker is required.
	lt := s.Field(11).Type.(*arrow.ListType)
	st := lt.Elem().(*arrow.StructType)
	if lt.ElemField().Nullable {
		t.Error("turns items are nullable; Go slices of structs have no nulls")
	}
	for _, c := range []struct {
		name     string
		nullable bool
	}{{"index", false}, {"speaker", false}, {"text", false}, {"action", true}, {"labels", true}} {
		i, _ := st.FieldIdx(c.name)
		if st.Field(i).Nullable != c.nullable {
			t.Errorf("turns.%s nullable = %v, want %v", c.name, st.Field(i).Nullable, c.nullable)
		}
	}
}

func parquetSchemaNames(t *testing.T, b []byte) []string {
	t.Helper()
	tbl := readPQArrow(t, b)
	defer tbl.Release()
	var names []string
	for _, f := range tbl.Schema().Fields() {
		names = append(names, f.Name)
	}
	return names
}

func TestArrowTurnRow(t *testing.T) {
	var rows []record.TurnRow
	for i := 0; i < 40; i++ {
		r := testRecord(i)
		rows = append(rows, record.Explode(&r)...)
	}
	for _, file := range []bool{false, true} {
		b := writeArrow(t, rows, file, nil)
		var batches []arrow.RecordBatch
		var schema *arrow.Schema
		if file {
			fr, err := ipc.NewFileReader(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			schema = fr.Schema()
			for i := 0; i < fr.NumRecords(); i++ {
				rec, err := fr.RecordBatchAt(i)
				if err != nil {
					t.Fatal(err)
				}
				batches = append(batches, rec)
			}
			fr.Close()
		} else {
			tbl := arrowStreamTable(t, b)
			schema = tbl.Schema()
			tr := array.NewTableReader(tbl, 1<<20)
			for tr.Next() {
				rec := tr.RecordBatch()
				rec.Retain()
				batches = append(batches, rec)
			}
			tr.Release()
			tbl.Release()
		}
		col := func(name string) int { return schema.FieldIndices(name)[0] }
		k := 0
		for _, rec := range batches {
			ids := rec.Column(col("id")).(*array.String)
			text := rec.Column(col("text")).(*array.String)
			idx := rec.Column(col("turn_index")).(*array.Int64)
			turns := rec.Column(col("turns")).(*array.Int64)
			rots := rec.Column(col("rots")).(*array.List)
			for i := 0; i < int(rec.NumRows()); i++ {
				want := rows[k]
				if ids.Value(i) != want.ID || text.Value(i) != want.Text || idx.Value(i) != int64(want.TurnIndex) || turns.Value(i) != int64(want.Turns) {
					t.Fatalf("file=%v row %d: got id=%q text=%q idx=%d turns=%d, want %+v", file, k, ids.Value(i), text.Value(i), idx.Value(i), turns.Value(i), want)
				}
				start, end := rots.ValueOffsets(i)
				if int(end-start) != len(want.Rots) {
					t.Fatalf("row %d: %d rots, want %d", k, end-start, len(want.Rots))
				}
				k++
			}
			rec.Release()
		}
		if k != len(rows) {
			t.Fatalf("file=%v: read %d rows, want %d", file, k, len(rows))
		}
	}
}

func TestArrowManyRows(t *testing.T) {
	n := 50000
	if testing.Short() {
		n = 5000
	}
	recs := testRecords(n)
	for _, file := range []bool{false, true} {
		b := writeArrow(t, recs, file, nil)
		if file {
			fr, err := ipc.NewFileReader(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			if fr.NumRecords() < n/arrowBatchRows {
				t.Errorf("%d record batches for %d rows", fr.NumRecords(), n)
			}
			fr.Close()
		}
		checkRecords(t, readAll(t, openArrow(t, b, file, nil)), n)
	}
}

func TestArrowEmpty(t *testing.T) {
	for _, file := range []bool{false, true} {
		b := writeArrow[record.Record](t, nil, file, nil)
		if got := readAll(t, openArrow(t, b, file, nil)); len(got) != 0 {
			t.Fatalf("file=%v: %d records from an empty output", file, len(got))
		}
	}
}

// TestArrowForeign reads a stream as another tool might write it: other
// integer and string widths, a dictionary-encoded column, a missing column,
// and columns Record does not have (which land in Extra).
func TestArrowForeign(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	turnType := arrow.StructOf(
		arrow.Field{Name: "index", Type: arrow.PrimitiveTypes.Int32},
		arrow.Field{Name: "speaker", Type: arrow.BinaryTypes.LargeString, Nullable: true},
		arrow.Field{Name: "text", Type: arrow.BinaryTypes.String, Nullable: true},
		arrow.Field{Name: "unknown_nested", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
	)
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.BinaryTypes.LargeString},
		{Name: "culture", Type: &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}, Nullable: true},
		{Name: "turns", Type: arrow.LargeListOf(turnType), Nullable: true},
		{Name: "source", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "score", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "tags", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
		{Name: "extra", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	rb := array.NewRecordBuilder(mem, schema)
	defer rb.Release()
	rb.Field(0).(*array.LargeStringBuilder).AppendValues([]string{"a", "b"}, nil)
	db := rb.Field(1).(*array.BinaryDictionaryBuilder)
	db.AppendString("korean")
	db.AppendNull()
	lb := rb.Field(2).(*array.LargeListBuilder)
	sb := lb.ValueBuilder().(*array.StructBuilder)
	lb.Append(true)
	sb.Append(true)
	sb.FieldBuilder(0).(*array.Int32Builder).Append(7)
	sb.FieldBuilder(1).(*array.LargeStringBuilder).Append("민수")
	sb.FieldBuilder(2).(*array.StringBuilder).Append("안녕")
	sb.FieldBuilder(3).(*array.Int8Builder).Append(1)
	lb.AppendNull()
	rb.Field(3).(*array.StringBuilder).AppendValues([]string{"hub", ""}, []bool{true, false})
	rb.Field(4).(*array.Float32Builder).AppendValues([]float32{0.5, 0}, []bool{true, false})
	tb := rb.Field(5).(*array.ListBuilder)
	tb.Append(true)
	tb.ValueBuilder().(*array.StringBuilder).AppendValues([]string{"x", "y"}, nil)
	tb.AppendNull()
	rb.Field(6).(*array.StringBuilder).AppendValues([]string{`{"source":"kept","k":1}`, ""}, []bool{true, false})
	rec := rb.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(schema), ipc.WithAllocator(mem))
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got := readAll(t, openArrow(t, buf.Bytes(), false, mem))
	want := []record.Record{
		{ID: "a", Culture: "korean", Turns: []record.Turn{{Index: 7, Speaker: "민수", Text: "안녕"}},
			Extra: map[string]json.RawMessage{
				"source": json.RawMessage(`"hub"`), // a column wins over the same key in extra, as in JSONL
				"k":      json.RawMessage(`1`),
				"score":  json.RawMessage(`0.5`),
				"tags":   json.RawMessage(`["x","y"]`),
			}},
		{ID: "b"},
	}
	if !reflect.DeepEqual(got, want) {
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(want)
		t.Errorf("got  %s\nwant %s", gj, wj)
	}
}

func TestArrowCorrupt(t *testing.T) {
	recs := testRecords(300)
	for _, file := range []bool{false, true} {
		b := writeArrow(t, recs, file, nil)
		for what, c := range corruptions(b) {
			var r Reader
			var err error
			if file {
				r, err = NewArrowFileReader("bad.arrow", bytes.NewReader(c), int64(len(c)))
			} else {
				r, err = NewArrowReader("bad.arrows", bytes.NewReader(c))
			}
			if err == nil {
				var got int
				got, err = drain(r)
				r.Close()
				if err == nil && strings.HasPrefix(what, "truncated") {
					t.Errorf("file=%v %s: read %d records and no error", file, what, got)
					continue
				}
			}
			if err != nil {
				checkReadError(t, what, err)
			}
		}
	}
}

// TestArrowStreamTruncatedAtBatch: a stream cut between two record batches,
// or missing only its end-of-stream marker, is an error: arrow-go alone
// would report a clean end and records would be lost in silence.
func TestArrowStreamTruncatedAtBatch(t *testing.T) {
	recs := testRecords(3000)
	b := writeArrow(t, recs, false, nil)
	// Find the message boundaries by re-reading with a byte counter.
	tr := &tailReader{r: bytes.NewReader(b)}
	sr, err := ipc.NewReader(tr)
	if err != nil {
		t.Fatal(err)
	}
	var cuts []int64
	for sr.Next() {
		cuts = append(cuts, tr.n)
	}
	sr.Release()
	cuts = append(cuts, int64(len(b)-8))
	if len(cuts) < 3 {
		t.Fatalf("only %d batches", len(cuts)-1)
	}
	for _, cut := range cuts {
		r, err := NewArrowReader("cut.arrows", bytes.NewReader(b[:cut]))
		if err != nil {
			t.Fatal(err)
		}
		n, err := drain(r)
		if err == nil {
			t.Errorf("stream cut at byte %d of %d: %d of %d records and no error", cut, len(b), n, len(recs))
			continue
		}
		checkReadError(t, "cut", err)
	}
	// A stream delivered with its last bytes and io.EOF in one Read is fine.
	r, err := NewArrowReader("whole.arrows", &eofWithData{b: b})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := drain(r); err != nil || n != len(recs) {
		t.Errorf("whole stream: %d records, %v", n, err)
	}
}

// eofWithData returns io.EOF together with the last bytes.
type eofWithData struct{ b []byte }

func (r *eofWithData) Read(p []byte) (int, error) {
	n := copy(p, r.b)
	r.b = r.b[n:]
	if len(r.b) == 0 {
		return n, io.EOF
	}
	return n, nil
}

func FuzzArrowReader(f *testing.F) {
	recs := testRecords(6)
	var stream, file bytes.Buffer
	for _, x := range []struct {
		buf  *bytes.Buffer
		file bool
	}{{&stream, false}, {&file, true}} {
		w, err := NewArrowWriter[record.Record](x.buf, x.file)
		if err != nil {
			f.Fatal(err)
		}
		for i := range recs {
			if err := w.Write(&recs[i]); err != nil {
				f.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			f.Fatal(err)
		}
	}
	f.Add(stream.Bytes())
	f.Add(file.Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, file := range []bool{false, true} {
			var r Reader
			var err error
			if file {
				r, err = NewArrowFileReader("fuzz.arrow", bytes.NewReader(b), int64(len(b)))
			} else {
				r, err = NewArrowReader("fuzz.arrows", bytes.NewReader(b))
			}
			if err != nil {
				checkReadError(t, "open", err)
				continue
			}
			for i := 0; i < 100; i++ {
				_, err := r.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					checkReadError(t, "next", err)
					break
				}
			}
			r.Close()
		}
	})
}

func BenchmarkArrowWriter(b *testing.B) {
	for _, file := range []bool{false, true} {
		b.Run(map[bool]string{false: "stream", true: "file"}[file], func(b *testing.B) {
			benchWrite(b, func(w io.Writer) (Writer[record.Record], error) {
				return NewArrowWriter[record.Record](w, file)
			})
		})
	}
}

func BenchmarkArrowReader(b *testing.B) {
	recs := benchRecords(4096)
	data := writeArrow(b, recs, false, nil)
	b.SetBytes(jsonlSize(recs) / int64(len(recs)))
	b.ReportAllocs()
	b.ResetTimer()
	var r Reader
	for i := 0; i < b.N; i++ {
		if i%len(recs) == 0 {
			if r != nil {
				r.Close()
			}
			var err error
			if r, err = NewArrowReader("bench", bytes.NewReader(data)); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := r.Next(); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// TestArrowHugeDeclaredSizes: a stream or file whose message declares a
// body, or whose compressed buffer declares an uncompressed size, far
// beyond what exists is an error naming the file, not a fatal out of
// memory (which no recover catches and which would lose the whole run).
func TestArrowHugeDeclaredSizes(t *testing.T) {
	const n = 1000
	sch := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewInt64Builder(memory.DefaultAllocator)
	for i := 0; i < n; i++ {
		b.Append(int64(i))
	}
	col := b.NewArray()
	batch := array.NewRecordBatch(sch, []arrow.Array{col}, n)
	defer batch.Release()
	defer col.Release()
	write := func(file bool) []byte {
		var buf bytes.Buffer
		opts := []ipc.Option{ipc.WithSchema(sch), ipc.WithZstd()}
		var w interface {
			Write(arrow.RecordBatch) error
			Close() error
		}
		if file {
			fw, err := ipc.NewFileWriter(&buf, opts...)
			if err != nil {
				t.Fatal(err)
			}
			w = fw
		} else {
			w = ipc.NewWriter(&buf, opts...)
		}
		if err := w.Write(batch); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	// The data buffer starts with its uncompressed length, 8n, as int64.
	var size [8]byte
	binary.LittleEndian.PutUint64(size[:], 8*n)
	for _, file := range []bool{false, true} {
		good := write(file)
		if got, err := drain(openArrow(t, good, file, nil)); err != nil || got != n {
			t.Fatalf("file=%v: the unpatched input reads %d rows, %v", file, got, err)
		}
		if bytes.Count(good, size[:]) != 1 {
			t.Fatalf("file=%v: the uncompressed length is not found once", file)
		}
		bad := bytes.Replace(good, size[:], binary.LittleEndian.AppendUint64(nil, 1<<40), 1)
		got, err := drain(openArrow(t, bad, file, nil))
		if err == nil || !strings.Contains(err.Error(), "corrupt") {
			t.Fatalf("file=%v: a 1 TB uncompressed buffer: %d rows, error %v", file, got, err)
		}
		checkReadError(t, "huge buffer", err)
		name := map[bool]string{false: "test.arrows", true: "test.arrow"}[file]
		if !strings.HasPrefix(err.Error(), name+":row 1: ") {
			t.Errorf("file=%v: error does not name the file: %v", file, err)
		}
	}
}
