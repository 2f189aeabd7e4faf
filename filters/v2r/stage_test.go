package v2r

import (
	"slices"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/internal/testkit"
	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/llm/llmtest"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/prompt"
	"github.com/ngkit/ngkit/pkg/record"
)

// testConfig is a client for the fake server: quick retries, no cache.
func testConfig(srv *llmtest.Server) llm.Config { return testkit.LLMConfig(srv.URL, "ngv2r") }

type runResult struct {
	out    []*record.Record
	errs   []pipeline.ErrorRecord
	client *llm.Client
}

// runStage runs the stage over seeds through the shared runner.
func runStage(t testing.TB, cfg llm.Config, opt Options, seeds []*record.Record) runResult {
	t.Helper()
	c := testkit.Client(t, cfg)
	if opt.Rules == (Rules{}) {
		opt.Rules = defaultRules
	}
	st, err := New(c, opt)
	if err != nil {
		t.Fatal(err)
	}
	res := testkit.Run(t, st, seeds, cfg.Concurrency)
	return runResult{out: res.Out, errs: res.Errors, client: c}
}

func seedsOf(ps []pair) []*record.Record {
	out := make([]*record.Record, len(ps))
	for i, p := range ps {
		s := *p.seed
		out[i] = &s
	}
	return out
}

// sameTurns compares the speakers, directions, texts and stages.
func sameTurns(got, want []record.Turn) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.Index != i || g.Speaker != w.Speaker || g.Action != w.Action || g.Text != w.Text || g.Stage != w.Stage {
			return false
		}
	}
	return true
}

// Every culture and type end to end: the seeds of real release records,
// answered with their own dialogues as structured JSON; each comes out as
// a dialogue record with the seed's fields, its turns and stages, the
// language checked, and the call's gen.
func TestReleaseDialoguesEndToEnd(t *testing.T) {
	pack := prompt.Builtin()
	for _, culture := range cultures {
		for _, typ := range record.DialogueTypes {
			t.Run(culture+"/"+typ, func(t *testing.T) {
				ps := releasePairs(t, culture, typ)
				model := newFakeModel()
				for _, p := range ps {
					model.script(p.seed, jsonOf(p.d, typ))
				}
				srv := llmtest.New(llmtest.Options{Reply: model.reply})
				defer srv.Close()
				seeds := seedsOf(ps)
				seeds[0].SetExtra("batch", "b1")
				seeds[0].Gen = []record.Gen{{Stage: "ngseed", Call: "situation"}}
				res := runStage(t, testConfig(srv), Options{}, seeds)
				if len(res.errs) > 0 || len(res.out) != len(ps) {
					t.Fatalf("%d out, errors: %+v", len(res.out), res.errs)
				}
				for i, r := range res.out {
					p, seed := ps[i], ps[i].seed
					if r.ID != record.NewID(seed.ID, "dialogue") || r.ParentID != seed.ID {
						t.Errorf("%s: id %s parent %s", p.src, r.ID, r.ParentID)
					}
					if r.Culture != seed.Culture || r.Category != seed.Category || r.Norm != seed.Norm || r.NormID != seed.NormID ||
						r.DialogueType != typ || r.Scenario != seed.Scenario || r.Situation != seed.Situation || r.Lang != seed.Lang {
						t.Errorf("%s: seed fields not kept: %+v", p.src, r)
					}
					if !sameTurns(r.Turns, p.d.Turns) || !slices.Equal(r.Narration, p.d.Narration) {
						t.Errorf("%s: turns\n got %+v\nwant %+v", p.src, r.Turns, p.d.Turns)
					}
					if r.Checks == nil || r.Checks.LangExpected != seed.Lang || r.Checks.LangOK == nil || !*r.Checks.LangOK || r.Checks.LangShare != 1 {
						t.Errorf("%s: checks %+v", p.src, r.Checks)
					}
					detected := 0
					for _, tu := range r.Turns {
						if tu.Lang == seed.Lang {
							detected++
						} else if tu.Lang != "" {
							t.Errorf("%s: turn in %s", p.src, tu.Lang)
						}
					}
					if detected == 0 {
						t.Errorf("%s: no turn language kept", p.src)
					}
					g := r.Gen[len(r.Gen)-1]
					if g.Stage != "ngv2r" || g.Call != "dialogue" || g.PromptPack != pack.Version() || g.TokensIn == 0 || g.Retries != 0 {
						t.Errorf("%s: gen %+v", p.src, r.Gen)
					}
					if err := r.Validate(); err != nil {
						t.Error(err)
					}
				}
				if v, _ := res.out[0].ExtraString("batch"); v != "b1" || len(res.out[0].Gen) != 2 || res.out[0].Gen[0].Stage != "ngseed" {
					t.Errorf("pass-through fields or earlier gen lost: %+v %+v", res.out[0].Extra, res.out[0].Gen)
				}
				// What the model was asked: the schema of the type, the
				// language, the norm and the seed.
				req := srv.Requests()[0].Request
				if req.ResponseFormat == nil || req.ResponseFormat.JSONSchema == nil || req.ResponseFormat.JSONSchema.Name != SchemaName(typ) {
					t.Errorf("response_format: %+v", req.ResponseFormat)
				}
				sys, user := req.Messages[0].Text(), req.Messages[1].Text()
				if culture != "korean" && !strings.Contains(sys, map[string]string{"american": "English", "chinese": "Chinese"}[culture]) ||
					culture == "korean" && !strings.Contains(sys, "한국어") {
					t.Errorf("system prompt does not name the language: %s", sys)
				}
				if !strings.Contains(user, strings.TrimSpace(ps[0].seed.Norm)) && !strings.Contains(user, strings.TrimSpace(ps[1].seed.Norm)) {
					t.Errorf("user prompt without the norm: %s", user)
				}
			})
		}
	}
}

// spoil makes a valid dialogue invalid in one way; want is in the reason.
type spoil struct {
	name  string
	types []string // the types it applies to (nil: all)
	want  string
	do    func(d *Dialogue, culture, typ string)
}

var spoils = []spoil{
	{name: "too few turns", want: "fewer than 5", do: func(d *Dialogue, _, _ string) {
		d.Turns = d.Turns[:3]
	}},
	{name: "one speaker", want: "only one speaker", do: func(d *Dialogue, _, _ string) {
		for i := range d.Turns {
			d.Turns[i].Speaker = d.Turns[0].Speaker
		}
	}},
	{name: "end marker", want: "format markers", do: func(d *Dialogue, _, _ string) {
		d.Turns[len(d.Turns)-1].Text += " [END]"
	}},
	{name: "wrong language", want: "write every turn in", do: func(d *Dialogue, culture, _ string) {
		d.Turns[2].Text = map[string]string{
			"american": "오늘 회의는 정말 길었어요. 다들 피곤해 보이네요.",
			"chinese":  "The meeting today was really long, and everyone looks tired now.",
			"korean":   "The meeting today was really long, and everyone looks tired now.",
		}[culture]
	}},
	{name: "stages out of order", types: []string{record.TypeV2R}, want: "goes back from resolution to recognition", do: func(d *Dialogue, _, _ string) {
		n := len(d.Turns)
		d.Turns[n-2].Stage, d.Turns[n-1].Stage = "resolution", "recognition"
	}},
	{name: "violation missing", types: []string{record.TypeViolation, record.TypeV2R}, want: "violation", do: func(d *Dialogue, _, typ string) {
		for i := range d.Turns {
			if d.Turns[i].Stage == "violation" {
				d.Turns[i].Stage = map[string]string{record.TypeV2R: "context", record.TypeViolation: ""}[typ]
			}
		}
	}},
}

// An invalid dialogue is asked for again with the reason, and the
// corrected one is accepted; one that stays invalid goes to the errors
// file with the reason, after a bounded number of requests.
func TestInvalidRepliesAreReasked(t *testing.T) {
	for _, culture := range cultures {
		for _, typ := range record.DialogueTypes {
			ps := releasePairs(t, culture, typ)
			for _, sp := range spoils {
				if sp.types != nil && !slices.Contains(sp.types, typ) {
					continue
				}
				t.Run(culture+"/"+typ+"/"+sp.name, func(t *testing.T) {
					good, bad := ps[0], ps[1]
					spoilt := cloneDialogue(bad.d)
					sp.do(spoilt, culture, typ)
					model := newFakeModel()
					model.script(good.seed, jsonOf(*spoilt, typ), jsonOf(good.d, typ)) // fixed when asked again
					model.script(bad.seed, jsonOf(*spoilt, typ))                       // never fixed
					srv := llmtest.New(llmtest.Options{Reply: model.reply})
					defer srv.Close()
					cfg := testConfig(srv)
					cfg.MaxRetries = 1
					res := runStage(t, cfg, Options{}, []*record.Record{good.seed, bad.seed})
					if len(res.out) != 1 || !sameTurns(res.out[0].Turns, good.d.Turns) || res.out[0].Gen[0].Retries != 1 {
						t.Fatalf("the corrected reply was not taken: %+v", res.out)
					}
					if len(res.errs) != 1 || res.errs[0].ID != bad.seed.ID || !strings.Contains(res.errs[0].Error, sp.want) || res.errs[0].Record == nil {
						t.Fatalf("errors: %+v", res.errs)
					}
					var reask string
					for _, q := range srv.Requests() {
						if m := q.Request.Messages; len(m) == 4 && strings.Contains(m[1].Text(), strings.TrimSpace(good.seed.Scenario)) {
							reask = m[3].Text()
						}
					}
					if !strings.HasPrefix(reask, "Your reply was not valid: reply failed the check: ") || !strings.Contains(reask, sp.want) {
						t.Errorf("re-ask: %q", reask)
					}
					// The good seed: 2 requests; the bad one: 1 + 2 re-asks + 1 retry.
					if n := srv.Count(); n != 2+1+2+1 {
						t.Errorf("%d requests", n)
					}
					t.Logf("%s", res.errs[0].Error)
				})
			}
		}
	}
}

// Text mode end to end: no response_format, the lines format asked in the
// prompt, the replies (release dialogues as tagged lines) parsed back
// into the same turns and stages.
func TestTextModeEndToEnd(t *testing.T) {
	for _, culture := range cultures {
		for _, typ := range record.DialogueTypes {
			t.Run(culture+"/"+typ, func(t *testing.T) {
				ps := releasePairs(t, culture, typ)
				model := newFakeModel()
				for _, p := range ps {
					model.script(p.seed, textOf(p.d))
				}
				srv := llmtest.New(llmtest.Options{Reply: model.reply})
				defer srv.Close()
				res := runStage(t, testConfig(srv), Options{TextMode: true}, seedsOf(ps))
				if len(res.errs) > 0 || len(res.out) != len(ps) {
					t.Fatalf("%d out, errors: %+v", len(res.out), res.errs)
				}
				narrated := 0
				for i, r := range res.out {
					if !sameTurns(r.Turns, ps[i].d.Turns) || !slices.Equal(r.Narration, ps[i].d.Narration) {
						t.Errorf("%s: turns\n got %+v\nwant %+v", ps[i].src, r.Turns, ps[i].d.Turns)
					}
					// narration keeps its place among the turns
					if !slices.Equal(r.NarrationAt, ps[i].d.NarrationAt) {
						t.Errorf("%s: narration %q at %v, want at %v", ps[i].src, r.Narration, r.NarrationAt, ps[i].d.NarrationAt)
					}
					if len(r.Narration) > 0 {
						narrated++
					}
				}
				t.Logf("%d of %d dialogues with narration", narrated, len(res.out))
				req := srv.Requests()[0].Request
				user := req.Messages[len(req.Messages)-1].Text()
				if req.ResponseFormat != nil || strings.Contains(req.Messages[0].Text(), "JSON") || strings.Contains(user, "JSON") {
					t.Errorf("text mode asked for JSON: %+v", req)
				}
				if typ != record.TypeAdherence && !strings.Contains(req.Messages[0].Text(), "[violation]") {
					t.Errorf("text mode prompt without the stage tags: %s", req.Messages[0].Text())
				}
			})
		}
	}
}

// In text mode an invalid dialogue is asked again too, in its format.
func TestTextModeReask(t *testing.T) {
	ps := releasePairs(t, "korean", record.TypeV2R)
	model := newFakeModel()
	bad := cloneDialogue(ps[0].d)
	bad.Turns[1].Stage = "" // a turn without its tag
	model.script(ps[0].seed, textOf(*bad), textOf(ps[0].d))
	srv := llmtest.New(llmtest.Options{Reply: model.reply})
	defer srv.Close()
	res := runStage(t, testConfig(srv), Options{TextMode: true}, []*record.Record{ps[0].seed})
	if len(res.out) != 1 || !sameTurns(res.out[0].Turns, ps[0].d.Turns) {
		t.Fatalf("%+v %+v", res.out, res.errs)
	}
	m := srv.Requests()[1].Request.Messages
	if want := "turn 2 (" + ps[0].d.Turns[1].Speaker + ") has no stage"; len(m) != 4 || !strings.Contains(m[3].Text(), want) || !strings.HasSuffix(m[3].Text(), "Reply again, corrected, in the same format.") {
		t.Errorf("re-ask: %q, want %q", m[len(m)-1].Text(), want)
	}
}

// A server without json_schema support: the runtime falls back to
// json_object with the schema in the prompt (not text mode), and the
// dialogues still come.
func TestJSONInPromptFallback(t *testing.T) {
	ps := releasePairs(t, "chinese", record.TypeV2R)[:3]
	model := newFakeModel()
	for _, p := range ps {
		model.script(p.seed, "好的，这是对话：\n```json\n"+jsonOf(p.d, record.TypeV2R)+"\n```")
	}
	srv := llmtest.New(llmtest.Options{Reply: model.reply, RejectJSONSchema: true})
	defer srv.Close()
	cfg := testConfig(srv)
	cfg.Concurrency = 1
	res := runStage(t, cfg, Options{}, seedsOf(ps))
	if len(res.out) != 3 || len(res.errs) != 0 {
		t.Fatalf("%d out, errors %+v", len(res.out), res.errs)
	}
	reqs := srv.Requests()
	last := reqs[len(reqs)-1].Request
	if reqs[0].Status != 400 || last.ResponseFormat == nil || last.ResponseFormat.Type != "json_object" || !strings.Contains(last.Messages[0].Text(), `JSON Schema:`) || !strings.Contains(last.Messages[0].Text(), `"recognition"`) {
		t.Errorf("fallback request: %+v", last)
	}
}

// A seed whose scenario is leaked reasoning (every Korean compliment of the
// release sample: "analysisWe need to check consistency. Scenario: ...";
// a real model's dialogue written from one kept it, and ngstats flagged
// the record) fails alone, before any call.
func TestSeedWithLeakedReasoningFails(t *testing.T) {
	ps := releasePairs(t, "korean", "adherence")
	bad := *ps[0].seed
	bad.ID = "leaky"
	bad.Scenario = "analysisWe need to check consistency. Scenario: \"체육대회에서 전력을 다해 달린 영호가 부모님에게 격려를 받는다.\" So the scenario says..."
	model := newFakeModel()
	model.script(ps[1].seed, jsonOf(ps[1].d, "adherence"))
	srv := llmtest.New(llmtest.Options{Reply: model.reply})
	defer srv.Close()
	res := runStage(t, testConfig(srv), Options{}, []*record.Record{&bad, ps[1].seed})
	if len(res.out) != 1 || res.out[0].ParentID != ps[1].seed.ID {
		t.Fatalf("out: %+v", res.out)
	}
	if len(res.errs) != 1 || res.errs[0].ID != "leaky" || !strings.Contains(res.errs[0].Error, "the seed's scenario is a model's leaked reasoning") {
		t.Fatalf("errors: %+v", res.errs)
	}
	if n := srv.Count(); n != 1 {
		t.Errorf("%d requests, want 1: the leaky seed must cost no call", n)
	}
}
