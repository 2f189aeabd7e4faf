package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/cmd/internal/app"
	"github.com/ngkit/ngkit/pkg/record"
)

// The built-in demo model (--model demo, no base URL) runs the whole
// pipeline offline, in-process: every record's gen names it, and ngstats
// and the Hugging Face card say the data is a demo.
func TestDemoPipeline(t *testing.T) {
	tmp := t.TempDir()
	env := func(k string) string {
		if k == "NG_MODEL" {
			return "demo"
		}
		return "" // no endpoint, no key: nothing could be reached
	}
	data := ""
	for _, st := range []struct {
		prog func(app.Env) error
		args []string
	}{
		{Ngseed, []string{"--culture", "korean", "--limit", "1", "--types", "adherence,violation,v2r", "-q"}},
		{Ngrefine, []string{"-q"}},
		{Ngv2r, []string{"-q"}},
		{Nglabel, []string{"-q"}},
	} {
		var out, errb bytes.Buffer
		code := exit(st.prog, app.Env{Args: st.args, Stdin: strings.NewReader(data), Stdout: &out, Stderr: &errb, Getenv: env})
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", st.args, code, errb.String())
		}
		data = out.String()
	}
	recs := readJSONL(t, data)
	if len(recs) < 3 {
		t.Fatalf("%d dialogues", len(recs))
	}
	types := map[string]bool{}
	for _, r := range recs {
		types[r.DialogueType] = true
		if len(r.Turns) == 0 || len(r.Gen) < 4 {
			t.Errorf("%s: %d turns, %d calls", r.ID, len(r.Turns), len(r.Gen))
		}
		for _, g := range r.Gen {
			if g.Model != record.DemoModel {
				t.Errorf("%s: gen %+v", r.ID, g)
			}
		}
	}
	if len(types) != 3 {
		t.Errorf("types %v", types)
	}
	in := filepath.Join(tmp, "demo.jsonl")
	if err := os.WriteFile(in, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(t, Ngstats, "", in)
	if code != 0 || !strings.Contains(out, "DEMO DATA: ") || !strings.Contains(out, "built-in demo model") {
		t.Errorf("ngstats: exit %d, %s\n%s", code, errs, out)
	}
	dir := filepath.Join(tmp, "hf")
	if code, _, errs := run(t, Ngcat, "", in, "--hf", dir); code != 0 {
		t.Fatalf("ngcat --hf: exit %d: %s", code, errs)
	}
	card, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if _, body, _ := strings.Cut(string(card), "\n# hf\n\n"); !strings.HasPrefix(body, "**Demo data, not a dataset:**") {
		t.Errorf("the card does not say first that the data is a demo:\n%s", card)
	}
	// A record with no demo call is not flagged.
	notDemo := strings.ReplaceAll(data, `"model":"demo"`, `"model":"gpt-4o-mini"`)
	if code, out, _ := run(t, Ngstats, notDemo); code != 0 || strings.Contains(out, "DEMO") {
		t.Errorf("ngstats on non-demo records: exit %d\n%s", code, out)
	}
}
