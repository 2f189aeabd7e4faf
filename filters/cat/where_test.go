package cat

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/record"
)

func whereRecords() []*record.Record {
	yes, no := true, false
	return []*record.Record{
		{ID: "good", Culture: "korean", Quality: &record.Quality{Norm: 5}, Checks: &record.Checks{LangOK: &yes},
			Turns: []record.Turn{{Speaker: "A", Text: "x", Labels: &record.Labels{Norm: "violated"}}, {Speaker: "B", Text: "y"}}},
		{ID: "lowq", Culture: "korean", Quality: &record.Quality{Norm: 2}, Checks: &record.Checks{LangOK: &yes}},
		{ID: "wronglang", Quality: &record.Quality{Norm: 5}, Checks: &record.Checks{LangOK: &no, Defects: []string{"end_marker"}}},
		{ID: "bare"}, // no quality, no checks, no turns: every field reads as zero
	}
}

func TestWhere(t *testing.T) {
	for _, c := range []struct {
		expr string
		want string // ids kept
	}{
		{`quality.norm >= 4 && checks.lang_ok && len(turns) <= 12`, "good"},
		{`quality.norm >= 4`, "good wronglang"},
		{`quality.norm == 0`, "bare"},
		{`!checks.lang_ok`, "wronglang bare"},
		{`any(turns, .labels.norm == "violated")`, "good"},
		{`all(turns, .labels.norm != "violated")`, "lowq wronglang bare"},
		{`"end_marker" in checks.defects`, "wronglang"},
		{`culture == "korean" && id != "good"`, "lowq"},
		{`len(turns) > 0 && turns[0].speaker == "A"`, "good"},
		{`id matches "^(good|bare)$"`, "good bare"},
	} {
		w, err := CompileWhere(c.expr)
		if err != nil {
			t.Errorf("%s: %v", c.expr, err)
			continue
		}
		var kept []string
		for _, r := range whereRecords() {
			ok, err := w.Match(r)
			if err != nil {
				t.Errorf("%s on %s: %v", c.expr, r.ID, err)
			}
			if ok {
				kept = append(kept, r.ID)
			}
		}
		if got := strings.Join(kept, " "); got != c.want {
			t.Errorf("%s: kept %q, want %q", c.expr, got, c.want)
		}
	}
}

// A record read by --where is not changed by it (the zero-filling copies).
func TestWhereLeavesRecord(t *testing.T) {
	w, err := CompileWhere(`quality.norm == 0 && any(turns, .labels.intent == "")`)
	if err != nil {
		t.Fatal(err)
	}
	r := &record.Record{ID: "x", Turns: []record.Turn{{Text: "a"}}}
	if ok, err := w.Match(r); !ok || err != nil {
		t.Fatalf("%v %v", ok, err)
	}
	if r.Quality != nil || r.Checks != nil || r.Turns[0].Labels != nil {
		t.Errorf("record changed: %+v", r)
	}
}

func TestWhereErrors(t *testing.T) {
	for _, c := range []struct{ expr, want string }{
		{`quality.nrom >= 4`, `quality has no field "nrom"`},
		{`qualty.norm >= 4`, `unknown name qualty (1:1): did you mean quality?`},
		{`dialog_type == "v2r"`, `unknown name dialog_type (1:1): did you mean dialogue_type?`},
		{`turns[0].labels.feeling == "joy"`, `has no field "feeling"`},
		{`Quality.Norm > 1`, `record has no field "Quality"`},
		{`AddDefect("x")`, `record has no field "AddDefect"`},
		{`quality.norm == "high"`, `mismatched types`},
		{`len(turns)`, `expected bool`},
		{`culture ==`, `unexpected token`},
	} {
		_, err := CompileWhere(c.expr)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.expr, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error of several lines: %q", c.expr, err)
		}
	}
	// A name near no field gets no guess.
	if _, err := CompileWhere(`bogusname == 1`); err == nil || !strings.HasSuffix(err.Error(), "unknown name bogusname (1:1)") {
		t.Errorf("bogusname: %v", err)
	}
}

func TestDropStage(t *testing.T) {
	w, _ := CompileWhere(`quality.norm >= 4`)
	d := &Drop{Where: w, Defects: []string{"end_marker"}}
	var kept, reasons []string
	for _, r := range whereRecords() {
		out, err := d.Process(context.Background(), r)
		var drop *pipeline.DropError
		switch {
		case errors.As(err, &drop):
			reasons = append(reasons, r.ID+": "+drop.Reason)
		case err != nil:
			t.Fatal(err)
		default:
			kept = append(kept, out[0].ID)
		}
	}
	if strings.Join(kept, " ") != "good" {
		t.Errorf("kept %v", kept)
	}
	want := []string{`lowq: --where "quality.norm >= 4" is false`, "wronglang: --drop-defects: has defect end_marker", `bare: --where "quality.norm >= 4" is false`}
	if strings.Join(reasons, "|") != strings.Join(want, "|") {
		t.Errorf("reasons %q", reasons)
	}
	kinds := map[string][]string{"format": {"end_marker", "separator"}}
	if _, err := ParseDefects("end_marker,nope", []string{"end_marker", "separator"}, kinds); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("unknown class: %v", err)
	}
	// A kind stands for its classes.
	if got, err := ParseDefects("format", []string{"end_marker", "separator"}, kinds); err != nil || strings.Join(got, ",") != "end_marker,separator" {
		t.Errorf("format = %v, %v", got, err)
	}
}

func BenchmarkWhere(b *testing.B) {
	w, _ := CompileWhere(`quality.norm >= 4 && checks.lang_ok && len(turns) <= 12`)
	recs := whereRecords()
	for i := 0; i < b.N; i++ {
		w.Match(recs[i%len(recs)])
	}
}

// --where sees plain JSON values: no Go method, no Go field name, however
// the name is computed.
func TestWhereSandbox(t *testing.T) {
	rec := func() *record.Record {
		return &record.Record{ID: "a", Turns: []record.Turn{{Speaker: "A", Text: "x", Labels: &record.Labels{Norm: "adhered"}}},
			Checks: &record.Checks{Defects: []string{"end_marker"}}}
	}
	for _, src := range []string{
		`len([$env["Tu"+"rns"][0].Labels.Set("norm","PWNED")]) > 0`,
		`len($env["Che"+"cks"].Defects) > 0`,
		`$env.Checks.Defects != nil`,
	} {
		if _, err := CompileWhere(src); err == nil || !strings.Contains(err.Error(), "$env is not part of --where") {
			t.Errorf("%s: compiled (%v)", src, err)
		}
	}
	// What the checker cannot see (a computed member) meets plain values
	// at run time: there is no Labels, no Set, no Defects.
	for _, src := range []string{
		`len([turns[0][("La"+"bels")].Set("norm","PWNED")]) > 0`,
		`len(checks[("Def"+"ects")]) > 0`,
		`turns[0][("La"+"bels")] != nil`,
	} {
		w, err := CompileWhere(src)
		if err != nil {
			continue // refused: fine
		}
		r := rec()
		ok, _ := w.Match(r)
		if ok || r.Turns[0].Labels.Norm != "adhered" {
			t.Errorf("%s: kept %v, labels %+v", src, ok, r.Turns[0].Labels)
		}
	}
	env := plainEnv(rec())
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if k != strings.ToLower(k) {
					t.Errorf("key %q is not a JSON name", k)
				}
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		case string, int, float64, bool, nil:
		default:
			t.Errorf("a %T in the plain record", v)
		}
	}
	walk(env)
}

// --where is bounded: allocation and time. Over a bound the run stops
// (a pipeline.FatalError, exit 2) with one line, never a Go fatal error.
func TestWhereBounded(t *testing.T) {
	r := &record.Record{ID: "a", Scenario: strings.Repeat("ab", 1000)}
	for _, src := range []string{
		`len(repeat(repeat("a",999999),999999)) > 0`,
		`len(replace(repeat("a", 1000000), "a", repeat("b", 1000))) > 0`,
		`len(reduce(1..100, #acc + #acc, "ab")) > 0`,
		`len(join(map(1..100000, scenario), ",")) > 0`,
		`len(reduce(1..60, concat(#acc, #acc), [1])) > 0`,
		`len(toJSON(map(1..200000, scenario))) > 0`,
		`len(reduce(1..40, upper(#acc + #acc), "a")) > 0`,
	} {
		w, err := CompileWhere(src)
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		_, err = w.Match(r)
		var fe *pipeline.FatalError
		// Over the budget, or (slow machines, -race: concat copies
		// element by element) over the time limit first.
		if !errors.As(err, &fe) || strings.Contains(err.Error(), "\n") ||
			!strings.Contains(err.Error(), "needs more than 64 MiB") && !strings.Contains(err.Error(), "took longer than") {
			t.Errorf("%s: %v", src, err)
		}
	}
	// Ordinary strings are not refused.
	w, err := CompileWhere(`len(repeat(scenario, 100) + "x") == 200001 && len(replace(scenario, "a", "cc")) == 3000`)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := w.Match(r); !ok || err != nil {
		t.Fatalf("%v %v", ok, err)
	}
}

// A slow evaluation (regular expressions over a long text, many times)
// stops the run at the time limit.
func TestWhereTimeLimit(t *testing.T) {
	defer func(d time.Duration) { whereTime = d }(whereTime)
	whereTime = 50 * time.Millisecond
	w, err := CompileWhere(`any(1..900000, scenario matches "(x+x+)+y")`)
	if err != nil {
		t.Fatal(err)
	}
	_, err = w.Match(&record.Record{ID: "slow", Scenario: strings.Repeat("x", 5000)})
	var fe *pipeline.FatalError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), `on record "slow": evaluation took longer than 50ms`) {
		t.Fatalf("%v", err)
	}
}
