package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ngkit/ngkit/cmd/internal/app"
	"github.com/ngkit/ngkit/filters/seed/seedtest"
	"github.com/ngkit/ngkit/internal/testkit"
	"github.com/ngkit/ngkit/pkg/lang"
	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/llm/llmtest"
	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/record"
)

// seedPool is the fake model's fixture: release scenarios and situations.
var seedPool = sync.OnceValue(func() *seedtest.Pool {
	p, err := seedtest.Load("")
	if err != nil {
		panic(err)
	}
	return p
})

// seedFake starts a fake server that answers ngseed from the release.
func seedFake(t testing.TB, r *seedtest.Replier, opt llmtest.Options) *llmtest.Server {
	if r.Pool == nil {
		r.Pool = seedPool()
	}
	opt.Reply = r.Reply
	srv := llmtest.New(opt)
	t.Cleanup(srv.Close)
	return srv
}

// seedRun runs ngseed against srv with stdin and args (no cache, fast
// retries).
func seedRun(t testing.TB, srv *llmtest.Server, stdin io.Reader, args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	vars := map[string]string{"NG_BASE_URL": srv.URL, "NG_MODEL": "fake"}
	args = testkit.FastRetryFlags(args...)
	code = exit(Ngseed, app.Env{Args: args, Stdin: stdin, Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string { return vars[k] }})
	return code, out.String(), errb.String()
}

// seedCheck checks what every seed must be, and that its texts are the
// release's (so the checks ran on real text).
func seedCheck(t *testing.T, recs []*record.Record) {
	t.Helper()
	pool := map[string]bool{}
	for _, x := range seedPool().All() {
		pool[x.Scenario], pool[x.Situation] = true, true
	}
	// The fake's WrongLang fault turns text into an English sentence: in
	// an English culture's seed no language check can tell it from a
	// scenario, so there it is a text the run may keep.
	fault := llmtest.English("")
	ids := map[string]bool{}
	for _, r := range recs {
		if err := r.Validate(); err != nil {
			t.Errorf("%s: %v", r.ID, err)
		}
		if ids[r.ID] {
			t.Errorf("%s: duplicate id", r.ID)
		}
		ids[r.ID] = true
		c, err := normbank.BuiltinProfile(r.Culture)
		if err != nil {
			t.Fatal(err)
		}
		if r.ParentID == "" || r.Lang != c.Lang || r.Category == "" || r.NormID == "" || r.Norm == "" || r.DialogueType == "" {
			t.Errorf("%s: fields missing: %+v", r.ID, r)
		}
		ok := func(s string) bool { return pool[s] || (c.Lang == "en" && s == fault) }
		if !ok(r.Scenario) || !ok(r.Situation) {
			t.Errorf("%s: texts not from the release: %q / %q", r.ID, r.Scenario, r.Situation)
		}
		for _, s := range []string{r.Scenario, r.Situation} {
			if d := lang.Default().Detect(s); d.Lang != c.ScenarioLang {
				t.Errorf("%s: %q is in %s", r.ID, s, d.Lang)
			}
		}
		if n := normbank.Sentences(r.Situation); n < 3 || n > 5 {
			t.Errorf("%s: situation of %d sentences", r.ID, n)
		}
		wantGen := 2 // the scenarios call and the situation call
		if r.DialogueType != record.TypeAdherence {
			wantGen = 1 // the call that derived it
		}
		if len(r.Gen) != wantGen {
			t.Errorf("%s: gen %+v", r.ID, r.Gen)
		}
		for _, g := range r.Gen {
			if g.Stage != "ngseed" || g.PromptPack == "" || g.Model == "" || g.TokensIn == 0 {
				t.Errorf("%s: gen %+v", r.ID, g)
			}
		}
	}
}

// Every culture, every type: per norm, per-norm adherence seeds, each
// followed by its violation and V2R seeds, parent_id linking them, ids
// stable across runs.
func TestNgseedAllCulturesAllTypes(t *testing.T) {
	srv := seedFake(t, &seedtest.Replier{}, llmtest.Options{})
	for _, culture := range normbank.NormCultures() {
		t.Run(culture, func(t *testing.T) {
			args := []string{"--culture", culture, "--limit", "2", "--per-norm", "3", "--types", "adherence,violation,v2r"}
			code, out, stderr := seedRun(t, srv, nil, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			recs := readJSONL(t, out)
			if len(recs) != 2*3*3 {
				t.Fatalf("%d seeds, want 18", len(recs))
			}
			seedCheck(t, recs)
			norms := normbank.Norms(culture, nil)[:2]
			for i, r := range recs {
				norm := norms[i/9]
				adh := recs[i/3*3]
				want := record.DialogueTypes[i%3]
				switch {
				case r.Culture != culture || r.NormID != norm.ID || r.Norm != norm.Text || r.Category != norm.Category:
					t.Errorf("seed %d: norm %s/%s, want %s", i, r.NormID, r.Category, norm.ID)
				case r.DialogueType != want:
					t.Errorf("seed %d: type %s, want %s", i, r.DialogueType, want)
				case want == record.TypeAdherence && r.ParentID != norm.ID:
					t.Errorf("seed %d: parent %s, want the norm %s", i, r.ParentID, norm.ID)
				case want != record.TypeAdherence && r.ParentID != adh.ID:
					t.Errorf("seed %d: parent %s, want the adherence seed %s", i, r.ParentID, adh.ID)
				case r.ID != record.NewID(norm.ID, fmt.Sprint(i%9/3), want):
					t.Errorf("seed %d: id %s is not NewID(norm, index, type)", i, r.ID)
				}
			}
			// A rerun gives the same ids.
			_, again, _ := seedRun(t, srv, nil, args...)
			if got := readJSONL(t, again); !slices.Equal(seedIDs(got), seedIDs(recs)) {
				t.Error("ids differ on a rerun")
			}
		})
	}
}

func seedIDs(recs []*record.Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.ID
	}
	return out
}

// The default: 10 adherence seeds per norm, 1 + 10 calls.
func TestNgseedDefaults(t *testing.T) {
	srv := seedFake(t, &seedtest.Replier{}, llmtest.Options{})
	code, out, stderr := seedRun(t, srv, nil, "--culture", "korean", "--categories", "thanks", "--limit", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	recs := readJSONL(t, out)
	if len(recs) != 10 {
		t.Fatalf("%d seeds, want 10", len(recs))
	}
	seedCheck(t, recs)
	for _, r := range recs {
		if r.DialogueType != record.TypeAdherence || r.Category != "thanks" {
			t.Errorf("%s: %s %s", r.ID, r.DialogueType, r.Category)
		}
	}
	if srv.Count() != 11 {
		t.Errorf("%d calls, want 11", srv.Count())
	}
}

// Near-duplicates in the first reply are dropped and asked for again, in
// each culture: the second call lists the scenarios kept and asks for
// the missing ones.
func TestNgseedNearDuplicatesReplaced(t *testing.T) {
	for _, culture := range normbank.NormCultures() {
		t.Run(culture, func(t *testing.T) {
			srv := seedFake(t, &seedtest.Replier{NearDups: 2, PerReply: 10}, llmtest.Options{})
			code, out, stderr := seedRun(t, srv, nil, "--culture", culture, "--categories", "greeting", "--limit", "1")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			recs := readJSONL(t, out)
			if len(recs) != 10 {
				t.Fatalf("%d seeds, want 10", len(recs))
			}
			seedCheck(t, recs)
			seen := map[string]bool{}
			for _, r := range recs {
				k := strings.TrimSuffix(r.Scenario, "!")
				if seen[k] {
					t.Errorf("scenario twice: %q", r.Scenario)
				}
				seen[k] = true
			}
			var asks []string
			for _, q := range srv.Requests() {
				if q.Request.SchemaName() == "seed_scenarios" {
					asks = append(asks, q.Request.LastUser())
				}
			}
			if len(asks) != 2 {
				t.Fatalf("%d scenarios calls, want 2", len(asks))
			}
			for _, r := range recs[:8] {
				if !strings.Contains(asks[1], r.Scenario) {
					t.Errorf("the second call does not list the kept scenario %q", r.Scenario)
				}
			}
			if recs[9].Gen[0].Call != "scenarios.2" || recs[0].Gen[0].Call != "scenarios" {
				t.Errorf("gen calls: %s, %s", recs[0].Gen[0].Call, recs[9].Gen[0].Call)
			}
		})
	}
}

// Too few distinct scenarios after --max-topups: the norm fails with the
// reason, into the errors file.
func TestNgseedTooFewScenarios(t *testing.T) {
	srv := seedFake(t, &seedtest.Replier{PerReply: 1}, llmtest.Options{})
	errs := filepath.Join(t.TempDir(), "errors.jsonl")
	code, out, stderr := seedRun(t, srv, nil, "--culture", "korean", "--limit", "1", "--per-norm", "4", "--max-topups", "2", "--errors", errs)
	if code != 1 || out != "" {
		t.Fatalf("exit %d, output %q: %s", code, out, stderr)
	}
	b, _ := os.ReadFile(errs)
	if !strings.Contains(string(b), "only 3 of 4 usable, distinct scenarios after 3 calls") {
		t.Errorf("errors file: %s", b)
	}
}

// A situation in the wrong language fails the check and is asked again;
// with no retries left the norm fails with the reason.
func TestNgseedWrongLanguageSituationAskedAgain(t *testing.T) {
	for _, culture := range normbank.NormCultures() {
		t.Run(culture, func(t *testing.T) {
			srv := seedFake(t, &seedtest.Replier{WrongLangFirst: true}, llmtest.Options{})
			code, out, stderr := seedRun(t, srv, nil, "--culture", culture, "--limit", "1", "--per-norm", "3")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			recs := readJSONL(t, out)
			if len(recs) != 3 {
				t.Fatalf("%d seeds", len(recs))
			}
			seedCheck(t, recs)
			if srv.Count() != 1+2*3 {
				t.Errorf("%d requests, want 7 (1 scenarios, 3 situations twice)", srv.Count())
			}
			for _, r := range recs {
				if r.Gen[1].Retries != 1 {
					t.Errorf("%s: situation gen %+v, want 1 retry", r.ID, r.Gen[1])
				}
			}
		})
	}
	srv := seedFake(t, &seedtest.Replier{WrongLangFirst: true}, llmtest.Options{})
	errs := filepath.Join(t.TempDir(), "errors.jsonl")
	code, _, _ := seedRun(t, srv, nil, "--culture", "korean", "--limit", "1", "--per-norm", "2", "--max-retries", "0", "--max-reasks", "0", "--errors", errs)
	b, _ := os.ReadFile(errs)
	if code != 1 || !strings.Contains(string(b), "the situation is in en, it must be in Korean (ko)") {
		t.Errorf("exit %d; errors file: %s", code, b)
	}
}

// --culture, --categories and --limit pick norms of the bank in order.
func TestNgseedSelection(t *testing.T) {
	srv := seedFake(t, &seedtest.Replier{}, llmtest.Options{})
	code, out, stderr := seedRun(t, srv, nil, "--culture", "american", "--categories", "thanks,apology", "--limit", "3", "--per-norm", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	recs := readJSONL(t, out)
	want := normbank.Norms("american", []string{"apology", "thanks"})[:3]
	if len(recs) != 3 {
		t.Fatalf("%d seeds", len(recs))
	}
	for i, r := range recs {
		if r.NormID != want[i].ID {
			t.Errorf("seed %d of norm %s, want %s", i, r.NormID, want[i].ID)
		}
	}
}

// A user's culture (--culture-file) and norm list (--norms): seeds carry
// the user's culture; the norm list's other fields pass through.
func TestNgseedUserCultureAndNorms(t *testing.T) {
	srv := seedFake(t, &seedtest.Replier{}, llmtest.Options{})
	dir := t.TempDir()
	ko, err := normbank.BuiltinProfile("korean")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(ko)
	b = bytes.Replace(b, []byte(`"name":"korean"`), []byte(`"name":"korean-busan"`), 1)
	profile := filepath.Join(dir, "busan.json")
	os.WriteFile(profile, b, 0o644)
	n := normbank.Norms("korean", []string{"thanks"})[0]
	normsFile := filepath.Join(dir, "norms.jsonl")
	line, _ := json.Marshal(map[string]string{"culture": "korean-busan", "category": "thanks", "norm": n.Text, "source": "mine"})
	os.WriteFile(normsFile, append(line, '\n'), 0o644)
	code, out, stderr := seedRun(t, srv, nil, "--culture-file", profile, "--norms", normsFile, "--per-norm", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	recs := readJSONL(t, out)
	if len(recs) != 2 {
		t.Fatalf("%d seeds", len(recs))
	}
	for _, r := range recs {
		if r.Culture != "korean-busan" || r.Lang != "ko" || r.NormID != record.NormID("korean-busan", "thanks", n.Text) {
			t.Errorf("%+v", r)
		}
	}
	// Streamed, the other fields pass through.
	code, out, stderr = seedRun(t, srv, bytes.NewReader(append(line, '\n')), "--culture-file", profile, "--per-norm", "1", "-")
	if code != 0 || !strings.Contains(out, `"source":"mine"`) {
		t.Errorf("exit %d, out %s: %s", code, out, stderr)
	}
}

// A record that is not a norm fails into the errors file; the others go on.
func TestNgseedNotANorm(t *testing.T) {
	srv := seedFake(t, &seedtest.Replier{}, llmtest.Options{})
	n := normbank.Norms("chinese", []string{"respect"})[0]
	line, _ := json.Marshal(NormRecordJSON(n))
	in := `{"id":"d1","scenario":"a dialogue record"}` + "\n" + string(line) + "\n"
	errs := filepath.Join(t.TempDir(), "errors.jsonl")
	code, out, stderr := seedRun(t, srv, strings.NewReader(in), "--per-norm", "2", "--errors", errs, "-")
	if code != 1 || len(readJSONL(t, out)) != 2 {
		t.Fatalf("exit %d, %d seeds: %s", code, len(readJSONL(t, out)), stderr)
	}
	b, _ := os.ReadFile(errs)
	if !strings.Contains(string(b), `"id":"d1"`) || !strings.Contains(string(b), "not a norm: culture, category, norm missing") {
		t.Errorf("errors file: %s", b)
	}
}

// NormRecordJSON is a built-in norm as a line of a norm list.
func NormRecordJSON(n normbank.Norm) map[string]string {
	return map[string]string{"id": n.ID, "culture": n.Culture, "category": n.Category, "norm_id": n.ID, "norm": n.Text}
}

// syncBuffer is a bytes.Buffer safe to read while ngseed writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Streaming: the seeds of the first norm are written while the input is
// still open.
func TestNgseedStreams(t *testing.T) {
	srv := seedFake(t, &seedtest.Replier{}, llmtest.Options{})
	norms := normbank.Norms("korean", []string{"leave"})
	pr, pw := io.Pipe()
	var out, errb syncBuffer
	vars := map[string]string{"NG_BASE_URL": srv.URL, "NG_MODEL": "fake"}
	done := make(chan int)
	go func() {
		done <- exit(Ngseed, app.Env{Args: []string{"--no-cache", "-q", "--per-norm", "2", "-"}, Stdin: pr, Stdout: &out, Stderr: &errb,
			Getenv: func(k string) string { return vars[k] }})
	}()
	line, _ := json.Marshal(NormRecordJSON(norms[0]))
	pw.Write(append(line, '\n'))
	deadline := time.Now().Add(20 * time.Second)
	for strings.Count(out.String(), "\n") < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("no seeds while the input is open; stderr: %s", errb.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	line, _ = json.Marshal(NormRecordJSON(norms[1]))
	pw.Write(append(line, '\n'))
	pw.Close()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if recs := readJSONL(t, out.String()); len(recs) != 4 || recs[3].NormID != norms[1].ID {
		t.Errorf("%d seeds", len(recs))
	}
}

// --resume: norms whose seeds are in the -o file are not asked again.
func TestNgseedResume(t *testing.T) {
	srv := seedFake(t, &seedtest.Replier{}, llmtest.Options{})
	out := filepath.Join(t.TempDir(), "seeds.jsonl")
	if code, _, stderr := seedRun(t, srv, nil, "--culture", "chinese", "--limit", "2", "--per-norm", "2", "-o", out); code != 0 {
		t.Fatal(stderr)
	}
	before := srv.Count()
	if code, _, stderr := seedRun(t, srv, nil, "--culture", "chinese", "--limit", "3", "--per-norm", "2", "-o", out, "--resume"); code != 0 {
		t.Fatal(stderr)
	}
	b, _ := os.ReadFile(out)
	if n := strings.Count(string(b), "\n"); n != 6 || srv.Count()-before != 3 {
		t.Errorf("%d seeds, %d calls for the third norm (want 6 and 3)", n, srv.Count()-before)
	}
}

// seedNorms is n built-in norms of each culture as a norm list.
func seedNorms(n int) string {
	var b strings.Builder
	for _, c := range normbank.NormCultures() {
		for _, norm := range normbank.Norms(c, nil)[:n] {
			line, _ := json.Marshal(NormRecordJSON(norm))
			b.Write(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// 20% of requests faulted, every kind of fault: every norm ends in the
// output (all its seeds) or the errors file, and the seeds are valid.
// Logs the calls per seed.
func TestNgseedFaults(t *testing.T) {
	srv := seedFake(t, &seedtest.Replier{}, llmtest.Options{FaultRate: 0.2, Seed: 16,
		RetryAfter: 5 * time.Millisecond, SlowFor: 5 * time.Second})
	dir := t.TempDir()
	errs, usage := filepath.Join(dir, "errors.jsonl"), filepath.Join(dir, "usage.json")
	in := seedNorms(4)
	code, out, stderr := seedRun(t, srv, strings.NewReader(in), "--per-norm", "3", "--types", "adherence,violation,v2r",
		"--concurrency", "16", "--timeout", "300ms", "--errors", errs, "--usage-json", usage, "-")
	if code != 0 && code != 1 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	recs := readJSONL(t, out)
	seedCheck(t, recs)
	done := map[string]int{}
	for _, r := range recs {
		if r.DialogueType == record.TypeAdherence {
			done[r.ParentID]++
		}
	}
	failed, _ := os.ReadFile(errs)
	nFailed := 0
	for _, l := range strings.Split(strings.TrimSpace(string(failed)), "\n") {
		var e pipeline.ErrorRecord
		if l == "" || json.Unmarshal([]byte(l), &e) != nil {
			continue
		}
		done[e.ID] += 100
		nFailed++
	}
	for _, c := range normbank.NormCultures() {
		for _, n := range normbank.Norms(c, nil)[:4] {
			if v := done[n.ID]; v != 3 && v != 100 {
				t.Errorf("norm %s: %d seeds / in errors %v", n.ID, v%100, v >= 100)
			}
		}
	}
	if nFailed > 1 {
		t.Errorf("%d of 12 norms failed: %s", nFailed, failed)
	}
	injected := map[llmtest.Fault]int{}
	for _, q := range srv.Requests() {
		injected[q.Fault]++
	}
	for _, f := range llmtest.AllFaults {
		if injected[f] == 0 {
			t.Errorf("fault %s never injected: %v", f, injected)
		}
	}
	t.Logf("%d seeds of %d norms (%d failed); %d requests: %.2f per seed (%.2f without faults); faults %v",
		len(recs), 12-nFailed, nFailed, srv.Count(), float64(srv.Count())/float64(len(recs)), float64(12+36+72)/108, injected)
}

// --emit-requests writes one step's calls; each run with the replies so
// far (--responses) emits the next, and the last writes the seeds: the
// same seeds as calling the model directly.
func TestNgseedBatchSteps(t *testing.T) {
	replier := &seedtest.Replier{Pool: seedPool()}
	srv := seedFake(t, replier, llmtest.Options{})
	dir := t.TempDir()
	args := []string{"--culture", "korean", "--categories", "respect", "--limit", "2", "--per-norm", "2", "--types", "adherence,v2r"}
	_, direct, _ := seedRun(t, srv, nil, args...)
	responses := filepath.Join(dir, "responses.jsonl")
	var answered strings.Builder
	for step, want := range []int{2, 4, 4} { // scenarios, situations, v2r seeds
		reqs := filepath.Join(dir, fmt.Sprintf("requests%d.jsonl", step))
		a := append(slices.Clone(args), "--emit-requests", reqs)
		if step > 0 {
			a = append(a, "--responses", responses)
		}
		code, out, stderr := seedRun(t, srv, nil, a...)
		if code != 0 || out != "" {
			t.Fatalf("step %d: exit %d, output %q: %s", step, code, out, stderr)
		}
		b, err := os.ReadFile(reqs)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(lines) != want {
			t.Fatalf("step %d: %d requests, want %d", step, len(lines), want)
		}
		for _, l := range lines {
			var br llm.BatchRequest
			var req llmtest.ChatRequest
			if json.Unmarshal([]byte(l), &br) != nil || json.Unmarshal(br.Body, &req) != nil {
				t.Fatalf("step %d: bad request line %s", step, l)
			}
			line, _ := json.Marshal(map[string]string{"custom_id": br.CustomID, "content": replier.Reply(&req)})
			answered.Write(append(line, '\n'))
		}
		os.WriteFile(responses, []byte(answered.String()), 0o644)
	}
	code, out, stderr := seedRun(t, srv, nil, append(args, "--responses", responses)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got, want := readJSONL(t, out), readJSONL(t, direct)
	if len(got) != 8 || !slices.Equal(seedIDs(got), seedIDs(want)) {
		t.Fatalf("%d seeds from the batch steps, ids equal to direct: %v", len(got), slices.Equal(seedIDs(got), seedIDs(want)))
	}
	for i := range got {
		if got[i].Scenario != want[i].Scenario || got[i].Situation != want[i].Situation {
			t.Errorf("seed %d differs from the direct run", i)
		}
	}
}

// --prompts DIR overrides a template; the pack version in gen says so.
func TestNgseedPromptsOverride(t *testing.T) {
	srv := seedFake(t, &seedtest.Replier{}, llmtest.Options{})
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "seed"), 0o755)
	os.WriteFile(filepath.Join(dir, "seed", "situation.tmpl"), []byte(`{{define "system"}}MINE: a situation in {{.ScenarioLanguage}}.{{end}}
{{define "user"}}{{.Norm}} / {{.Scenario}}{{end}}`), 0o644)
	code, out, stderr := seedRun(t, srv, nil, "--culture", "chinese", "--limit", "1", "--per-norm", "1", "--prompts", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	recs := readJSONL(t, out)
	if len(recs) != 1 || !strings.Contains(recs[0].Gen[1].PromptPack, "+") {
		t.Fatalf("gen %+v", recs)
	}
	sys := srv.Requests()[1].Request.Messages[0].Text()
	if !strings.HasPrefix(sys, "MINE: a situation in Chinese.") {
		t.Errorf("system prompt %q", sys)
	}
}
