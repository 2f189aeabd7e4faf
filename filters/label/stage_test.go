package label

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ngkit/ngkit/internal/testkit"
	"github.com/ngkit/ngkit/pkg/agree"

	"github.com/ngkit/ngkit/filters/imports"
	"github.com/ngkit/ngkit/filters/label/labeltest"
	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/llm/llmtest"
	"github.com/ngkit/ngkit/pkg/record"
)

// sample returns the release sample's dialogues with at least 4 turns,
// imported as ngv2r-like records.
func sample(t testing.TB) []*record.Record {
	t.Helper()
	files, err := filepath.Glob("../../testdata/normgenesis/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("sample files: %v %v", files, err)
	}
	all, err := imports.ReadNormGenesis(files)
	if err != nil {
		t.Fatal(err)
	}
	return labeltest.Dialogues(all, 4)
}

// pick returns a copy of the first sample record of a culture and type.
func pick(t testing.TB, recs []*record.Record, culture, typ string) *record.Record {
	t.Helper()
	return pickNth(t, recs, culture, typ, 0)
}

// pickNth returns a copy of the nth (from 0) such record.
func pickNth(t testing.TB, recs []*record.Record, culture, typ string, nth int) *record.Record {
	t.Helper()
	for _, r := range recs {
		if r.Culture == culture && r.DialogueType == typ {
			if nth > 0 {
				nth--
				continue
			}
			b, _ := r.AppendJSON(nil) // a copy: tests change records
			c := &record.Record{}
			if err := c.UnmarshalJSON(b); err != nil {
				t.Fatal(err)
			}
			return c
		}
	}
	t.Fatalf("no %s %s record in the sample", culture, typ)
	return nil
}

// newStage is New for tests: options a test gives are valid.
func newStage(t testing.TB, c llm.Caller, opt Options) *Stage {
	t.Helper()
	s, err := New(c, opt)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func newClient(t testing.TB, srv *llmtest.Server, reasks int) *llm.Client {
	t.Helper()
	cfg := testkit.LLMConfig(srv.URL, "nglabel")
	cfg.MaxRetries, cfg.MaxReasks = 4, reasks
	return testkit.Client(t, cfg)
}

func newServer(t testing.TB, reply func(*llmtest.ChatRequest) string) *llmtest.Server {
	srv := llmtest.New(llmtest.Options{Reply: reply})
	t.Cleanup(srv.Close)
	return srv
}

func defaultTasks(t testing.TB) Tasks {
	tasks, err := ParseTasks("default")
	if err != nil {
		t.Fatal(err)
	}
	return tasks
}

// The right replies, one culture of each language and every dialogue type:
// every turn labelled, from the closed sets, stage only on V2R, meta, gen
// and no consistency defect.
func TestLabelsRightReplies(t *testing.T) {
	recs := sample(t)
	srv := newServer(t, labeltest.Answer)
	s := newStage(t, newClient(t, srv, 2), Options{Tasks: defaultTasks(t)})
	for _, ct := range [][2]string{{"korean", "adherence"}, {"korean", "violation"}, {"chinese", "v2r"}, {"american", "v2r"}, {"american", "violation"}} {
		rec := pick(t, recs, ct[0], ct[1])
		out, err := s.Process(context.Background(), rec)
		if err != nil {
			t.Fatalf("%s: %v", ct, err)
		}
		r := out[0]
		if err := r.Validate(); err != nil {
			t.Errorf("%s: %v", ct, err)
		}
		for _, tu := range r.Turns {
			l := tu.Labels
			if l == nil || l.Norm == "" || l.Intent == "" || l.Emotion == "" || l.Explanation == "" {
				t.Fatalf("%s turn %d: %+v", ct, tu.Index, l)
			}
			if (l.Stage != "") != (r.DialogueType == record.TypeV2R) {
				t.Errorf("%s turn %d: stage %q", ct, tu.Index, l.Stage)
			}
			if l.NormDist != nil || l.Agreement != 0 {
				t.Errorf("%s: one sample has no distribution: %+v", ct, l)
			}
		}
		m := r.LabelsMeta
		wantTasks := []string{"norm", "intent", "emotion"}
		if r.DialogueType == record.TypeV2R {
			wantTasks = append(wantTasks, "stage")
		}
		if m == nil || m.Model != "fake" || m.Samples != 1 || !slices.Equal(m.Tasks, wantTasks) {
			t.Errorf("%s: labels_meta %+v", ct, m)
		}
		if len(r.Gen) != 1 || r.Gen[0].Call != CallLabels || r.Gen[0].Stage != "nglabel" || r.Gen[0].PromptPack == "" {
			t.Errorf("%s: gen %+v", ct, r.Gen)
		}
		if r.Checks != nil && slices.ContainsFunc(r.Checks.Defects, func(d string) bool { return strings.HasPrefix(d, "label_") }) {
			t.Errorf("%s: defects %v", ct, r.Checks.Defects)
		}
	}
	if n := srv.Count(); n != 5 {
		t.Errorf("%d calls for 5 dialogues", n)
	}
}

// Wrong replies are asked again with what is wrong, and the corrected
// reply is used: missing turns, an unknown label, an extra turn, chatty
// JSON around the object, rules-of-thumb in the wrong language.
func TestLabelsWrongRepliesAreReasked(t *testing.T) {
	recs := sample(t)
	breakers := map[string]struct {
		mangle func(*labeltest.Reply) string
		want   string // in the re-ask
	}{
		"missing turns": {func(r *labeltest.Reply) string {
			r.Turns = r.Turns[:len(r.Turns)-2]
			return marshal(r)
		}, "no entry for turn"},
		"unknown label": {func(r *labeltest.Reply) string {
			r.Turns[1].Emotion = "contempt"
			return marshal(r)
		}, "emotion"},
		"extra turn": {func(r *labeltest.Reply) string {
			extra := r.Turns[0]
			extra.Index = len(r.Turns)
			r.Turns = append(r.Turns, extra)
			return marshal(r)
		}, "there is no turn"},
		"missing label": {func(r *labeltest.Reply) string {
			r.Turns[2].Intent = ""
			return marshal(r)
		}, "turn 2 has no intent label"},
		"one-based": {func(r *labeltest.Reply) string {
			for i := range r.Turns {
				r.Turns[i].Index++
			}
			return marshal(r)
		}, "no entry for turn 0"},
		"rots in English": {func(r *labeltest.Reply) string {
			r.Turns[1].Rots = []string{"It's rude to interrupt."}
			return marshal(r)
		}, "rules-of-thumb (rots) must be in Korean"},
	}
	for name, b := range breakers {
		t.Run(name, func(t *testing.T) {
			var reasked atomic.Value
			srv := newServer(t, func(req *llmtest.ChatRequest) string {
				if labeltest.IsReask(req) {
					reasked.Store(req.LastUser())
					return labeltest.Answer(req)
				}
				r := labeltest.Labels(labeltest.Read(req))
				return b.mangle(&r)
			})
			tasks, _ := ParseTasks("norm,intent,emotion,safety")
			s := newStage(t, newClient(t, srv, 2), Options{Tasks: tasks})
			rec := pick(t, recs, "korean", "violation")
			out, err := s.Process(context.Background(), rec)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := reasked.Load().(string)
			if !strings.Contains(got, b.want) {
				t.Errorf("re-ask %q does not say %q", got, b.want)
			}
			if srv.Count() != 2 || out[0].Gen[0].Retries != 1 {
				t.Errorf("%d requests, gen %+v", srv.Count(), out[0].Gen)
			}
			if l := out[0].Turns[1].Labels; l.Emotion == "contempt" || l.Safety != "needs_caution" || len(l.Rots) != 1 || !strings.ContainsAny(l.Rots[0], "다") {
				t.Errorf("turn 1: %+v", l)
			}
		})
	}
	t.Run("chatty JSON", func(t *testing.T) {
		srv := newServer(t, func(req *llmtest.ChatRequest) string {
			return "Sure! Here are the labels:\n```json\n" + labeltest.Answer(req) + "\n```\nLet me know if you need more."
		})
		s := newStage(t, newClient(t, srv, 2), Options{Tasks: defaultTasks(t)})
		if _, err := s.Process(context.Background(), pick(t, recs, "chinese", "v2r")); err != nil || srv.Count() != 1 {
			t.Fatalf("%v after %d requests", err, srv.Count())
		}
	})
}

func marshal(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// A model that never gets it right: the record fails with the reason,
// after the bounded re-asks and retries, and is left unchanged.
func TestLabelsAlwaysWrongFails(t *testing.T) {
	recs := sample(t)
	srv := newServer(t, func(req *llmtest.ChatRequest) string {
		r := labeltest.Labels(labeltest.Read(req))
		r.Turns = r.Turns[1:]
		return marshal(r)
	})
	s := newStage(t, newClient(t, srv, 1), Options{Tasks: defaultTasks(t)})
	rec := pick(t, recs, "american", "adherence")
	before, _ := rec.AppendJSON(nil)
	_, err := s.Process(context.Background(), rec)
	if err == nil || !strings.Contains(err.Error(), "no entry for turn 0") {
		t.Fatalf("error %v", err)
	}
	after, _ := rec.AppendJSON(nil)
	if string(before) != string(after) {
		t.Error("a failed record was changed")
	}
	// --max-reasks bounds the whole call: 1 re-ask, then 1 + 4 attempts.
	if srv.Count() != 6 {
		t.Errorf("%d requests", srv.Count())
	}
}

// Three samples: majority, distributions, agreement, kappa, and the
// ProsocialDialog safety rule; one call per sample with its own seed.
func TestLabelsSamples(t *testing.T) {
	recs := sample(t)
	srv := newServer(t, labeltest.Answer)
	tasks, _ := ParseTasks("norm,emotion,safety")
	temp := 0.7
	s := newStage(t, newClient(t, srv, 2), Options{Tasks: tasks, Samples: 3, SampleTemperature: &temp, SampleSeed: 0})
	rec := pick(t, recs, "american", "violation")
	out, err := s.Process(context.Background(), rec)
	if err != nil {
		t.Fatal(err)
	}
	r := out[0]
	var seeds []int64
	for _, q := range srv.Requests() {
		if q.Request.Seed == nil || q.Request.Temperature == nil || *q.Request.Temperature != 0.7 {
			t.Fatalf("request without seed or temperature: %s", q.Body[:200])
		}
		seeds = append(seeds, *q.Request.Seed)
	}
	slices.Sort(seeds)
	if !slices.Equal(seeds, []int64{0, 1, 2}) {
		t.Errorf("seeds %v", seeds)
	}
	// Seeds 0, 1, 2: the violated turn's safety votes are needs_caution,
	// casual, needs_caution -> two caution votes of three -> probably.
	l := r.Turns[1].Labels
	if l.Norm != "violated" || l.Safety != agree.SafetyProbablyCaution || l.SafetyDist["casual"] < 0.33 || l.SafetyDist["needs_caution"] < 0.66 {
		t.Errorf("turn 1: %+v", l)
	}
	if len(l.Rots) != 1 {
		t.Errorf("turn 1 rots %v: from a sample that voted caution", l.Rots)
	}
	// Emotion: seed 1 says surprise on odd turns, the others neutral.
	if l.Emotion != "neutral" || l.EmotionDist["surprise"] < 0.33 || l.NormDist["violated"] != 1 {
		t.Errorf("turn 1 emotion: %+v", l)
	}
	want := (1 + 2.0/3 + 2.0/3) / 3
	if diff := l.Agreement - want; diff > 1e-9 || diff < -1e-9 {
		t.Errorf("turn 1 agreement %v, want %v", l.Agreement, want)
	}
	if m := r.LabelsMeta; m.Samples != 3 || m.Agreement <= 0 || m.Agreement >= 1 || m.Kappa == 0 {
		t.Errorf("meta %+v", m)
	}
	names := []string{r.Gen[0].Call, r.Gen[1].Call, r.Gen[2].Call}
	if !slices.Equal(names, []string{"labels.1", "labels.2", "labels.3"}) {
		t.Errorf("calls %v", names)
	}
}

// Quality and pairwise: the scores and explanations land in quality, the
// judgement in the pairwise field, win/loss seen from the record's side.
func TestQualityAndPairwise(t *testing.T) {
	recs := sample(t)
	srv := newServer(t, labeltest.Answer)
	base := NewBaseline(MatchNorm)
	ours := pick(t, recs, "american", "v2r")
	theirs := pick(t, recs, "american", "v2r")
	theirs.ID = "normdial-1"
	theirs.Turns = theirs.Turns[:4]
	base.Add(theirs)
	tasks, _ := ParseTasks("quality")
	s := newStage(t, newClient(t, srv, 2), Options{Tasks: tasks, Baseline: base})
	out, err := s.Process(context.Background(), ours)
	if err != nil {
		t.Fatal(err)
	}
	r := out[0]
	q := r.Quality
	if q == nil || q.Norm != 3 || q.Consistency != 3 || q.Naturalness != 4 || q.Fit != 5 || len(q.Explanations) != 7 {
		t.Errorf("quality %+v", q)
	}
	// The seed fit: the dialogue of another seed, under this
	// seed, does not fit it, and the judge says why.
	unrelated := *pick(t, recs, "american", "adherence")
	unrelated.ID = "unrelated"
	unrelated.Turns = pickNth(t, recs, "american", "adherence", 1).Turns
	out2, err := s.Process(context.Background(), &unrelated)
	if err != nil {
		t.Fatal(err)
	}
	if q := out2[0].Quality; q == nil || q.Fit > 2 || !strings.Contains(q.Explanations["fit"], "not people of the scenario") {
		t.Errorf("an unrelated dialogue: quality %+v", q)
	}
	// A dialogue without a seed (imported) has no fit.
	noSeed := *pickNth(t, recs, "american", "adherence", 2)
	noSeed.ID, noSeed.Scenario, noSeed.Situation = "no-seed", "", ""
	out3, err := s.Process(context.Background(), &noSeed)
	if err != nil {
		t.Fatal(err)
	}
	if q := out3[0].Quality; q == nil || q.Fit != 0 || q.Explanations["fit"] != "" || q.Norm == 0 {
		t.Errorf("a dialogue without a seed: quality %+v", q)
	}
	var pw Pairwise
	if err := json.Unmarshal(r.Extra[PairwiseKey], &pw); err != nil {
		t.Fatal(err)
	}
	// The fake prefers A for naturalness and B for the norm.
	first := recordFirst(ours.ID, "normdial-1")
	wantNat, wantNorm := Loss, Win
	if first {
		wantNat, wantNorm = Win, Loss
	}
	if pw.Against != "normdial-1" || pw.By != MatchNorm || pw.Naturalness != wantNat || pw.Norm != wantNorm || len(pw.Explanations) != 2 {
		t.Errorf("pairwise %+v (record first: %v)", pw, first)
	}
	for _, tu := range r.Turns {
		if tu.Labels != nil {
			t.Fatalf("turn labelled without a turn task: %+v", tu.Labels)
		}
	}
	if m := r.LabelsMeta; m == nil || !slices.Equal(m.Tasks, []string{"quality"}) {
		t.Errorf("meta %+v", m)
	}
	if len(r.Gen) != 2 || r.Gen[0].Call != CallQuality || r.Gen[1].Call != CallPairwise {
		t.Errorf("gen %+v", r.Gen)
	}
}

// Consistency: a model that labels an adherence dialogue's turn violated
// gets the record flagged, or dropped with --drop-inconsistent.
func TestInconsistentLabels(t *testing.T) {
	recs := sample(t)
	srv := newServer(t, func(req *llmtest.ChatRequest) string {
		r := labeltest.Labels(labeltest.Read(req))
		r.Turns[2].Norm = "violated"
		return marshal(r)
	})
	c := newClient(t, srv, 2)
	rec := pick(t, recs, "korean", "adherence")
	out, err := newStage(t, c, Options{Tasks: defaultTasks(t)}).Process(context.Background(), rec)
	if err != nil || !slices.Contains(out[0].Checks.Defects, DefectViolationInAdherence) {
		t.Fatalf("%v %+v", err, out[0].Checks)
	}
	_, err = newStage(t, c, Options{Tasks: defaultTasks(t), DropInconsistent: true}).Process(context.Background(), pick(t, recs, "korean", "adherence"))
	if err == nil || !strings.Contains(err.Error(), DefectViolationInAdherence) {
		t.Fatalf("--drop-inconsistent: %v", err)
	}
}

// With --emit-requests every call of the record is written, then the
// record is deferred; --responses answers them.
func TestEmitRequestsWritesEverySample(t *testing.T) {
	recs := sample(t)
	dir := t.TempDir()
	batch := filepath.Join(dir, "batch.jsonl")
	c, err := llm.New(llm.Config{BaseURL: "http://127.0.0.1:9/v1", Model: "fake", EmitRequests: batch})
	if err != nil {
		t.Fatal(err)
	}
	tasks, _ := ParseTasks("norm,quality")
	_, err = newStage(t, c, Options{Tasks: tasks, Samples: 2}).Process(context.Background(), pick(t, recs, "chinese", "violation"))
	if !errors.Is(err, llm.ErrDeferred) {
		t.Fatalf("error %v", err)
	}
	if u := c.Usage(); u.Total.Emitted != 3 {
		t.Errorf("%d requests emitted, want 3 (2 samples + quality)", u.Total.Emitted)
	}
	c.Close()
}

// A ProsocialDialog import has no norm and no dialogue type: the norm
// task is skipped, the prompt names neither, and the annotators' safety
// labels stay unless safety is relabelled.
func TestLabelsProsocialRecord(t *testing.T) {
	src, err := imports.NewProsocial([]string{"../../testdata/prosocial/sample.jsonl"}, imports.ProsocialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	it, err := src.Next()
	if err != nil {
		t.Fatal(err)
	}
	rec, err := it.Decode(it.Raw)
	if err != nil {
		t.Fatal(err)
	}
	srv := newServer(t, func(req *llmtest.ChatRequest) string {
		if u := req.Messages[1].Text(); strings.Contains(u, "Social norm") || strings.Contains(u, "Dialogue type") {
			t.Errorf("prompt names a norm or type the record lacks:\n%s", u)
		}
		return labeltest.Answer(req)
	})
	out, err := newStage(t, newClient(t, srv, 2), Options{Tasks: defaultTasks(t)}).Process(context.Background(), rec)
	if err != nil {
		t.Fatal(err)
	}
	l := out[0].Turns[0].Labels
	if l.Norm != "" || l.Intent == "" || l.Emotion == "" || l.Safety != "needs_caution" || len(l.Rots) != 2 ||
		!strings.Contains(l.Explanation, "Tampering with food") {
		t.Errorf("turn 0: %+v", l)
	}
	if l := out[0].Turns[1].Labels; l.Explanation == "" || l.Intent == "" {
		t.Errorf("turn 1 (assistant): %+v", l)
	}
	if m := out[0].LabelsMeta; !slices.Equal(m.Tasks, []string{"intent", "emotion"}) {
		t.Errorf("tasks %v", m.Tasks)
	}
}

// The schema sent to the server requires every asked label in each turn's
// entry (the file requires only index and explanation): with the file's,
// llama-server's grammar let SmolLM2-135M and Qwen2.5-Coder-1.5B write
// "adhered" into explanation and no norm label, on every call
// (testdata/realmodels/panel.rec.jsonl).
func TestLabelsSchemaRequiresTheTasks(t *testing.T) {
	recs := sample(t)
	srv := newServer(t, labeltest.Answer)
	s := newStage(t, newClient(t, srv, 2), Options{Tasks: defaultTasks(t)})
	for _, ct := range [][2]string{{"korean", "adherence"}, {"chinese", "v2r"}} {
		if _, err := s.Process(context.Background(), pick(t, recs, ct[0], ct[1])); err != nil {
			t.Fatalf("%s: %v", ct, err)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	for i, want := range [][]string{{"index", "explanation", "norm", "intent", "emotion"}, {"index", "explanation", "norm", "intent", "emotion", "stage"}} {
		var body struct {
			ResponseFormat struct {
				JSONSchema struct {
					Name   string `json:"name"`
					Schema struct {
						Properties struct {
							Turns struct {
								Items struct {
									Required []string `json:"required"`
								} `json:"items"`
							} `json:"turns"`
						} `json:"properties"`
					} `json:"schema"`
				} `json:"json_schema"`
			} `json:"response_format"`
		}
		if err := json.Unmarshal(reqs[i].Body, &body); err != nil {
			t.Fatal(err)
		}
		js := body.ResponseFormat.JSONSchema
		if js.Name != "label_turns" || !slices.Equal(js.Schema.Properties.Turns.Items.Required, want) {
			t.Errorf("request %d: schema %q requires %v, want %v", i+1, js.Name, js.Schema.Properties.Turns.Items.Required, want)
		}
	}
}
