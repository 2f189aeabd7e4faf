package v2r

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ngkit/ngkit/filters/stats"
	"github.com/ngkit/ngkit/filters/v2r/v2rtest"
	"github.com/ngkit/ngkit/internal/fakefit"
	"github.com/ngkit/ngkit/internal/testkit"
	"github.com/ngkit/ngkit/pkg/llm/llmtest"
	"github.com/ngkit/ngkit/pkg/record"
)

// misfitModel is a writer that answers each seed with the dialogue of the
// next release seed of its culture and type (a valid dialogue about
// something else) and, when corrects is set and a fit re-ask tells it the
// dialogue does not fit, with the seed's own; and a fit judge, fakefit.
type misfitModel struct {
	own, other map[string]pair // scenario -> the seed's own pair, the next one
	corrects   bool

	mu    sync.Mutex
	calls map[string][]string // scenario -> schema of each request
}

func newMisfitModel(ps []pair, corrects bool) *misfitModel {
	m := &misfitModel{own: map[string]pair{}, other: map[string]pair{}, corrects: corrects, calls: map[string][]string{}}
	for i, p := range ps {
		next := ps[(i+1)%len(ps)]
		for j := i + 1; next.seed.Culture != p.seed.Culture; j++ { // the next of the same culture
			next = ps[j%len(ps)]
		}
		m.own[p.seed.Scenario], m.other[p.seed.Scenario] = p, next
	}
	return m
}

func (m *misfitModel) reply(req *llmtest.ChatRequest) string {
	user := v2rtest.FirstUser(req)
	sc := v2rtest.ScenarioLine(user)
	m.mu.Lock()
	m.calls[sc] = append(m.calls[sc], req.SchemaName())
	m.mu.Unlock()
	if req.SchemaName() == FitSchema {
		score, why := fakefit.FromPrompt(user)
		b, _ := json.Marshal(map[string]any{"score": score, "explanation": why})
		return string(b)
	}
	typ := strings.TrimPrefix(req.SchemaName(), "v2r_dialogue_")
	p := m.other[sc]
	if m.corrects && strings.HasPrefix(req.LastUser(), "A reviewer checked whether your dialogue realises the seed") {
		p = m.own[sc]
	}
	return jsonOf(p.d, typ)
}

// fitPairs are release seeds of every culture and type.
func fitPairs(t *testing.T) map[string][]pair {
	out := map[string][]pair{}
	for _, typ := range record.DialogueTypes {
		out[typ] = allPairs(t, typ)
	}
	return out
}

// Unrelated dialogues used to pass every check. They
// still pass the rules and ngstats (a dialogue of another seed is a valid
// dialogue), and --check-fit now fails them with the judge's reason; a
// writer that takes the reason and writes the seed's own dialogue passes
// on the re-ask; --keep-unfit keeps them flagged.
func TestUnrelatedDialoguesFailTheFitCheck(t *testing.T) {
	var total, unfit int
	for typ, ps := range fitPairs(t) {
		// How many of the next seeds' dialogues the judge finds unfit.
		expectUnfit := map[string]bool{}
		model := newMisfitModel(ps, false)
		for _, p := range ps {
			var sp []string
			for _, tu := range model.other[p.seed.Scenario].d.Turns {
				if !slices.Contains(sp, tu.Speaker) {
					sp = append(sp, tu.Speaker)
				}
			}
			if s, _ := fakefit.Score(p.seed.Scenario+" "+p.seed.Situation, sp); s < DefaultMinFit {
				expectUnfit[p.seed.ID] = true
			}
		}
		total += len(ps)
		unfit += len(expectUnfit)

		// Without the fit check: every unrelated dialogue passes every check.
		srv := llmtest.New(llmtest.Options{Reply: model.reply})
		res := runStage(t, testConfig(srv), Options{}, seedsOf(ps))
		srv.Close()
		if len(res.errs) > 0 || len(res.out) != len(ps) {
			t.Fatalf("%s without --check-fit: %d out, errors %+v", typ, len(res.out), res.errs)
		}
		if rep := statsReport(t, res.out); len(rep.Defects) != 0 {
			t.Fatalf("%s: ngstats finds defects in the unrelated dialogues: %+v", typ, rep.Defects)
		}

		// With it: each unrelated dialogue the judge finds unfit fails its
		// seed after one re-ask, with the judge's reason.
		model = newMisfitModel(ps, false)
		srv = llmtest.New(llmtest.Options{Reply: model.reply})
		fit := FitCheck{MinFit: DefaultMinFit, Rounds: 1}
		cfg := testConfig(srv)
		fit.Judge = testkit.Client(t, cfg)
		res = runStage(t, cfg, Options{Fit: fit}, seedsOf(ps))
		srv.Close()
		if len(res.errs) != len(expectUnfit) || len(res.out) != len(ps)-len(expectUnfit) {
			t.Fatalf("%s: %d failed, %d out; want %d failed", typ, len(res.errs), len(res.out), len(expectUnfit))
		}
		for _, e := range res.errs {
			if !expectUnfit[e.ID] || !strings.Contains(e.Error, "the dialogue does not fit its seed: fit ") ||
				!strings.Contains(e.Error, "after 1 rewrite, --min-fit 4; the judge: ") || !strings.Contains(e.Error, "are not people of the scenario or situation") {
				t.Errorf("%s: %s: %s", typ, e.ID, e.Error)
			}
		}
		for _, r := range res.out {
			if r.Quality == nil || r.Quality.Fit < DefaultMinFit || r.Quality.Explanations["fit"] == "" {
				t.Errorf("%s: kept %s with quality %+v", typ, r.ParentID, r.Quality)
			}
		}
		for sc, calls := range model.calls {
			want := []string{SchemaName(typ), FitSchema}
			if expectUnfit[model.own[sc].seed.ID] {
				want = append(want, SchemaName(typ), FitSchema)
			}
			// A request timed out on a loaded machine is sent again: count it once.
			if calls = slices.Compact(calls); !slices.Equal(calls, want) {
				t.Errorf("%s: calls %v, want %v", typ, calls, want)
			}
		}

		// A writer that follows the judge's reason: every seed comes out
		// with its own dialogue; the calls are in gen.
		model = newMisfitModel(ps, true)
		srv = llmtest.New(llmtest.Options{Reply: model.reply})
		cfg = testConfig(srv)
		fit.Judge = testkit.Client(t, cfg)
		res = runStage(t, cfg, Options{Fit: fit}, seedsOf(ps))
		srv.Close()
		if len(res.errs) != 0 || len(res.out) != len(ps) {
			t.Fatalf("%s, a writer that corrects: %d out, errors %+v", typ, len(res.out), res.errs)
		}
		for i, r := range res.out {
			var calls []string
			for _, g := range r.Gen {
				calls = append(calls, g.Call+"/"+g.Role)
			}
			if !expectUnfit[ps[i].seed.ID] {
				continue
			}
			if !sameTurns(r.Turns, ps[i].d.Turns) || r.Quality.Fit < DefaultMinFit ||
				!slices.Equal(calls, []string{"dialogue/", "fit/", "dialogue.1/", "fit.1/"}) {
				t.Errorf("%s: %s: own dialogue %v, fit %d, calls %v", typ, r.ParentID, sameTurns(r.Turns, ps[i].d.Turns), r.Quality.Fit, calls)
			}
		}

		// --keep-unfit: written, flagged for review.
		model = newMisfitModel(ps, false)
		srv = llmtest.New(llmtest.Options{Reply: model.reply})
		cfg = testConfig(srv)
		fit.Judge, fit.KeepUnfit, fit.Rounds = testkit.Client(t, cfg), true, 0
		res = runStage(t, cfg, Options{Fit: fit}, seedsOf(ps))
		srv.Close()
		if len(res.errs) != 0 || len(res.out) != len(ps) {
			t.Fatalf("%s --keep-unfit: %d out, errors %+v", typ, len(res.out), res.errs)
		}
		flagged := 0
		for _, r := range res.out {
			has := r.Checks != nil && slices.Contains(r.Checks.Defects, record.DefectUnfitSeed)
			if has != (r.Quality.Fit < DefaultMinFit) || has != expectUnfit[r.ParentID] {
				t.Errorf("%s: %s fit %d, defects %v", typ, r.ParentID, r.Quality.Fit, r.Checks)
			}
			if has {
				flagged++
			}
		}
		rep := statsReport(t, res.out)
		if i := slices.IndexFunc(rep.Defects, func(d stats.Defect) bool { return d.Name == record.DefectUnfitSeed }); flagged > 0 && (i < 0 || rep.Defects[i].Count != int64(flagged)) {
			t.Errorf("%s: ngstats defects %+v, want %d unfit_seed", typ, rep.Defects, flagged)
		}
	}
	t.Logf("%d seeds given another seed's dialogue; the fit judge failed %d", total, unfit)
	if unfit*100 < total*90 {
		t.Errorf("the judge failed only %d of %d unrelated dialogues", unfit, total)
	}
}
