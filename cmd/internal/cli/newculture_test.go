package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/cmd/internal/app"
	"github.com/ngkit/ngkit/filters/stats"
	"github.com/ngkit/ngkit/internal/fakeng"
	"github.com/ngkit/ngkit/pkg/llm/llmtest"
	"github.com/ngkit/ngkit/pkg/normbank"
)

// fakeRun runs a program against the fake model of every stage, with
// fast retries, no cache and its notes on stderr (no -q), stdin from a
// string.
func fakeRun(t *testing.T, srv *llmtest.Server, prog func(app.Env) error, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	vars := map[string]string{"NG_BASE_URL": srv.URL, "NG_MODEL": "fake"}
	code = exit(prog, app.Env{Args: append([]string{"--no-cache", "--backoff", "1ms", "--retry-after-cap", "20ms"}, args...), Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string { return vars[k] }})
	return code, out.String(), errb.String()
}

// A new culture from its profile, end to end on the
// fake: a culture file of a culture with no norm bank and no exemplars
// (testdata/cultures/new-zealand.yaml) -> ngseed --make-norms -> ngseed
// with those norms -> ngrefine --exemplars self -> ngv2r -> ngstats.
// Without --exemplars self, ngrefine says once that the culture has no
// exemplars, and fails its seeds.
func TestNewCultureFromItsProfile(t *testing.T) {
	m, err := fakeng.New()
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New(llmtest.Options{Reply: m.Reply})
	t.Cleanup(srv.Close)
	profile := "../../../testdata/cultures/new-zealand.yaml"
	if _, err := normbank.BuiltinProfile("new-zealand"); err == nil {
		t.Fatal("new-zealand has a built-in profile: the test wants a culture of the user's")
	}
	dir := t.TempDir()
	norms := filepath.Join(dir, "norms.jsonl")

	code, _, stderr := fakeRun(t, srv, Ngseed, "", "--make-norms", "--culture-file", profile, "--categories", "apology,thanks,greeting", "--norms-per-category", "4", "-o", norms)
	if code != 0 {
		t.Fatalf("ngseed --make-norms: exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(norms)
	if err != nil {
		t.Fatal(err)
	}
	nrecs := readJSONL(t, string(b))
	if len(nrecs) != 12 {
		t.Fatalf("%d norms, want 3 categories x 4", len(nrecs))
	}
	for _, r := range nrecs {
		if r.Culture != "new-zealand" || string(r.Extra["source"]) != `"generated"` || r.NormID == "" {
			t.Fatalf("norm %+v", r)
		}
	}

	// One norm per category, two scenarios each, violation and V2R seeds
	// (the fake has only 3 English adherence dialogues that pass ngv2r's
	// rules: more would be duplicates).
	var pick []string
	for i, r := range nrecs {
		if i%4 == 0 {
			l, _ := r.AppendJSON(nil)
			pick = append(pick, string(l))
		}
	}
	code, seeds, stderr := fakeRun(t, srv, Ngseed, strings.Join(pick, "\n")+"\n", "--culture-file", profile, "-", "--per-norm", "2", "--types", "violation,v2r")
	if code != 0 {
		t.Fatalf("ngseed: exit %d: %s", code, stderr)
	}
	if n := len(readJSONL(t, seeds)); n != 12 {
		t.Fatalf("%d seeds, want 12", n)
	}

	// Without exemplars: said once, every seed fails.
	code, _, stderr = fakeRun(t, srv, Ngrefine, seeds, "--culture-file", profile, "--errors", filepath.Join(dir, "e.jsonl"))
	if code != 1 || strings.Count(stderr, "no exemplars of culture") != 1 || !strings.Contains(stderr, "--exemplars self") {
		t.Fatalf("ngrefine without exemplars: exit %d, stderr:\n%s", code, stderr)
	}

	before := srv.Count()
	code, refined, stderr := fakeRun(t, srv, Ngrefine, seeds, "--culture-file", profile, "--exemplars", "self")
	if code != 0 {
		t.Fatalf("ngrefine --exemplars self: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "ngrefine: --exemplars self: first pass judged 12 seeds; 12 of them are the exemplars of 3 culture/category groups\n") {
		t.Errorf("stderr:\n%s", stderr)
	}
	// The fake judge accepts every seed as it came: one judge call each, made once.
	if n := srv.Count() - before; n != 12 {
		t.Errorf("ngrefine --exemplars self made %d calls, want 12", n)
	}
	rrecs := readJSONL(t, refined)
	ids := map[string]bool{}
	for _, r := range rrecs {
		ids[r.ID] = true
	}
	for _, r := range rrecs {
		ref := r.Refinement
		if ref == nil || !ref.Accepted || len(ref.ExemplarIDs) == 0 || slices.Contains(ref.ExemplarIDs, r.ID) {
			t.Fatalf("%s: refinement %+v", r.ID, ref)
		}
		for _, e := range ref.ExemplarIDs {
			if !ids[e] {
				t.Errorf("%s: exemplar %s is not a seed of the run", r.ID, e)
			}
		}
	}

	code, dialogues, stderr := fakeRun(t, srv, Ngv2r, refined, "--culture-file", profile)
	if code != 0 {
		t.Fatalf("ngv2r: exit %d: %s", code, stderr)
	}
	drecs := readJSONL(t, dialogues)
	if len(drecs) != 12 {
		t.Fatalf("%d dialogues, want 12", len(drecs))
	}
	code, out, stderr := run(t, Ngstats, dialogues, "--json")
	if code != 0 {
		t.Fatalf("ngstats: exit %d: %s", code, stderr)
	}
	var rep stats.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Dialogues != 12 || len(rep.Language) != 1 || rep.Language[0].Culture != "new-zealand" || rep.Language[0].RecordsBelow != 0 || len(rep.Defects) != 0 {
		t.Errorf("ngstats: %d dialogues, language %+v, defects %+v", rep.Dialogues, rep.Language, rep.Defects)
	}
	for _, r := range drecs {
		if r.Culture != "new-zealand" || string(r.Extra["source"]) != `"generated"` || len(r.Turns) == 0 {
			t.Errorf("dialogue %s: culture %s, source %s", r.ID, r.Culture, r.Extra["source"])
		}
	}
}
