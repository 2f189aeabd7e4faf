package cli

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ngkit/ngkit/cmd/internal/app"
	"github.com/ngkit/ngkit/internal/testkit"
	"github.com/ngkit/ngkit/pkg/llm/llmtest"
	"github.com/ngkit/ngkit/pkg/llm/usage"
	"github.com/ngkit/ngkit/pkg/record"
)

// chainFake is the fake model of every stage, with faults that make
// re-asks (wrong language, bad JSON) and retries (500).
func chainFake(t *testing.T) *llmtest.Server {
	t.Helper()
	m, err := fakeModel()
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New(llmtest.Options{Reply: m.Reply, FaultRate: 0.1, Seed: 3, PromptCache: true,
		Faults: []llmtest.Fault{llmtest.WrongLang, llmtest.ServerError, llmtest.BadJSON}})
	t.Cleanup(srv.Close)
	srv.SetBatch(llmtest.BatchOptions{CompletionTime: 5 * time.Millisecond})
	return srv
}

// untimedAll zeroes the seconds of each call (a batch's time is not one
// call's) and its prompt-cached tokens (they depend on the order the
// provider saw the requests in).
func untimedAll(recs []*record.Record) []*record.Record {
	for _, r := range recs {
		for i := range r.Gen {
			r.Gen[i].Seconds, r.Gen[i].TokensCached, r.Gen[i].CachedSavedUSD = 0, 0, 0
		}
	}
	return recs
}

// The chain ngseed | ngrefine | ngv2r | nglabel with --batch on the fake
// Batch API, with no manual step, gives at every stage the records the
// online chain gives on the same fake replies.
func TestBatchChainEqualsOnline(t *testing.T) {
	online, batch := chainFake(t), chainFake(t)
	dir := t.TempDir()
	type step struct {
		name string
		prog func(app.Env) error
		args []string
	}
	steps := []step{
		{"ngseed", Ngseed, []string{"--culture", "korean", "--limit", "1", "--per-norm", "2", "--types", "adherence,violation,v2r"}},
		{"ngrefine", Ngrefine, nil},
		{"ngv2r", Ngv2r, nil},
		{"nglabel", Nglabel, []string{"--tasks", "all", "--samples", "2"}},
	}
	var inOnline, inBatch string
	var cached int64
	for _, s := range steps {
		base := func(srv *llmtest.Server) []string {
			return testkit.FastRetryFlags(append([]string{"--base-url", srv.URL, "--model", "fake"}, s.args...)...)
		}
		code, outOnline, stderr := run(t, s.prog, inOnline, base(online)...)
		if code != 0 {
			t.Fatalf("%s online: exit %d: %s", s.name, code, stderr)
		}
		before := batch.BatchStats()
		usageFile := filepath.Join(dir, s.name+"-usage.json")
		code, outBatch, stderr := run(t, s.prog, inBatch, append(base(batch), "--batch", "--batch-poll", "1ms", "--batch-state", filepath.Join(dir, s.name), "--usage-json", usageFile)...)
		if code != 0 {
			t.Fatalf("%s --batch: exit %d: %s", s.name, code, stderr)
		}
		a, b := untimedAll(readJSONL(t, outOnline)), untimedAll(readJSONL(t, outBatch))
		if len(a) == 0 || len(a) != len(b) {
			t.Fatalf("%s: %d records online, %d with --batch", s.name, len(a), len(b))
		}
		for i := range a {
			if !reflect.DeepEqual(a[i], b[i]) {
				ja, _ := a[i].AppendJSON(nil)
				jb, _ := b[i].AppendJSON(nil)
				t.Fatalf("%s record %d differs:\nonline %s\nbatch  %s", s.name, i, ja, jb)
			}
		}
		st := batch.BatchStats()
		var u usage.Report
		if b, err := os.ReadFile(usageFile); err != nil || json.Unmarshal(b, &u) != nil {
			t.Fatalf("%s: usage %v", s.name, err)
		}
		cached += u.Total.TokensCached
		t.Logf("%s: %d records; %d batches, %d lines (online: %d requests); %d of %d prompt tokens cached; %d calls, %d requests, %d tokens out", s.name, len(a), st.Batches-before.Batches, st.Lines-before.Lines, online.Count(), u.Total.TokensCached, u.Total.TokensIn, u.Total.Calls, u.Total.Requests, u.Total.TokensOut)
		if st.Batches == before.Batches {
			t.Errorf("%s made no batch", s.name)
		}
		inOnline, inBatch = outOnline, outBatch
	}
	// The shared prefixes are below the 1024 tokens a provider caches from
	// (docs/batch.md): nothing is cached with today's prompts.
	t.Logf("longest shared prefix %d tokens; %d prompt tokens cached", batch.CacheStats().Prefix, cached)
	if online.Count() != batch.Count() {
		t.Errorf("%d requests online, %d in batches", online.Count(), batch.Count())
	}
}

// On the chain ngseed | ngrefine | ngv2r | nglabel, with the fake playing
// the providers' prompt cache, at least half of the prompt tokens of
// each stage whose fixed part reaches 1,024 tokens are cached, the
// summary says so, and each record's gen carries its call's share.
func TestPromptCacheChain(t *testing.T) {
	srv := chainFake(t)
	dir := t.TempDir()
	prices := filepath.Join(dir, "prices.json")
	os.WriteFile(prices, []byte(`{"fake": {"input": 0.15, "cached_input": 0.075, "output": 0.60}}`), 0o644)
	summary := regexp.MustCompile(`tokens \d+ in, \d+ out \(\d+ in from the provider's prompt cache, \d+%\); est\. cost \$[0-9.]+ \(list \$[0-9.]+, cached input -\$[0-9.]+\)`)
	in := ""
	for _, s := range []struct {
		name string
		prog func(app.Env) error
		args []string
		min  float64 // the share of prompt tokens cached, at least
	}{
		{"ngseed", Ngseed, []string{"--culture", "american", "--per-norm", "3", "--types", "adherence,violation,v2r"}, 0}, // 1,080 seeds (the 120 norms)
		{"ngrefine", Ngrefine, nil, 0.5},
		{"ngv2r", Ngv2r, nil, 0.5},
		{"nglabel", Nglabel, []string{"--tasks", "all", "--samples", "2"}, 0.5},
	} {
		usageFile := filepath.Join(dir, s.name+".json")
		args := testkit.FastRetryFlags(append([]string{"--base-url", srv.URL, "--model", "fake", "--no-cache", "--usage-json", usageFile, "--prices", prices, "--quiet=false"}, s.args...)...)
		code, out, stderr := run(t, s.prog, in, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", s.name, code, stderr)
		}
		var u usage.Report
		if b, err := os.ReadFile(usageFile); err != nil || json.Unmarshal(b, &u) != nil {
			t.Fatal(err)
		}
		share := float64(u.Total.TokensCached) / float64(u.Total.TokensIn)
		recs := readJSONL(t, out)
		var inGen int64
		var savedGen float64
		for _, r := range recs {
			for _, g := range r.Gen {
				if g.Stage == s.name {
					inGen += int64(g.TokensCached)
					savedGen += g.CachedSavedUSD
				}
			}
		}
		t.Logf("%s: %d records, %d of %d prompt tokens cached (%.0f%%)", s.name, len(recs), u.Total.TokensCached, u.Total.TokensIn, 100*share)
		if share < s.min {
			t.Errorf("%s: %.0f%% of prompt tokens cached, want at least %.0f%%", s.name, 100*share, 100*s.min)
		}
		if s.min > 0 && (inGen == 0 || savedGen <= 0 || !summary.MatchString(stderr)) {
			t.Errorf("%s: %d cached tokens and $%g saved in the records' gen; summary: %s", s.name, inGen, savedGen, stderr)
		}
		in = out
	}
	// ngstats' cost table: the cached tokens and their saving per stage.
	code, out, stderr := run(t, Ngstats, in, "--json")
	var rep struct {
		Calls []struct {
			Stage          string  `json:"stage"`
			TokensIn       int64   `json:"tokens_in"`
			TokensCached   int64   `json:"tokens_cached"`
			CachedSavedUSD float64 `json:"cached_saved_usd"`
		} `json:"calls"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil {
		t.Fatalf("ngstats: exit %d: %s", code, stderr)
	}
	stages := map[string]bool{}
	for _, c := range rep.Calls {
		if c.TokensCached > 0 && c.CachedSavedUSD > 0 {
			stages[c.Stage] = true
		}
	}
	if !stages["ngrefine"] || !stages["ngv2r"] || !stages["nglabel"] {
		t.Errorf("ngstats: stages with cached tokens and a saving: %v (%+v)", stages, rep.Calls)
	}
	code, out, _ = run(t, Ngstats, in)
	if code != 0 || !strings.Contains(out, "prompt-cached in") || !strings.Contains(out, "prompt cache saved $") {
		t.Errorf("ngstats' text report has no prompt-cache columns:\n%s", out)
	}
}

// --estimate sends nothing and is within 20% of the requests and tokens
// of a real run on the fake model, for each LLM program.
func TestEstimateWithin20Percent(t *testing.T) {
	srv := chainFake(t)
	dir := t.TempDir()
	flags := func(args ...string) []string {
		return testkit.FastRetryFlags(append([]string{"--base-url", srv.URL, "--model", "fake"}, args...)...)
	}
	re := regexp.MustCompile(`about (\d+) requests .*, (\d+) tokens in \((\d+) of them from the provider's prompt cache\), (\d+) out`)
	for _, culture := range []string{"american", "korean"} {
		in := ""
		for _, s := range []struct {
			name string
			prog func(app.Env) error
			args []string
		}{
			{"ngseed", Ngseed, []string{"--culture", culture, "--limit", "4", "--per-norm", "2", "--types", "adherence,violation,v2r"}},
			{"ngrefine", Ngrefine, nil},
			{"ngv2r", Ngv2r, nil},
			{"nglabel", Nglabel, []string{"--tasks", "all", "--samples", "2"}},
			// ngseed at other settings: its requests follow --per-norm and
			// --types (they were the 7 of the setting above, 4x too few here).
			{"ngseed", Ngseed, []string{"--culture", culture, "--limit", "2", "--per-norm", "10", "--types", "adherence,violation,v2r"}},
			{"ngseed", Ngseed, []string{"--culture", culture, "--limit", "3"}},
		} {
			if s.name == "ngseed" && in != "" {
				in = "" // the settings after the chain: no input, ngseed alone
			}
			before := srv.Count()
			code, out, stderr := run(t, s.prog, in, flags(append(s.args, "--estimate")...)...)
			m := re.FindStringSubmatch(stderr)
			if code != 0 || out != "" || m == nil || srv.Count() != before {
				t.Fatalf("%s --estimate: exit %d, %d requests sent: %s", s.name, code, srv.Count()-before, stderr)
			}
			usageFile := filepath.Join(dir, culture+s.name+".json")
			code, out, stderr = run(t, s.prog, in, flags(append(s.args, "--usage-json", usageFile)...)...)
			if code != 0 {
				t.Fatalf("%s: exit %d: %s", s.name, code, stderr)
			}
			var u usage.Report
			if b, err := os.ReadFile(usageFile); err != nil || json.Unmarshal(b, &u) != nil {
				t.Fatal(err)
			}
			m = []string{m[0], m[1], m[2], m[4], m[3]}
			for i, real := range []int64{u.Total.Requests, u.Total.TokensIn, u.Total.TokensOut} {
				est, _ := strconv.ParseFloat(m[i+1], 64)
				if math.Abs(est-float64(real)) > 0.2*float64(real) {
					t.Errorf("%s: estimated %s, real %d (%s)", s.name, m[i+1], real, []string{"requests", "tokens in", "tokens out"}[i])
				}
			}
			t.Logf("%s %s: estimate %s / %s (%s cached) / %s; real %d requests, %d tokens in (%d cached), %d out", culture, s.name, m[1], m[2], m[4], m[3], u.Total.Requests, u.Total.TokensIn, u.Total.TokensCached, u.Total.TokensOut)
			in = out
		}
	}
}

// A labelling panel and a judge on their own endpoints with --batch: each
// endpoint gets its own batches; the records are those of the online run.
func TestBatchPanel(t *testing.T) {
	in, recs := labelInput(t)
	var lines []byte
	for i := 0; i < len(recs); i += 10 {
		b, _ := recs[i].AppendJSON(nil)
		lines = append(append(lines, b...), '\n')
	}
	os.WriteFile(in, lines, 0o644)
	eps := map[string]*llmtest.Server{}
	urls := map[string]string{}
	for _, a := range []string{"a", "b", "j"} {
		eps[a] = labelFake(t, llmtest.Options{})
		urls[a] = eps[a].URL
	}
	models := modelsFile(t, urls)
	dir := t.TempDir()
	common := []string{in, "--models", models, "--labellers", "a,b", "--judge", "j", "--tasks", "norm,intent,quality", "--no-cache", "-q"}
	code, online, stderr := runWith(Nglabel, nil, "", common...)
	if code != 0 {
		t.Fatalf("online: exit %d: %s", code, stderr)
	}
	code, batch, stderr := runWith(Nglabel, nil, "", append(common, "--batch", "--batch-poll", "1ms", "--batch-state", filepath.Join(dir, "state"))...)
	if code != 0 {
		t.Fatalf("batch: exit %d: %s", code, stderr)
	}
	a, b := untimedAll(readJSONL(t, online)), untimedAll(readJSONL(t, batch))
	if len(a) == 0 || len(a) != len(b) {
		t.Fatalf("%d and %d records", len(a), len(b))
	}
	for i := range a {
		if !reflect.DeepEqual(a[i], b[i]) {
			t.Fatalf("record %d differs", i)
		}
	}
	for n, s := range eps {
		if st := s.BatchStats(); st.Batches == 0 || st.Lines*2 != s.Count() {
			t.Errorf("endpoint %s: %+v, %d chat requests (online and batch)", n, st, s.Count())
		}
	}
}

// --batch with --shard makes the records the online run of the shard
// makes, with the same calls: its passes deal the input as the online run
// does (each record at its place in the whole input), ngseed's norm x
// scenario slots included, and ask nothing for another shard's.
func TestBatchShardEqualsOnline(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		prog func(app.Env) error
		args []string
		in   string
	}{
		{"ngseed", Ngseed, []string{"--culture", "korean", "--limit", "6", "--per-norm", "3", "--shard", "1/4"}, ""},
		{"ngrefine", Ngrefine, []string{"--shard", "2/3"}, ""},
	} {
		online, batch := chainFake(t), chainFake(t)
		in := c.in
		if c.name == "ngrefine" {
			gen := chainFake(t)
			code, seeds, stderr := run(t, Ngseed, "", testkit.FastRetryFlags("--base-url", gen.URL, "--model", "fake", "--culture", "korean", "--limit", "6", "--per-norm", "2")...)
			if code != 0 {
				t.Fatalf("seeds: exit %d: %s", code, stderr)
			}
			in = seeds
		}
		base := func(srv *llmtest.Server) []string {
			return testkit.FastRetryFlags(append([]string{"--base-url", srv.URL, "--model", "fake"}, c.args...)...)
		}
		code, outOnline, stderr := run(t, c.prog, in, base(online)...)
		if code != 0 {
			t.Fatalf("%s online: exit %d: %s", c.name, code, stderr)
		}
		code, outBatch, stderr := run(t, c.prog, in, append(base(batch), "--batch", "--batch-poll", "1ms", "--batch-state", filepath.Join(dir, c.name))...)
		if code != 0 {
			t.Fatalf("%s --batch: exit %d: %s", c.name, code, stderr)
		}
		a, b := untimedAll(readJSONL(t, outOnline)), untimedAll(readJSONL(t, outBatch))
		if len(a) == 0 || !reflect.DeepEqual(a, b) {
			t.Fatalf("%s: %d records online, %d with --batch, or they differ:\nonline %s\nbatch  %s", c.name, len(a), len(b), outOnline, outBatch)
		}
		if online.Count() != batch.Count() {
			t.Errorf("%s: %d requests online, %d in batches", c.name, online.Count(), batch.Count())
		}
	}
}
