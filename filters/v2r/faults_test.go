package v2r

import (
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/ngkit/ngkit/filters/stats"
	"github.com/ngkit/ngkit/pkg/audit"
	"github.com/ngkit/ngkit/pkg/llm/llmtest"
	"github.com/ngkit/ngkit/pkg/record"
)

// allPairs are the release pairs of every culture for one type.
func allPairs(t testing.TB, typ string) []pair {
	var out []pair
	for _, c := range cultures {
		out = append(out, releasePairs(t, c, typ)...)
	}
	return out
}

// faultRun answers the seeds of one type with 20% of the requests faulted
// (every fault kind of the runtime: 429, 5xx, timeouts, dropped
// connections, malformed bodies, empty, cut and filtered replies, wrong
// language, invalid JSON, leaked reasoning).
func faultRun(t testing.TB, typ string, n int, seed uint64, textMode bool) (ps []pair, res runResult, srv *llmtest.Server) {
	ps = copies(allPairs(t, typ), n)
	model := newFakeModel()
	for _, p := range ps {
		reply := jsonOf(p.d, typ)
		if textMode {
			reply = textOf(p.d)
		}
		model.script(p.seed, reply)
	}
	srv = llmtest.New(llmtest.Options{Reply: model.reply, FaultRate: 0.2, Seed: seed,
		RetryAfter: 2 * time.Millisecond, SlowFor: 3 * time.Second})
	cfg := testConfig(srv)
	cfg.Timeout = 400 * time.Millisecond
	res = runStage(t, cfg, Options{TextMode: textMode}, seedsOf(ps))
	return ps, res, srv
}

// With faults, every seed ends in the output or in the errors file, once;
// nearly all succeed; what comes out is valid. The calls per finished
// dialogue are logged (BenchmarkCallsPerDialogue reports them).
func TestFaultsNeverLoseASeed(t *testing.T) {
	for _, typ := range record.DialogueTypes {
		for _, textMode := range []bool{false, true} {
			n := 4 // copies of each seed
			if textMode {
				n = 1
			}
			ps, res, srv := faultRun(t, typ, n, 11, textMode)
			srv.Close()
			var all []string
			for _, r := range res.out {
				all = append(all, r.ParentID)
			}
			for _, e := range res.errs {
				all = append(all, e.ID)
			}
			var want []string
			for _, p := range ps {
				want = append(want, p.seed.ID)
			}
			sort.Strings(all)
			sort.Strings(want)
			if !slices.Equal(all, want) {
				t.Fatalf("%s: output (%d) + errors (%d) are not every seed once", typ, len(res.out), len(res.errs))
			}
			if len(res.errs) > len(ps)/50 {
				t.Errorf("%s: %d of %d failed: %+v", typ, len(res.errs), len(ps), res.errs)
			}
			for _, r := range res.out {
				if _, err := defaultRules.Check(&Dialogue{Turns: r.Turns, Narration: r.Narration}, typ, r.Lang); err != nil {
					t.Errorf("%s: an invalid dialogue came out: %v", r.ID, err)
				}
			}
			u := res.client.Usage()
			t.Logf("%s (text mode %v): %d dialogues, %d failed; %d requests, %.2f per finished dialogue; faults %v",
				typ, textMode, len(res.out), len(res.errs), srv.Count(), float64(srv.Count())/float64(len(res.out)), u.Total.Faults)
		}
	}
}

// ngstats finds no defect in ngv2r's output: the dialogues of every
// culture and type, made without and with faults, through stats' Audit
// (ngstats' defaults) and Collector.
func TestStatsFindsNoDefects(t *testing.T) {
	var outs []*record.Record
	for _, typ := range record.DialogueTypes {
		ps := allPairs(t, typ)
		// Korean V2R replies are made of the Korean violation dialogues:
		// give each type half of them, or ngstats rightly finds the same
		// dialogue twice.
		var keep []pair
		for i, p := range ps {
			if p.seed.Culture != "korean" || typ == record.TypeAdherence || (i%2 == 0) == (typ == record.TypeViolation) {
				keep = append(keep, p)
			}
		}
		model := newFakeModel()
		for _, p := range keep {
			model.script(p.seed, jsonOf(p.d, typ))
		}
		srv := llmtest.New(llmtest.Options{Reply: model.reply})
		res := runStage(t, testConfig(srv), Options{}, seedsOf(keep))
		srv.Close()
		if len(res.errs) > 0 {
			t.Fatal(res.errs)
		}
		outs = append(outs, res.out...)
	}
	rep := statsReport(t, outs)
	if rep.Dialogues != int64(len(outs)) || len(rep.Defects) != 0 || rep.RecordsWithDefects != 0 {
		t.Fatalf("%d dialogues; defects: %+v", rep.Dialogues, rep.Defects)
	}
	for _, lc := range rep.Language {
		t.Logf("%s: %d dialogues, share %.3f", lc.Culture, lc.Records, lc.Share)
	}

	// With faults (wrong-language replies, cut JSON, ...): only valid
	// dialogues come out, so still no defect.
	var faulted []*record.Record
	for _, typ := range []string{record.TypeAdherence, record.TypeV2R} {
		_, res, srv := faultRun(t, typ, 1, 5, false)
		srv.Close()
		faulted = append(faulted, res.out...)
	}
	if rep := statsReport(t, faulted); len(rep.Defects) != 0 {
		t.Fatalf("with faults: defects %+v", rep.Defects)
	}
}

func statsReport(t testing.TB, recs []*record.Record) *stats.Report {
	t.Helper()
	aud := &audit.Audit{MinTurns: record.DefaultMinTurns, MaxTurns: record.DefaultMaxTurns, MinLangShare: 0.8} // ngstats' defaults
	col := stats.NewCollector()
	var rep *stats.Report
	col.Done = func(r *stats.Report) error { rep = r; return nil }
	for _, r := range recs {
		aud.Record(r)
		if err := col.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := col.Close(); err != nil || rep == nil {
		t.Fatalf("collector: %v", err)
	}
	return rep
}
