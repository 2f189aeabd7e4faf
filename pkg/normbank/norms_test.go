package normbank

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/ngkit/ngkit/pkg/recio"
	"github.com/ngkit/ngkit/pkg/record"
)

func TestBuiltinNormCounts(t *testing.T) {
	all := BuiltinNorms()
	if len(all) != 360 {
		t.Errorf("%d built-in norms, want 360 (3 x 12 x 10, one Korean apology norm repeated, one extra Korean persuasion norm)", len(all))
	}
	if got := Categories(); !slices.Equal(got, record.Categories) {
		t.Errorf("categories %v, want %v", got, record.Categories)
	}
	if got, want := NormCultures(), []string{"american", "chinese", "korean"}; !slices.Equal(got, want) {
		t.Errorf("cultures %v, want %v", got, want)
	}
	for _, c := range NormCultures() {
		for _, cat := range record.Categories {
			want := 10
			switch {
			case c == "korean" && cat == "apology":
				want = 9 // the release repeats one norm for two blocks of records
			case c == "korean" && cat == "persuasion":
				want = 11 // one norm of the violation file is not in the adherence file, and vice versa
			}
			if got := len(Norms(c, []string{cat})); got != want {
				t.Errorf("%s %s: %d norms, want %d", c, cat, got, want)
			}
		}
	}
}

func TestNormIDs(t *testing.T) {
	seen := map[string]Norm{}
	texts := map[string]bool{}
	for _, n := range BuiltinNorms() {
		if n.ID != record.NormID(n.Culture, n.Category, n.Text) {
			t.Errorf("%s: id is not record.NormID of its culture, category and text", n.ID)
		}
		if p, dup := seen[n.ID]; dup {
			t.Errorf("id %s twice: %+v and %+v", n.ID, p, n)
		}
		seen[n.ID] = n
		k := n.Culture + "\x00" + n.Category + "\x00" + strings.Join(strings.Fields(n.Text), " ")
		if texts[k] {
			t.Errorf("norm repeated: %+v", n)
		}
		texts[k] = true
		if n.Text != strings.TrimSpace(n.Text) || n.Source == "" {
			t.Errorf("norm %s: untrimmed text or no source: %+v", n.ID, n)
		}
	}
	// Pinned: ids must not change between versions (records refer to them).
	pinned := map[string]string{
		"na676dce9a3f4": "Bowing to elders when apologizing is not considered necessary",
	}
	for id, prefix := range pinned {
		if n, ok := seen[id]; !ok || !strings.HasPrefix(n.Text, prefix) {
			t.Errorf("pinned norm %s: got %+v", id, n)
		}
	}
}

func TestNormsSelect(t *testing.T) {
	if got := len(Norms("", nil)); got != 360 {
		t.Errorf("all norms: %d", got)
	}
	a := Norms("korean", []string{"apology", "thanks"})
	b := Norms(" KOREAN ", []string{"Apology", "THANKS"})
	if len(a) != 19 || !slices.Equal(a, b) {
		t.Errorf("korean apology+thanks: %d and %d norms", len(a), len(b))
	}
	for _, n := range a {
		if n.Culture != "korean" || (n.Category != "apology" && n.Category != "thanks") {
			t.Errorf("selected %+v", n)
		}
	}
	if got := Norms("klingon", nil); got != nil {
		t.Errorf("unknown culture: %d norms", len(got))
	}
	all := BuiltinNorms()
	if _, err := SelectNorms(all, "klingon", nil); err == nil || !strings.Contains(err.Error(), "american, chinese, korean") {
		t.Errorf("unknown culture: %v", err)
	}
	if _, err := SelectNorms(all, "korean", []string{"apology", "apologies"}); err == nil || !strings.Contains(err.Error(), `"apologies"`) {
		t.Errorf("unknown category: %v", err)
	}
	if got, err := SelectNorms(all, "chinese", []string{"greeting"}); err != nil || len(got) != 10 {
		t.Errorf("chinese greeting: %d, %v", len(got), err)
	}
}

func writeFile(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadNormsJSONL(t *testing.T) {
	p := writeFile(t, "norms.jsonl", "\ufeff"+`{"culture":"Thai","category":"Greeting","norm":"  A wai greets elders.  "}`+"\n"+
		"\n"+
		`{"culture":"thai","category":"greeting","norm":"A wai greets elders."}`+"\n"+
		`{"culture":"thai","category":"thanks","norm":"Thanks are modest.","norm_id":"my-id","note":"kept out"}`+"\n")
	ns, err := LoadNorms(p)
	if err != nil {
		t.Fatal(err)
	}
	want := []Norm{
		{ID: record.NormID("thai", "greeting", "A wai greets elders."), Culture: "thai", Category: "greeting", Text: "A wai greets elders.", Source: p + ":line 1"},
		{ID: "my-id", Culture: "thai", Category: "thanks", Text: "Thanks are modest.", Source: p + ":line 4"},
	}
	if !slices.Equal(ns, want) {
		t.Errorf("got %+v\nwant %+v", ns, want)
	}

	for _, c := range []struct{ body, want string }{
		{`{"culture":"thai","category":"greeting","norm":"x"}` + "\n" + `{"culture":"thai","category":"greeting"}` + "\n", "bad.jsonl:line 2: norm missing"},
		{`{"culture":"thai","category":"greeting","norm":"x"}` + "\n" + `{"culture":"thai",` + "\n", "bad.jsonl:line 2: malformed JSON"},
		{`{"category":"","norm":"x"}` + "\n", "bad.jsonl:line 1: culture, category missing"},
		{`{"culture":"thai","category":"greeting","norm":7}` + "\n", "bad.jsonl:line 1:"},
	} {
		_, err := LoadNorms(writeFile(t, "bad.jsonl", c.body))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("LoadNorms(%q): %v, want an error with %q", c.body, err, c.want)
		}
	}
	if _, err := LoadNorms(filepath.Join(t.TempDir(), "none.jsonl")); err == nil || !strings.Contains(err.Error(), "none.jsonl") {
		t.Errorf("missing file: %v", err)
	}
	if _, err := LoadNorms(writeFile(t, "empty.jsonl", "")); err == nil || !strings.Contains(err.Error(), "empty.jsonl") {
		t.Errorf("empty file: %v", err)
	}
}

func TestLoadNormsParquet(t *testing.T) {
	// Records written by ngkit (every column of the record) ...
	p := filepath.Join(t.TempDir(), "norms.parquet")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w, err := recio.NewParquetWriter[record.Record](f, recio.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rows := []record.Record{
		{ID: "a", Culture: "thai", Category: "greeting", Norm: "A wai greets elders."},
		{ID: "b", Culture: "thai", Category: "", Norm: "No category."},
	}
	for i := range rows {
		if err := w.Write(&rows[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, err = LoadNorms(p)
	if err == nil || !strings.Contains(err.Error(), "norms.parquet: row 2: category missing") {
		t.Errorf("bad row: %v", err)
	}

	// ... and a foreign file with just the three columns.
	type normRow struct {
		Culture  string `parquet:"culture"`
		Category string `parquet:"category"`
		Norm     string `parquet:"norm"`
	}
	q := filepath.Join(t.TempDir(), "foreign.parquet")
	if err := parquet.WriteFile(q, []normRow{{"thai", "greeting", "A wai greets elders."}, {"thai", "thanks", "Thanks are modest."}}); err != nil {
		t.Fatal(err)
	}
	ns, err := LoadNorms(q)
	if err != nil {
		t.Fatal(err)
	}
	if len(ns) != 2 || ns[1].Category != "thanks" || ns[1].ID != record.NormID("thai", "thanks", "Thanks are modest.") || ns[1].Source != q+": row 2" {
		t.Errorf("foreign Parquet: %+v", ns)
	}
}

// The built-in norm file is itself a valid norm list for --norms.
func TestBuiltinNormFileLoads(t *testing.T) {
	ns, err := LoadNorms(filepath.Join("data", "norms.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ns, BuiltinNorms()) {
		t.Error("LoadNorms(data/norms.jsonl) differs from BuiltinNorms")
	}
}
