package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ngkit/ngkit/cmd/internal/app"
	"github.com/ngkit/ngkit/filters/hf"
	"github.com/ngkit/ngkit/filters/imports"
	"github.com/ngkit/ngkit/filters/label"
	"github.com/ngkit/ngkit/filters/label/labeltest"
	"github.com/ngkit/ngkit/filters/review"
	"github.com/ngkit/ngkit/filters/stats"
	"github.com/ngkit/ngkit/filters/stats/render"
	"github.com/ngkit/ngkit/internal/testkit"
	"github.com/ngkit/ngkit/pkg/llm/llmtest"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/record"
)

// labelRun runs nglabel against the fake server srv (nil: no endpoint).
func labelRun(t testing.TB, srv *llmtest.Server, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	vars := map[string]string{}
	if srv != nil {
		vars["NG_BASE_URL"], vars["NG_MODEL"] = srv.URL, "fake-labeller"
	}
	var out, errb bytes.Buffer
	code = exit(Nglabel, app.Env{Args: args, Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string { return vars[k] }})
	return code, out.String(), errb.String()
}

// labelInput writes the release sample as ngv2r-like dialogue records
// (V2R turns staged; failed generations without turns kept) to a JSONL file.
func labelInput(t testing.TB) (path string, recs []*record.Record) {
	t.Helper()
	files, err := filepath.Glob("../../../testdata/normgenesis/*.json")
	if err != nil || len(files) != 8 {
		t.Fatalf("sample files: %v %v", files, err)
	}
	all, err := imports.ReadNormGenesis(files)
	if err != nil {
		t.Fatal(err)
	}
	recs = labeltest.Dialogues(all, 0)
	var b []byte
	for _, r := range recs {
		if b, err = r.AppendJSON(b); err != nil {
			t.Fatal(err)
		}
		b = append(b, '\n')
	}
	path = filepath.Join(t.TempDir(), "dialogues.jsonl")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, recs
}

func labelFake(t testing.TB, opt llmtest.Options) *llmtest.Server {
	if opt.Reply == nil {
		opt.Reply = labeltest.Answer
	}
	srv := llmtest.New(opt)
	t.Cleanup(srv.Close)
	return srv
}

func recordIDs(recs []*record.Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.ID
	}
	sort.Strings(out)
	return out
}

// The chain: ngv2r-like dialogues -> nglabel (three samples, every task)
// -> ngstats, on the fake server: every record comes out (the ones
// without turns unchanged), labelled, and ngstats reports the label
// distributions, intent by stage, agreement with kappa and quality, with
// no consistency defect.
func TestNglabelChainToNgstats(t *testing.T) {
	in, recs := labelInput(t)
	srv := labelFake(t, llmtest.Options{})
	dir := t.TempDir()
	out := filepath.Join(dir, "labelled.jsonl")
	usage := filepath.Join(dir, "usage.json")
	code, _, stderr := labelRun(t, srv, "", in, "--tasks", "all", "--samples", "3", "--no-cache",
		"-o", out, "--usage-json", usage, "-q")
	if code != 0 {
		t.Fatalf("nglabel: exit %d: %s", code, stderr)
	}
	b, _ := os.ReadFile(out)
	got := readJSONL(t, string(b))
	if !slices.Equal(recordIDs(got), recordIDs(recs)) {
		t.Fatalf("%d records out of %d in", len(got), len(recs))
	}
	dialogues := 0
	for i, r := range got {
		if err := r.Validate(); err != nil {
			t.Errorf("%s: %v", r.ID, err)
		}
		if len(r.Turns) == 0 {
			if r.LabelsMeta != nil || len(r.Gen) != 0 {
				t.Errorf("%s: a record without turns was labelled", r.ID)
			}
			continue
		}
		dialogues++
		if r.ID != recs[i].ID || r.LabelsMeta == nil || r.LabelsMeta.Samples != 3 || r.Quality == nil || len(r.Gen) != 4 {
			t.Fatalf("%s: meta %+v quality %+v gen %d", r.ID, r.LabelsMeta, r.Quality, len(r.Gen))
		}
		for _, tu := range r.Turns {
			if l := tu.Labels; l == nil || l.Norm == "" || l.Safety == "" || l.NormDist == nil || l.Agreement == 0 {
				t.Fatalf("%s turn %d: %+v", r.ID, tu.Index, tu.Labels)
			}
		}
	}
	if want := dialogues * 4; srv.Count() != want {
		t.Errorf("%d calls, want %d (3 samples + quality per dialogue)", srv.Count(), want)
	}

	code, rep, stderr := run(t, Ngstats, "", out, "--json", "-q")
	if code != 0 {
		t.Fatalf("ngstats: exit %d: %s", code, stderr)
	}
	var r stats.Report
	if err := json.Unmarshal([]byte(rep), &r); err != nil {
		t.Fatal(err)
	}
	l := r.Labels
	if l == nil || len(l.Dist) == 0 || len(l.Quality) == 0 || len(l.IntentByStage) != 5 || len(l.Agreement) != 5 {
		t.Fatalf("labels: %+v", l)
	}
	for _, a := range l.Agreement {
		if a.Samples != 3 || a.Turns == 0 || a.Agreement <= 0.5 {
			t.Errorf("agreement %+v", a)
		}
	}
	for _, d := range r.Defects {
		if strings.HasPrefix(d.Name, "label_") {
			t.Errorf("consistency defect %s on %v", d.Name, d.IDs)
		}
	}
	var u struct {
		Total struct{ Calls int64 } `json:"total"`
	}
	if b, err := os.ReadFile(usage); err != nil || json.Unmarshal(b, &u) != nil || u.Total.Calls != int64(srv.Count()) {
		t.Errorf("usage: %s %v", b, err)
	}
}

// 20% of the requests faulted, of every kind: every record is in the
// output or the errors file, once, nearly all succeed; reports the calls
// per finished record.
func TestNglabelFaultsNeverLoseARecord(t *testing.T) {
	in, recs := labelInput(t)
	// The timeout leaves room for a loaded machine (CI under -race): at
	// 300 ms, ordinary replies timed out there too and ran out of retries.
	srv := labelFake(t, llmtest.Options{FaultRate: 0.2, Seed: 3, RetryAfter: 2 * time.Millisecond, SlowFor: 5 * time.Second})
	dir := t.TempDir()
	out, errs := filepath.Join(dir, "out.jsonl"), filepath.Join(dir, "errors.jsonl")
	code, _, stderr := labelRun(t, srv, "", in, "--tasks", "norm,intent,emotion,stage,safety", "--no-cache", "--concurrency", "16", "--timeout", "1500ms",
		"--backoff", "1ms", "--retry-after-cap", "20ms", "-o", out, "--errors", errs, "-q")
	if code != 0 && code != 1 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, _ := os.ReadFile(out)
	got := readJSONL(t, string(b))
	var failed []string
	if eb, err := os.ReadFile(errs); err == nil {
		for _, line := range strings.Split(strings.TrimSpace(string(eb)), "\n") {
			if line == "" {
				continue
			}
			var e pipeline.ErrorRecord
			if err := json.Unmarshal([]byte(line), &e); err != nil {
				t.Fatal(err)
			}
			failed = append(failed, e.ID)
		}
	}
	all := append(recordIDs(got), failed...)
	sort.Strings(all)
	if !slices.Equal(all, recordIDs(recs)) {
		t.Fatalf("output (%d) + errors (%d) are not every input (%d) once", len(got), len(failed), len(recs))
	}
	if len(failed) > len(recs)/50 {
		t.Errorf("%d of %d failed", len(failed), len(recs))
	}
	labelled := 0
	for _, r := range got {
		if len(r.Turns) > 0 {
			labelled++
		}
	}
	t.Logf("%d dialogues labelled, %d failed; %d requests: %.2f requests per labelled dialogue (1 call each)",
		labelled, len(failed), srv.Count(), float64(srv.Count())/float64(labelled))
}

// --pairwise: records judged against a baseline of the same norms (here
// the sample itself under other ids); ngstats reports the win rates.
func TestNglabelPairwise(t *testing.T) {
	in, recs := labelInput(t)
	dir := t.TempDir()
	var b []byte
	for _, r := range recs {
		if len(r.Turns) == 0 {
			continue
		}
		c := *r
		c.ID = "base-" + r.ID
		c.Turns = slices.Clone(r.Turns[:len(r.Turns)/2+1])
		b, _ = c.AppendJSON(b)
		b = append(b, '\n')
	}
	base := filepath.Join(dir, "baseline.jsonl")
	os.WriteFile(base, b, 0o644)
	srv := labelFake(t, llmtest.Options{})
	out := filepath.Join(dir, "out.jsonl")
	code, _, stderr := labelRun(t, srv, "", in, "--pairwise", base, "--no-cache", "-o", out, "-q")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	ob, _ := os.ReadFile(out)
	judged, first := 0, 0
	for _, r := range readJSONL(t, string(ob)) {
		raw, ok := r.Extra[label.PairwiseKey]
		if !ok {
			continue
		}
		var pw label.Pairwise
		if err := json.Unmarshal(raw, &pw); err != nil || pw.By != label.MatchNorm || !strings.HasPrefix(pw.Against, "base-") {
			t.Fatalf("%s: %s %v", r.ID, raw, err)
		}
		if r.LabelsMeta != nil || r.Turns[0].Labels != nil {
			t.Fatalf("%s: labelled although --pairwise alone judges pairs only", r.ID)
		}
		judged++
		if pw.First == "record" {
			first++
		}
	}
	if judged < 100 || srv.Count() != judged {
		t.Fatalf("%d judged, %d calls", judged, srv.Count())
	}
	// The order is drawn per pair: about half show the record first.
	if first < judged/4 || first > judged*3/4 {
		t.Errorf("record shown first in %d of %d pairs", first, judged)
	}
	code, rep, _ := run(t, Ngstats, "", out, "-q")
	if code != 0 || !strings.Contains(rep, "Pairwise judgements") || !strings.Contains(rep, "naturalness") {
		t.Errorf("ngstats: exit %d\n%s", code, rep)
	}
}

// --drop-inconsistent: records whose labels contradict their type go to
// the errors file with the reason; without it they carry the defect.
func TestNglabelDropInconsistent(t *testing.T) {
	in, _ := labelInput(t)
	srv := labelFake(t, llmtest.Options{Reply: func(req *llmtest.ChatRequest) string {
		p := labeltest.Read(req)
		r := labeltest.Labels(p)
		if p.Type == "adherence" {
			r.Turns[0].Norm = "violated"
		}
		b, _ := json.Marshal(r)
		return string(b)
	}})
	dir := t.TempDir()
	errs := filepath.Join(dir, "errors.jsonl")
	code, out, stderr := labelRun(t, srv, "", in, "--tasks", "norm", "--drop-inconsistent", "--errors", errs, "-q")
	eb, _ := os.ReadFile(errs)
	if code != 1 || !strings.Contains(string(eb), "label_violation_in_adherence") {
		t.Fatalf("exit %d (%s); errors %.300s", code, stderr, eb)
	}
	for _, r := range readJSONL(t, out) {
		if r.DialogueType == record.TypeAdherence && len(r.Turns) > 0 {
			t.Fatalf("%s: an inconsistent record was written", r.ID)
		}
	}
	code, out, _ = labelRun(t, srv, "", in, "--tasks", "norm", "-q")
	if code != 0 || !strings.Contains(out, "label_violation_in_adherence") {
		t.Errorf("without --drop-inconsistent: exit %d", code)
	}
}

// --emit-requests writes every call of every dialogue (samples and the
// quality judge) as OpenAI Batch lines; the Batch output, fed back with
// --responses, labels every dialogue without a call.
func TestNglabelBatchRoundTrip(t *testing.T) {
	in, recs := labelInput(t)
	dir := t.TempDir()
	batch, answers := filepath.Join(dir, "batch.jsonl"), filepath.Join(dir, "answers.jsonl")
	code, out, stderr := labelRun(t, nil, "", in, "--base-url", "http://127.0.0.1:9/v1", "--model", "fake",
		"--tasks", "norm,quality", "--samples", "2", "--no-cache", "--emit-requests", batch, "-q")
	if code != 0 || strings.Count(out, "\n") != 32 { // only the records without turns come out
		t.Fatalf("emit: exit %d, %d records out: %s", code, strings.Count(out, "\n"), stderr)
	}
	srv := labelFake(t, llmtest.Options{})
	b, err := os.ReadFile(batch)
	if err != nil {
		t.Fatal(err)
	}
	var res bytes.Buffer
	calls := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var req struct {
			CustomID string          `json:"custom_id"`
			Body     json.RawMessage `json:"body"`
		}
		if err := json.Unmarshal([]byte(line), &req); err != nil {
			t.Fatal(err)
		}
		_, call, _ := strings.Cut(req.CustomID, "/")
		calls[call]++
		var cr llmtest.ChatRequest
		if err := json.Unmarshal(req.Body, &cr); err != nil {
			t.Fatal(err)
		}
		content, _ := json.Marshal(labeltest.Answer(&cr))
		fmt.Fprintf(&res, `{"custom_id":%q,"response":{"status_code":200,"body":{"model":"fake","choices":[{"message":{"role":"assistant","content":%s},"finish_reason":"stop"}],"usage":{"prompt_tokens":100,"completion_tokens":50}}}}`+"\n", req.CustomID, content)
	}
	if calls["labels.1"] != 103 || calls["labels.2"] != 103 || calls["quality"] != 103 {
		t.Fatalf("calls in the batch file: %v", calls)
	}
	os.WriteFile(answers, res.Bytes(), 0o644)
	code, out, stderr = labelRun(t, srv, "", in, "--tasks", "norm,quality", "--samples", "2", "--no-cache", "--responses", answers, "-q")
	if code != 0 {
		t.Fatalf("replay: exit %d: %s", code, stderr)
	}
	got := readJSONL(t, out)
	if len(got) != len(recs) || srv.Count() != 0 {
		t.Fatalf("%d records, %d calls", len(got), srv.Count())
	}
	for _, r := range got {
		if len(r.Turns) > 0 && (r.Quality == nil || r.LabelsMeta.Samples != 2 || r.Turns[0].Labels.NormDist == nil) {
			t.Fatalf("%s not labelled from the replies: %+v", r.ID, r.LabelsMeta)
		}
	}
}

// A new turn label is one row of record.LabelTasks: a row added here
// (testkit.AddLabel) is in nglabel's help and --tasks, its prompt's label
// list and reply schema, is read from the replies and merged over a panel
// (majority and labels.by_model), and reaches ngstats' tables, the review
// exports (Label Studio's config and tasks, Argilla's suggestions) and the
// dataset card.
func TestNewLabelIsOneRow(t *testing.T) {
	testkit.AddLabel(t, record.LabelTask{Name: "politeness", Values: []string{"polite", "plain", "rude"},
		Title: "politeness", Help: "(a test's label)", Prompt: "how polite the turn is.", Merge: record.MergeMajority})

	if h := Help("nglabel"); !strings.Contains(h, "- `politeness`: polite plain rude (a test's label)") {
		t.Errorf("nglabel's help does not list the label:\n%s", h)
	}
	if _, stdout, _ := labelRun(t, nil, "", "--help"); !strings.Contains(stdout, "safety (+rots), politeness, quality, or all") {
		t.Errorf("--tasks' usage does not name the label:\n%s", stdout)
	}
	tasks, err := label.ParseTasks("norm,politeness")
	if err != nil {
		t.Fatal(err)
	}

	// Two labellers: a says polite on every turn, b rude on turn 0.
	var mu sync.Mutex
	var prompts, schemas []string
	labeller := func(rude0 bool) *llmtest.Server {
		return labelFake(t, llmtest.Options{Reply: func(req *llmtest.ChatRequest) string {
			mu.Lock()
			prompts = append(prompts, req.Messages[0].Text())
			if rf := req.ResponseFormat; rf != nil && rf.JSONSchema != nil {
				schemas = append(schemas, string(rf.JSONSchema.Schema))
			}
			mu.Unlock()
			var reply map[string][]map[string]any
			if err := json.Unmarshal([]byte(labeltest.Answer(req)), &reply); err != nil {
				return err.Error()
			}
			for i, e := range reply["turns"] {
				e["politeness"] = "polite"
				if rude0 && i == 0 {
					e["politeness"] = "rude"
				}
			}
			b, _ := json.Marshal(reply)
			return string(b)
		}})
	}
	a, b := labeller(false), labeller(true)
	_, recs := labelInput(t)
	var rec *record.Record
	for _, r := range recs {
		if r.DialogueType == record.TypeViolation && len(r.Turns) > 0 {
			rec = r
			break
		}
	}
	st, err := label.New(testkit.Client(t, testkit.LLMConfig(a.URL, "nglabel")), label.Options{Tasks: tasks, Panel: []label.Labeller{
		{Name: "a", Caller: testkit.Client(t, testkit.LLMConfig(a.URL, "nglabel"))},
		{Name: "b", Caller: testkit.Client(t, testkit.LLMConfig(b.URL, "nglabel"))}}})
	if err != nil {
		t.Fatal(err)
	}
	out, err := st.Process(context.Background(), rec)
	if err != nil || len(out) != 1 {
		t.Fatalf("nglabel: %v", err)
	}
	if len(prompts) == 0 || !strings.Contains(prompts[0], "- politeness: how polite the turn is.") || !strings.Contains(prompts[0], `"politeness": "..."`) {
		t.Errorf("the prompt does not ask for the label:\n%s", prompts)
	}
	if len(schemas) == 0 || !strings.Contains(schemas[0], `"politeness":{"enum":["polite","plain","rude"],"type":"string"}`) {
		t.Errorf("the reply schema has no politeness:\n%s", schemas)
	}
	l := rec.Turns[0].Labels
	if l.Get("politeness") != "polite" || len(l.ByModel) != 2 || l.ByModel[0].Get("politeness") != "polite" || l.ByModel[1].Get("politeness") != "rude" {
		t.Errorf("turn 0: politeness %q, by model %+v", l.Get("politeness"), l.ByModel)
	}

	// ngstats' tables.
	c := stats.NewCollector()
	c.Add(rec)
	var rep bytes.Buffer
	if err := render.WriteText(&rep, c.Report(), 0); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Labels: politeness", "Labelling panel: politeness by labeller"} {
		if !strings.Contains(rep.String(), want) {
			t.Errorf("ngstats has no %q:\n%s", want, rep.String())
		}
	}

	// The review exports.
	if _, err := review.ParseReviewTasks("politeness"); err != nil {
		t.Error(err)
	}
	cfg := review.LabelStudioConfig([]string{"politeness"})
	if !strings.Contains(cfg, `"politeness"`) || !strings.Contains(cfg, `"rude"`) {
		t.Errorf("Label Studio config:\n%s", cfg)
	}
	if ls, _ := json.Marshal(review.LabelStudio([]string{"politeness"})(rec)); !strings.Contains(string(ls), `"polite"`) {
		t.Errorf("Label Studio task: %s", ls)
	}
	ar := review.Argilla([]string{"politeness"})(rec)
	if len(ar) != 1 || ar[0].Suggestions[review.ArgillaQuestion("politeness", 0)].Value != "polite" {
		t.Errorf("Argilla: %+v", ar)
	}

	// The dataset card.
	var p hf.Provenance
	p.Add(rec)
	if md := p.Markdown(); !strings.Contains(md, "safety, politeness) were assigned") {
		t.Errorf("card:\n%s", md)
	}
}
