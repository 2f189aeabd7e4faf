package hf

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
	"go.yaml.in/yaml/v3"

	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/recio"
	"github.com/ngkit/ngkit/pkg/record"
)

var _ pipeline.Sink = (*Writer)(nil)

func ptr[T any](v T) *T { return &v }

// testRecord i: every field set (even i, Korean for i%4 == 2) or almost
// nothing (odd i).
func testRecord(i int) *record.Record {
	id := record.NewID("hf-test", strconv.Itoa(i))
	if i%2 == 1 {
		return &record.Record{ID: id, Culture: "american"} // lang from the culture
	}
	lang, culture := "en", "american"
	if i%4 == 2 {
		lang, culture = "ko-KR", "korean"
	}
	turns := make([]record.Turn, 2+i%3)
	for k := range turns {
		turns[k] = record.Turn{
			Index: k, Speaker: []string{"민수", "Alice"}[k%2], Action: "smiles", Text: fmt.Sprintf("turn %d of %d 안녕", k, i),
			Lang: lang, Stage: "repair",
			Labels: &record.Labels{
				Norm: "adhered", Intent: "THX", Emotion: "joy", Stage: "repair", Safety: "casual",
				Rots: []string{"It's good to thank people."}, Explanation: "thanks",
				NormDist:    map[string]float64{"violated": 0.25, "adhered": 0.75},
				IntentDist:  map[string]float64{"THX": 1},
				EmotionDist: map[string]float64{"joy": 0.5, "neutral": 0.5},
				StageDist:   map[string]float64{"repair": 1},
				SafetyDist:  map[string]float64{"casual": 1},
				Agreement:   0.75,
			},
		}
	}
	return &record.Record{
		ID: id, ParentID: "seed-" + id, Culture: culture, Lang: lang, Category: "thanks",
		NormID: "norm-1", Norm: "Thank people.", DialogueType: record.TypeV2R,
		Scenario: "s", Situation: strings.Repeat("situation ", 20),
		Refinement: &record.Refinement{Rounds: 2, Before: &record.Scores{TaskRelevance: 3}, After: &record.Scores{TaskRelevance: 5},
			ExemplarIDs: []string{"ex-1"}, Accepted: true, Critique: "ok"},
		Turns:      turns,
		Narration:  []string{"They meet."},
		LabelsMeta: &record.LabelsMeta{Model: "m", Tasks: []string{"norm"}, Samples: 3, Agreement: 0.8, Kappa: 0.6},
		Quality: &record.Quality{Consistency: 5, Naturalness: 4, Relevance: 5, Coherence: 4, Emotion: 3, Norm: 3,
			Explanations: map[string]string{"norm": "resolved", "emotion": "평범함"}},
		Checks: &record.Checks{LangExpected: "en", LangOK: ptr(true), LangShare: 0.9, Defects: []string{"markdown"}, Unplaced: []string{"[END]"}},
		Gen:    []record.Gen{{Stage: "ngv2r", Call: "c", Model: "m", PromptPack: "v1", TokensIn: 10, TokensOut: 20, CacheHit: true, Retries: 1, Seconds: 1.5}},
		Extra:  map[string]json.RawMessage{"source": json.RawMessage(`"test"`), "n": json.RawMessage(`[1,2]`)},
	}
}

// export writes n test records to a new folder and returns its path.
func export(t *testing.T, n int, opt Options) string {
	t.Helper()
	if opt.Dir == "" {
		opt.Dir = filepath.Join(t.TempDir(), "ds")
	}
	w, err := New(opt)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if err := w.Write(testRecord(i)); err != nil {
			w.Abort()
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return opt.Dir
}

// card is the front matter of a card, as the datasets library reads it.
type card struct {
	PrettyName     string   `yaml:"pretty_name"`
	License        string   `yaml:"license"`
	Language       []string `yaml:"language"`
	TaskCategories []string `yaml:"task_categories"`
	SizeCategories []string `yaml:"size_categories"`
	Configs        []struct {
		ConfigName string `yaml:"config_name"`
		DataFiles  []struct {
			Split string `yaml:"split"`
			Path  string `yaml:"path"`
		} `yaml:"data_files"`
	} `yaml:"configs"`
	DatasetInfo struct {
		Features []map[string]any `yaml:"features"`
		Splits   []struct {
			Name        string `yaml:"name"`
			NumExamples int64  `yaml:"num_examples"`
		} `yaml:"splits"`
		DownloadSize int64 `yaml:"download_size"`
	} `yaml:"dataset_info"`
}

func readCard(t *testing.T, dir string) (card, string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if !strings.HasPrefix(s, "---\n") {
		t.Fatalf("card does not start with front matter: %.40q", s)
	}
	front, body, ok := strings.Cut(s[4:], "\n---\n")
	if !ok {
		t.Fatal("card: front matter not closed")
	}
	var c card
	if err := yaml.Unmarshal([]byte(front), &c); err != nil {
		t.Fatalf("card YAML: %v\n%s", err, front)
	}
	return c, body
}

type shardFile struct {
	path string
	f    *parquet.File
}

func openShards(t *testing.T, dir string) []shardFile {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, DataDir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	var out []shardFile
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parquet.OpenFile(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		out = append(out, shardFile{p, f})
	}
	return out
}

// readRows reads a shard's rows back as records: lists of {key, value}
// become maps again.
func readRows(t *testing.T, f *parquet.File) []*record.Record {
	t.Helper()
	r := parquet.NewReader(f)
	defer r.Close()
	var out []*record.Record
	for {
		row := reflect.New(rowType)
		if err := r.Read(row.Interface()); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			t.Fatal(err)
		}
		var rec record.Record
		back(reflect.ValueOf(&rec).Elem(), row.Elem())
		if err := rec.DecodeExtra(); err != nil {
			t.Fatal(err)
		}
		out = append(out, &rec)
	}
	return out
}

// back is the inverse of convert.
func back(dst, src reflect.Value) {
	if dst.Type() == src.Type() {
		dst.Set(src)
		return
	}
	switch dst.Kind() {
	case reflect.Pointer:
		if !src.IsNil() {
			p := reflect.New(dst.Type().Elem())
			back(p.Elem(), src.Elem())
			dst.Set(p)
		}
	case reflect.Slice:
		if src.Len() > 0 {
			s := reflect.MakeSlice(dst.Type(), src.Len(), src.Len())
			for i := range src.Len() {
				back(s.Index(i), src.Index(i))
			}
			dst.Set(s)
		}
	case reflect.Map:
		if src.Len() > 0 {
			m := reflect.MakeMap(dst.Type())
			for i := range src.Len() {
				k := reflect.New(dst.Type().Key()).Elem()
				v := reflect.New(dst.Type().Elem()).Elem()
				back(k, src.Index(i).Field(0))
				back(v, src.Index(i).Field(1))
				m.SetMapIndex(k, v)
			}
			dst.Set(m)
		}
	case reflect.Struct:
		j := 0
		for i := range dst.NumField() {
			if !isColumn(dst.Type().Field(i)) {
				continue
			}
			back(dst.Field(i), src.Field(j))
			j++
		}
	}
}

// checkFeature compares a card feature, as parsed from YAML, with the
// column of the file, independently of FeaturesOf: same dtype, same
// nesting, same fields in the same order.
func checkFeature(t *testing.T, path string, feat map[string]any, n parquet.Node) {
	t.Helper()
	kind := ""
	for _, k := range []string{"dtype", "struct", "list"} {
		if _, ok := feat[k]; ok {
			if kind != "" {
				t.Errorf("%s: feature has both %s and %s", path, kind, k)
			}
			kind = k
		}
	}
	isList := !n.Leaf() && n.Type().LogicalType() != nil && isType[*format.ListType](n.Type().LogicalType())
	switch kind {
	case "dtype":
		if !n.Leaf() {
			t.Errorf("%s: card says dtype %v, the file has a group", path, feat["dtype"])
			return
		}
		want := map[parquet.Kind]string{parquet.ByteArray: "string", parquet.Int64: "int64", parquet.Double: "float64", parquet.Boolean: "bool"}[n.Type().Kind()]
		if feat["dtype"] != want {
			t.Errorf("%s: card dtype %v, file %v (want %q)", path, feat["dtype"], n.Type(), want)
		}
		if want == "string" && n.Type().LogicalType().String() != "STRING" {
			t.Errorf("%s: byte array without the STRING type: %v", path, n.Type().LogicalType())
		}
	case "struct":
		if n.Leaf() || isList {
			t.Errorf("%s: card says struct, the file has %v", path, n.Type())
			return
		}
		checkFields(t, path, feat["struct"], n.Fields())
	case "list":
		if !isList {
			t.Errorf("%s: card says list, the file has %v", path, n.Type())
			return
		}
		elem := n.Fields()[0].Fields()[0] // LIST -> repeated list -> element
		switch l := feat["list"].(type) {
		case string:
			checkFeature(t, path+"[]", map[string]any{"dtype": l}, elem)
		case []any:
			if elem.Leaf() {
				t.Errorf("%s: card says list of structs, the file has a list of %v", path, elem.Type())
				return
			}
			checkFields(t, path+"[]", l, elem.Fields())
		case map[string]any:
			checkFeature(t, path+"[]", l, elem)
		default:
			t.Errorf("%s: list: %#v", path, l)
		}
	default:
		t.Errorf("%s: feature without a type: %v", path, feat)
	}
}

func checkFields(t *testing.T, path string, v any, fields []parquet.Field) {
	t.Helper()
	list, ok := v.([]any)
	if !ok {
		t.Errorf("%s: fields are %T", path, v)
		return
	}
	if len(list) != len(fields) {
		var names []string
		for _, f := range fields {
			names = append(names, f.Name())
		}
		t.Errorf("%s: %d fields on the card, %d in the file (%v)", path, len(list), len(fields), names)
		return
	}
	for i, x := range list {
		m, _ := x.(map[string]any)
		if m["name"] != fields[i].Name() {
			t.Errorf("%s: field %d is %v on the card, %s in the file", path, i, m["name"], fields[i].Name())
			continue
		}
		checkFeature(t, path+"."+fields[i].Name(), m, fields[i])
	}
}

// TestCardMatchesFiles: the card parsed back agrees with the files: every
// column with its type and nesting, nothing more; data_files globs match
// each split's files and no others; num_examples are the row counts; the
// page index is there.
func TestCardMatchesFiles(t *testing.T) {
	splits, _ := record.ParseSplits("train=0.7,test=0.3")
	dir := export(t, 60, Options{Splits: splits, ShardBytes: 8 << 10, Card: CardInfo{PrettyName: "Test: a card", License: "cc-by-sa-4.0"}})
	c, body := readCard(t, dir)
	if c.PrettyName != "Test: a card" || c.License != "cc-by-sa-4.0" {
		t.Errorf("name %q, licence %q", c.PrettyName, c.License)
	}
	if !reflect.DeepEqual(c.Language, []string{"en", "ko"}) {
		t.Errorf("language %v, want [en ko]", c.Language)
	}
	if !reflect.DeepEqual(c.SizeCategories, []string{"n<1K"}) || len(c.TaskCategories) == 0 {
		t.Errorf("size %v, tasks %v", c.SizeCategories, c.TaskCategories)
	}
	if !strings.Contains(body, "load_dataset") || !strings.Contains(body, "| test |") {
		t.Errorf("default body:\n%s", body)
	}

	shards := openShards(t, dir)
	if len(shards) < 4 {
		t.Fatalf("%d files, want several shards per split", len(shards))
	}
	for _, s := range shards {
		fields := s.f.Schema().Fields()
		if len(fields) != len(c.DatasetInfo.Features) {
			t.Errorf("%s: %d columns, %d features", s.path, len(fields), len(c.DatasetInfo.Features))
		}
		checkFields(t, filepath.Base(s.path), toAnyList(c.DatasetInfo.Features), fields)
		for _, rg := range s.f.Metadata().RowGroups {
			for _, col := range rg.Columns {
				// Every chunk has an offset index and a column index,
				// except that arrow-go (v18.8) discards the column index
				// of a chunk of nulls only inside a list (see
				// TestParquetFooter in pkg/recio).
				if col.OffsetIndexOffset == 0 || col.OffsetIndexLength == 0 {
					t.Errorf("%s: %v: no offset index", s.path, col.MetaData.PathInSchema)
				}
				allNull := col.MetaData.Statistics.NullCount == col.MetaData.NumValues
				inList := slices.Contains(col.MetaData.PathInSchema, "list")
				if (col.ColumnIndexOffset == 0 || col.ColumnIndexLength == 0) && !(allNull && inList) {
					t.Errorf("%s: %v: no column index", s.path, col.MetaData.PathInSchema)
				}
			}
		}
	}

	if len(c.Configs) != 1 || c.Configs[0].ConfigName != "default" {
		t.Fatalf("configs %+v", c.Configs)
	}
	matched := map[string]string{}
	counts := map[string]int64{}
	for _, df := range c.Configs[0].DataFiles {
		files, err := filepath.Glob(filepath.Join(dir, df.Path))
		if err != nil || len(files) == 0 {
			t.Errorf("split %s: %s matches nothing (%v)", df.Split, df.Path, err)
		}
		for _, f := range files {
			if other, ok := matched[f]; ok {
				t.Errorf("%s matched by splits %s and %s", f, other, df.Split)
			}
			matched[f] = df.Split
			if !strings.HasPrefix(filepath.Base(f), df.Split+"-") {
				t.Errorf("split %s matches %s", df.Split, f)
			}
		}
	}
	var total int64
	for _, s := range shards {
		sp, ok := matched[s.path]
		if !ok {
			t.Errorf("%s matched by no split", s.path)
		}
		counts[sp] += s.f.NumRows()
		total += s.f.NumRows()
	}
	if total != 60 {
		t.Errorf("%d rows in all, want 60", total)
	}
	if len(c.DatasetInfo.Splits) != 2 {
		t.Fatalf("splits %+v", c.DatasetInfo.Splits)
	}
	for _, s := range c.DatasetInfo.Splits {
		if s.NumExamples != counts[s.Name] || s.NumExamples == 0 {
			t.Errorf("split %s: num_examples %d, files hold %d", s.Name, s.NumExamples, counts[s.Name])
		}
	}
	var size int64
	for _, s := range shards {
		st, _ := os.Stat(s.path)
		size += st.Size()
	}
	if c.DatasetInfo.DownloadSize != size {
		t.Errorf("download_size %d, files %d", c.DatasetInfo.DownloadSize, size)
	}
}

func toAnyList(fs []map[string]any) []any {
	out := make([]any, len(fs))
	for i, f := range fs {
		out[i] = f
	}
	return out
}

// TestFeaturesFollowRecord: the features are the record's columns, with
// maps as lists of {key, value}.
func TestFeaturesFollowRecord(t *testing.T) {
	fs, err := Features()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range fs {
		names = append(names, f.Name)
	}
	var want []string
	rt := reflect.TypeFor[record.Record]()
	for i := range rt.NumField() {
		if isColumn(rt.Field(i)) {
			name, _, _ := strings.Cut(rt.Field(i).Tag.Get("parquet"), ",")
			want = append(want, name)
		}
	}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("features %v\nrecord columns %v", names, want)
	}
	b, _ := yaml.Marshal(fs)
	// the PACT item's persona-prompted run and the respondents'
	// demographics (the persona-subgroup alignment's fields) too
	for _, s := range []string{"name: norm_dist\n", "name: key\n", "list: string\n", "name: extra\n  dtype: string\n",
		"name: persona_country\n", "name: persona_demo\n", "name: demo\n", "name: gender\n"} {
		if !strings.Contains(string(b), s) {
			t.Errorf("features YAML has no %q", s)
		}
	}
	// A map column is refused rather than described wrongly.
	withMap := arrow.NewSchema([]arrow.Field{{Name: "norm_dist", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Float64)}}, nil)
	if _, err := FeaturesOf(withMap); err == nil || !strings.Contains(err.Error(), "norm_dist") {
		t.Errorf("MAP column: error %v", err)
	}
}

var shardRE = regexp.MustCompile(`^(\w+)-(\d{5})-of-(\d{5})\.parquet$`)

// TestShards: a small shard size makes several shards per split, named
// -0000K-of-0000N; every record is in exactly one, in its split, whole; a
// second export gives the same files.
func TestShards(t *testing.T) {
	splits, _ := record.ParseSplits("train=0.8,dev=0.1,test=0.1")
	const n = 120
	opt := Options{Splits: splits, ShardBytes: 12 << 10, Write: recio.WriteOptions{RowGroupBytes: 6 << 10}}
	dir := export(t, n, opt)
	want := map[string]*record.Record{}
	for i := range n {
		r := testRecord(i)
		want[r.ID] = r
	}
	perSplit := map[string][]int{}
	ofN := map[string]int{}
	seen := map[string]bool{}
	rowGroups := 0
	for _, s := range openShards(t, dir) {
		m := shardRE.FindStringSubmatch(filepath.Base(s.path))
		if m == nil {
			t.Fatalf("file name %s", s.path)
		}
		k, _ := strconv.Atoi(m[2])
		nn, _ := strconv.Atoi(m[3])
		if prev, ok := ofN[m[1]]; ok && prev != nn {
			t.Errorf("%s: of %d, other shards of %d", s.path, nn, prev)
		}
		ofN[m[1]] = nn
		perSplit[m[1]] = append(perSplit[m[1]], k)
		rowGroups += len(s.f.RowGroups())
		rows := readRows(t, s.f)
		if int64(len(rows)) != s.f.NumRows() || len(rows) == 0 {
			t.Errorf("%s: %d rows read, %d in the footer", s.path, len(rows), s.f.NumRows())
		}
		for _, r := range rows {
			if seen[r.ID] {
				t.Errorf("%s written twice", r.ID)
			}
			seen[r.ID] = true
			if sp := record.AssignSplit(splits, r.ID); sp != m[1] {
				t.Errorf("%s in %s, belongs to %s", r.ID, m[1], sp)
			}
			w := want[r.ID]
			if w == nil {
				t.Errorf("unknown id %s", r.ID)
				continue
			}
			if a, b := jsonOf(t, r), jsonOf(t, w); a != b {
				t.Errorf("%s changed:\n got %s\nwant %s", r.ID, a, b)
			}
		}
	}
	if len(seen) != n {
		t.Errorf("%d records read back, want %d", len(seen), n)
	}
	for sp, ks := range perSplit {
		sort.Ints(ks)
		for i, k := range ks {
			if k != i {
				t.Errorf("split %s: shards %v, want 0..%d", sp, ks, len(ks)-1)
				break
			}
		}
		if len(ks) != ofN[sp] {
			t.Errorf("split %s: %d shards named of %d", sp, len(ks), ofN[sp])
		}
	}
	t.Logf("%v shards, %d row groups", ofN, rowGroups)
	if ofN["train"] < 3 || rowGroups <= len(seen)/50 {
		t.Errorf("train in %d shards, %d row groups: sizes not applied", ofN["train"], rowGroups)
	}
	if a, b := digest(t, dir), digest(t, export(t, n, opt)); a != b {
		t.Errorf("two exports differ:\n%s\n%s", a, b)
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

// digest lists a folder's files with a hash of each.
func digest(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		fmt.Fprintf(&b, "%s %x\n", rel, sha256.Sum256(data))
		return nil
	})
	return b.String()
}

// TestEmpty: no records still make a loadable folder: one empty file per
// split, num_examples 0.
func TestEmpty(t *testing.T) {
	dir := export(t, 0, Options{})
	c, _ := readCard(t, dir)
	shards := openShards(t, dir)
	if len(shards) != 1 || filepath.Base(shards[0].path) != "train-00000-of-00001.parquet" || shards[0].f.NumRows() != 0 {
		t.Fatalf("files %v", shards)
	}
	if len(c.DatasetInfo.Splits) != 1 || c.DatasetInfo.Splits[0].NumExamples != 0 || c.Language != nil {
		t.Errorf("card %+v", c)
	}
}

// listDir lists what is in dir and beside it.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(filepath.Dir(dir), func(p string, d os.DirEntry, err error) error {
		if err == nil {
			rel, _ := filepath.Rel(filepath.Dir(dir), p)
			out = append(out, rel)
		}
		return nil
	})
	return out
}

// TestAbortLeavesNothing: Abort, or a failure before Close, leaves the
// folder as it was (absent, or with its old export) and no temporary
// folder beside it.
func TestAbortLeavesNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ds")
	w, err := New(Options{Dir: dir, ShardBytes: 1})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if err := w.Write(testRecord(i)); err != nil {
			t.Fatal(err)
		}
	}
	w.Abort()
	if got := listDir(t, dir); len(got) != 1 { // "."
		t.Errorf("after Abort: %v", got)
	}

	// An old export stays whole when a new one is aborted.
	export(t, 3, Options{Dir: dir})
	before := digest(t, dir)
	w, err = New(Options{Dir: dir, Force: true})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(testRecord(9))
	w.Abort()
	if after := digest(t, dir); after != before {
		t.Errorf("aborted export changed the old one:\n%s\n%s", before, after)
	}
	if got := listDir(t, dir); len(got) != 5 { // . ds ds/README.md ds/data ds/data/train-...
		t.Errorf("after Abort: %v", got)
	}

	// A write that fails (the temporary folder is gone) is an error, and
	// Close then refuses to publish.
	w, err = New(Options{Dir: filepath.Join(t.TempDir(), "ds2")})
	if err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(w.tmp)
	if err := w.Write(testRecord(0)); err == nil {
		t.Error("write into a removed folder: no error")
	}
	if err := w.Close(); err == nil {
		t.Error("Close after a failed write: no error")
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(w.dir), "ds2")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ds2 exists after a failed export: %v", err)
	}
}

// TestRefusesExisting: a folder with data/ or a card is refused without
// Force; with Force, data/ and README.md are replaced (stale shards gone)
// and the rest of the folder is kept.
func TestRefusesExisting(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ds")
	os.MkdirAll(filepath.Join(dir, DataDir), 0o755)
	w, err := New(Options{Dir: dir})
	if err != nil {
		t.Fatalf("empty data/: %v", err)
	}
	w.Abort()
	os.WriteFile(filepath.Join(dir, DataDir, "train-00000-of-00009.parquet"), []byte("old"), 0o644)
	os.WriteFile(filepath.Join(dir, ".gitattributes"), []byte("*.parquet filter=lfs\n"), 0o644)
	if _, err := New(Options{Dir: dir}); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("non-empty data/: %v", err)
	}
	os.Remove(filepath.Join(dir, DataDir, "train-00000-of-00009.parquet"))
	os.WriteFile(filepath.Join(dir, "README.md"), []byte("my card"), 0o644)
	if _, err := New(Options{Dir: dir}); err == nil || !strings.Contains(err.Error(), "README.md") {
		t.Fatalf("existing card: %v", err)
	}
	os.WriteFile(filepath.Join(dir, DataDir, "train-00000-of-00009.parquet"), []byte("old"), 0o644)
	export(t, 4, Options{Dir: dir, Force: true})
	got := listDir(t, dir)
	want := []string{".", "ds", "ds/.gitattributes", "ds/README.md", "ds/data", "ds/data/train-00000-of-00001.parquet"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("after --force: %v, want %v", got, want)
	}
	if f := filepath.Join(t.TempDir(), "file"); os.WriteFile(f, nil, 0o644) == nil {
		if _, err := New(Options{Dir: f}); err == nil {
			t.Error("a file as the folder: no error")
		}
	}
	if _, err := New(Options{Dir: dir, Splits: []record.Split{{Name: "my-split", Share: 1}}}); err == nil {
		t.Error("split name with a dash: no error")
	}
}

type countSummary struct{ n int }

func (s *countSummary) Add(*record.Record) { s.n++ }
func (s *countSummary) Markdown() string   { return fmt.Sprintf("## Statistics\n\n%d records\n", s.n) }

// TestSummaryBody: the Summary sees every record and its Markdown follows
// the description.
func TestSummaryBody(t *testing.T) {
	s := &countSummary{}
	dir := export(t, 7, Options{Summary: s})
	_, body := readCard(t, dir)
	if s.n != 7 || !strings.HasSuffix(body, "\n\n## Statistics\n\n7 records\n") || !strings.Contains(body, "load_dataset") {
		t.Errorf("%d records seen, body %q", s.n, body)
	}
}

// TestCardAlone: Card builds the same front matter from counts alone (for
// ngstats --card), and checks split names.
func TestCardAlone(t *testing.T) {
	b, err := Card(CardInfo{Splits: []SplitInfo{{Name: "train", NumExamples: 12_345}}, Languages: []string{"zh"}}, "body")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "README.md"), b, 0o644)
	c, body := readCard(t, dir)
	if c.License != "unknown" || c.SizeCategories[0] != "10K<n<100K" || c.Configs[0].DataFiles[0].Path != "data/train-*" ||
		len(c.DatasetInfo.Features) == 0 || strings.TrimSpace(body) != "body" {
		t.Errorf("card %+v, body %q", c, body)
	}
	if _, err := Card(CardInfo{Splits: []SplitInfo{{Name: "a b"}}}, ""); err == nil {
		t.Error("bad split name: no error")
	}
	if _, err := Card(CardInfo{}, ""); err == nil {
		t.Error("no splits: no error")
	}
	for n, want := range map[int64]string{0: "n<1K", 999: "n<1K", 1000: "1K<n<10K", 135: "n<1K", 9600: "1K<n<10K", 2_000_000: "1M<n<10M"} {
		if got := SizeCategory(n); got != want {
			t.Errorf("SizeCategory(%d) = %s, want %s", n, got, want)
		}
	}
}

// TestRecioReadsExport: a shard is an ngkit Parquet file like any other
// (one schema for -o and --hf): ngkit's reader gives the records back,
// label distributions included.
func TestRecioReadsExport(t *testing.T) {
	dir := export(t, 3, Options{})
	p := filepath.Join(dir, DataDir, ShardName("train", 0, 1))
	r, err := recio.Open(p, recio.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for i := range 3 {
		got, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		want := testRecord(i)
		if g, w := mustJSON(t, got), mustJSON(t, want); g != w {
			t.Errorf("record %d:\n got %s\nwant %s", i, g, w)
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// BenchmarkWriter: records/s of an export (conversion of the maps, the
// reflection path of parquet-go, zstd).
func BenchmarkWriter(b *testing.B) {
	recs := make([]*record.Record, 2000)
	for i := range recs {
		recs[i] = testRecord(i)
	}
	b.ResetTimer()
	for range b.N {
		w, err := New(Options{Dir: filepath.Join(b.TempDir(), "ds")})
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range recs {
			if err := w.Write(r); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(recs)*b.N)/b.Elapsed().Seconds(), "records/s")
}

// TestCardProvenance: the card says which models and prompt packs made the
// data, counts languages and cultures, cites NormGenesis for its dialogue
// types and lists the limitations with the language check rate.
func TestCardProvenance(t *testing.T) {
	dir := export(t, 8, Options{})
	_, body := readCard(t, dir)
	for _, want := range []string{
		"## How the data was made", "| ngv2r | m | 4 |", "Prompt packs: v1.",
		"| en | 6 |", "| ko | 2 |", "| american | 6 |", "| korean | 2 |",
		"## Citation", "@inproceedings{hong2025normgenesis", "EMNLP",
		"## Limitations", "synthetic", "assigned by language models", "4 of 4 checked records (100.0%)",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("card body has no %q:\n%s", want, body)
		}
	}
	// Imported records with no gen and no NormGenesis type: no model table, no citation.
	var p Provenance
	p.Add(&record.Record{ID: "a", Culture: "american"})
	md := p.Markdown()
	if !strings.Contains(md, "name no model") || strings.Contains(md, "## Citation") || !strings.Contains(md, "No record carries a language check") {
		t.Errorf("provenance of plain records:\n%s", md)
	}
}

// TestForceFollowsCardLink: with Force, a README.md that links to a card
// kept elsewhere is followed (the card there is replaced, the link
// stays), as every output of ngkit follows a link.
func TestForceFollowsCardLink(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "ds")
	os.MkdirAll(dir, 0o755)
	kept := filepath.Join(base, "card.md")
	os.WriteFile(kept, []byte("old card"), 0o644)
	if err := os.Symlink(kept, filepath.Join(dir, "README.md")); err != nil {
		t.Fatal(err)
	}
	export(t, 2, Options{Dir: dir, Force: true})
	if st, err := os.Lstat(filepath.Join(dir, "README.md")); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v", err)
	}
	if b, _ := os.ReadFile(kept); !strings.HasPrefix(string(b), "---\n") {
		t.Errorf("the linked card was not written: %.40q", b)
	}
}

// Record values in the card's tables (models, stages, prompt packs,
// languages, cultures) are escaped: no heading, remote image, raw HTML,
// link or control character reaches the card a user publishes.
func TestCardEscapesHostileValues(t *testing.T) {
	hostile := []string{"m\n# Heading", "![px](https://t.example/p.gif)", `<img src=x onerror=alert(1)>`,
		"[c](javascript:alert(1))", "`x`|y", "\x1b]0;t\x07", "k\u009b2J"}
	var p Provenance
	for _, h := range hostile {
		p.Add(&record.Record{ID: "a", Culture: h, Lang: h, DialogueType: "adherence",
			Gen: []record.Gen{{Stage: h, Model: h, PromptPack: h}}})
	}
	md := p.Markdown()
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "#") && strings.Contains(line, "Heading") {
			t.Errorf("a value made a heading: %q", line)
		}
	}
	if m := regexp.MustCompile(`(^|[^\\])\]\(`).FindStringIndex(md); m != nil {
		t.Errorf("a link survives: %q", md[max(0, m[0]-40):min(len(md), m[1]+40)])
	}
	for _, bad := range []string{"![", "<img", "\x1b", "\u009b", "`x`", "\n# "} {
		if strings.Contains(md, bad) {
			t.Errorf("%q survives in:\n%s", bad, md)
		}
	}
}

// TestCardSplitsHaveNumBytes: every split of dataset_info has num_bytes,
// 0 when the size is not known (ngstats --card over a plain file, an empty
// split), because the datasets library drops all of a card's split figures,
// with a warning, when one split lacks it (datasets 5.2, found by
// scripts/interop-py.sh); and the splits ngstats --card reads from a
// folder's shards have their uncompressed size.
func TestCardSplitsHaveNumBytes(t *testing.T) {
	splitsOf := func(b []byte) []map[string]any {
		t.Helper()
		front, _, _ := strings.Cut(strings.TrimPrefix(string(b), "---\n"), "\n---\n")
		var meta struct {
			DatasetInfo struct {
				Splits []map[string]any `yaml:"splits"`
			} `yaml:"dataset_info"`
		}
		if err := yaml.Unmarshal([]byte(front), &meta); err != nil {
			t.Fatal(err)
		}
		return meta.DatasetInfo.Splits
	}
	b, err := Card(CardInfo{Splits: []SplitInfo{{Name: "train", NumExamples: 3}, {Name: "test"}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range splitsOf(b) {
		if _, ok := s["num_bytes"]; !ok {
			t.Errorf("split %v has no num_bytes", s)
		}
	}

	splits, _ := record.ParseSplits("train=0.7,test=0.3")
	dir := export(t, 40, Options{Splits: splits, ShardBytes: 8 << 10})
	paths, _ := filepath.Glob(filepath.Join(dir, DataDir, "*.parquet"))
	got, _, ok, err := ShardSplits(paths)
	if err != nil || !ok || len(got) != 2 {
		t.Fatalf("ShardSplits: %+v %v %v", got, ok, err)
	}
	for _, s := range got {
		if s.NumBytes <= 0 || s.NumExamples == 0 {
			t.Errorf("split %s: %d examples, num_bytes %d from the footers", s.Name, s.NumExamples, s.NumBytes)
		}
	}
	b, err = Card(CardInfo{Splits: got}, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range splitsOf(b) {
		if n, _ := s["num_bytes"].(int); n <= 0 {
			t.Errorf("card from the shards: split %v", s)
		}
	}
}
