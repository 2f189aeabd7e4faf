package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ngkit/ngkit/filters/v2r"
	"github.com/ngkit/ngkit/filters/v2r/v2rtest"
	"github.com/ngkit/ngkit/internal/testkit"
	"github.com/ngkit/ngkit/pkg/llm/llmtest"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/record"
)

// v2rSeeds imports the release sample with ngcat and makes a seed of
// each clean dialogue of the type (for Korean V2R, of the Korean
// violation dialogues: the release has no Korean V2R file), n per
// culture, with the reply that answers it: the release dialogue, staged
// by v2rtest's script.
func v2rSeeds(t *testing.T, typ string, n int, text bool) (seeds []*record.Record, replies map[string]string) {
	t.Helper()
	code, out, stderr := run(t, Ngcat, "", append([]string{"--from", "normgenesis"}, sampleFiles(t)...)...)
	if code != 0 {
		t.Fatalf("ngcat: %s", stderr)
	}
	replies = map[string]string{}
	per := map[string]int{}
	for _, r := range readJSONL(t, out) {
		from := typ
		if r.Culture == "korean" && typ == record.TypeV2R {
			from = record.TypeViolation
		}
		if r.DialogueType != from || len(r.Turns) < 5 || len(r.Turns) > 15 || r.Checks != nil && len(r.Checks.Defects) > 0 || per[r.Culture] >= n {
			continue
		}
		per[r.Culture]++
		seed := &record.Record{ID: record.NewID("cli-seed", r.ID, typ), Culture: r.Culture, Lang: r.Lang, Category: r.Category,
			NormID: r.NormID, Norm: r.Norm, DialogueType: typ, Scenario: r.Scenario, Situation: r.Situation}
		turns := v2rtest.Staged(r.Turns, typ)
		replies[strings.TrimSpace(seed.Scenario)] = v2rReply(turns, r.Narration, typ, text)
		seeds = append(seeds, seed)
	}
	if len(seeds) != 3*n {
		t.Fatalf("%d seeds of type %s, want %d", len(seeds), typ, 3*n)
	}
	return seeds, replies
}

// v2rReply is a dialogue as the model writes it: JSON, or tagged lines.
func v2rReply(turns []record.Turn, narration []string, typ string, text bool) string {
	if text {
		return v2rtest.Text(turns, narration, nil)
	}
	return v2rtest.JSON(turns, narration, typ)
}

// v2rServer answers each seed's prompt (found by its scenario, also when
// asked again) with its reply.
func v2rServer(t *testing.T, replies map[string]string, opt llmtest.Options) *llmtest.Server {
	var mu sync.Mutex
	opt.Reply = func(req *llmtest.ChatRequest) string {
		first := ""
		for _, m := range req.Messages {
			if m.Role == "user" {
				first = m.Text()
				break
			}
		}
		mu.Lock()
		defer mu.Unlock()
		for sc, r := range replies {
			if strings.Contains(first, sc) {
				return r
			}
		}
		return "no scripted reply"
	}
	srv := llmtest.New(opt)
	t.Cleanup(srv.Close)
	return srv
}

// The program end to end in the three cultures: seeds in, dialogues out,
// a seed whose replies stay invalid in the errors file (exit 1) with the
// reason; the output goes through ngstats, which finds no defect.
func TestNgv2rEndToEnd(t *testing.T) {
	for _, text := range []bool{false, true} {
		seeds, replies := v2rSeeds(t, record.TypeV2R, 3, text)
		bad := &record.Record{ID: "bad-seed", Culture: "korean", Lang: "ko", Category: "apology", Norm: "변명 없이 사과한다.",
			DialogueType: record.TypeV2R, Scenario: "민수가 회의에 늦었다.", Situation: "민수는 회의에 늦었다. 부장님이 기다렸다. 민수는 변명했다."}
		replies[bad.Scenario] = v2rReply([]record.Turn{{Speaker: "민수", Text: "죄송합니다 [끝]", Stage: "violation"}}, nil, record.TypeV2R, text)
		srv := v2rServer(t, replies, llmtest.Options{})
		dir := t.TempDir()
		errs, outPath := filepath.Join(dir, "errors.jsonl"), filepath.Join(dir, "out.jsonl")
		args := []string{"--base-url", srv.URL, "--model", "fake", "--no-cache", "--backoff", "1ms", "--max-retries", "1", "--errors", errs, "-o", outPath}
		if text {
			args = append(args, "--text-mode")
		}
		code, _, stderr := run(t, Ngv2r, testkit.JSONL(t, append(seeds, bad)), args...)
		if code != 1 {
			t.Fatalf("text %v: exit %d, want 1: %s", text, code, stderr)
		}
		b, err := os.ReadFile(outPath)
		if err != nil {
			t.Fatal(err)
		}
		out := readJSONL(t, string(b))
		if len(out) != len(seeds) {
			eb, _ := os.ReadFile(errs)
			t.Fatalf("%d dialogues for %d seeds: %s", len(out), len(seeds), eb)
		}
		langs := map[string]bool{}
		for i, r := range out {
			if r.ParentID != seeds[i].ID || r.ID != record.NewID(seeds[i].ID, "dialogue") || len(r.Turns) < 5 || r.Turns[0].Stage == "" || len(r.Gen) != 1 || r.Gen[0].Stage != "ngv2r" {
				t.Errorf("record %d: %+v", i, r)
			}
			langs[r.Lang] = true
		}
		if len(langs) != 3 {
			t.Errorf("languages %v", langs)
		}
		eb, _ := os.ReadFile(errs)
		var e pipeline.ErrorRecord
		if err := json.Unmarshal(eb, &e); err != nil || e.ID != "bad-seed" || e.Stage != "ngv2r" ||
			!strings.Contains(e.Error, "fewer than 5") || !text && !strings.Contains(e.Error, "the end marker [끝]") {
			t.Errorf("errors file: %s", eb)
		}
		if q := srv.Requests()[0].Request; !text && (q.ResponseFormat == nil || q.ResponseFormat.JSONSchema.Name != v2r.SchemaName(record.TypeV2R)) || text && q.ResponseFormat != nil {
			t.Errorf("text %v: response_format %+v", text, q.ResponseFormat)
		}
		code, rep, stderr := run(t, Ngstats, string(b), "--json", "--fail-on", "any=0")
		if code != 0 || !strings.Contains(rep, `"defects": []`) && !strings.Contains(rep, `"defects":[]`) {
			t.Errorf("ngstats (exit %d) on ngv2r's output: %s %s", code, stderr, rep)
		}
	}
}

// Every type through the program, with the runtime's faults: every seed
// ends in the output or the errors file.
func TestNgv2rTypesWithFaults(t *testing.T) {
	for _, typ := range record.DialogueTypes {
		seeds, replies := v2rSeeds(t, typ, 3, false)
		srv := v2rServer(t, replies, llmtest.Options{FaultRate: 0.3, Seed: 3, Faults: []llmtest.Fault{
			llmtest.RateLimit, llmtest.ServerError, llmtest.Malformed, llmtest.Empty, llmtest.WrongLang, llmtest.BadJSON, llmtest.Reasoning}})
		errs := filepath.Join(t.TempDir(), "errors.jsonl")
		code, out, stderr := run(t, Ngv2r, testkit.JSONL(t, seeds), "--base-url", srv.URL, "--model", "fake", "--no-cache", "--backoff", "1ms", "--retry-after-cap", "10ms", "--errors", errs)
		recs := readJSONL(t, out)
		failed := 0
		if b, err := os.ReadFile(errs); err == nil {
			failed = strings.Count(string(b), "\n")
		}
		if len(recs)+failed != len(seeds) || code != map[bool]int{true: 0, false: 1}[failed == 0] {
			t.Fatalf("%s: exit %d, %d out + %d failed of %d: %s", typ, code, len(recs), failed, len(seeds), stderr)
		}
		for _, r := range recs {
			if r.DialogueType != typ || (typ == record.TypeAdherence) != (r.Turns[1].Stage == "") {
				t.Errorf("%s: %+v", typ, r.Turns)
			}
		}
		if !strings.Contains(stderr, "ngv2r: llm fake") || !strings.Contains(stderr, "calls answered") {
			t.Errorf("no usage summary on stderr: %s", stderr)
		}
	}
}
