package cli

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/filters/review"
	"github.com/ngkit/ngkit/filters/stats"
	"github.com/ngkit/ngkit/pkg/record"
)

// generate -> review -> agreement, end to end: ngcat --to labelstudio
// writes the tasks and the config, a reviewer's answers are added as Label
// Studio exports them, ngcat --from labelstudio reads them back and
// ngstats reports the agreement and the rejected share.
func TestNgcatReviewLoop(t *testing.T) {
	dir := t.TempDir()
	var in strings.Builder
	for i, c := range []string{"korean", "korean", "american"} {
		r := record.Record{ID: fmt.Sprintf("d%d", i), Culture: c, DialogueType: "adherence", Norm: "n", Situation: "s",
			Turns: []record.Turn{
				{Index: 0, Speaker: "A", Text: "one", Labels: &record.Labels{Norm: "adhered", Intent: "QUE"}},
				{Index: 1, Speaker: "B", Text: "two", Labels: &record.Labels{Norm: "not_relevant", Intent: "ACK"}},
			}}
		b, _ := json.Marshal(&r)
		in.Write(append(b, '\n'))
	}
	tasksFile, cfg := filepath.Join(dir, "tasks.json"), filepath.Join(dir, "config.xml")
	code, _, stderr := run(t, Ngcat, in.String(), "--to", "labelstudio", "--review-tasks", "norm", "--review-config", cfg, "-o", tasksFile)
	if code != 0 {
		t.Fatalf("--to labelstudio: exit %d %s", code, stderr)
	}
	if b, err := os.ReadFile(cfg); err != nil || !strings.Contains(string(b), `<ParagraphLabels name="norm" toName="dialogue">`) {
		t.Fatalf("config: %v %s", err, b)
	}
	var tasks []review.LabelStudioTask
	raw, _ := os.ReadFile(tasksFile)
	if err := json.Unmarshal(raw, &tasks); err != nil || len(tasks) != 3 {
		t.Fatalf("tasks file is not a JSON array of 3 tasks: %v", err)
	}
	// The reviewer: agrees on d0, relabels d1's turn 1 as violated and
	// rejects it, and on d2 (American) labels turn 0 not_relevant.
	var export []map[string]any
	for i, task := range tasks {
		res := task.Predictions[0].Result
		verdict := "accept"
		switch i {
		case 1:
			res[1].Value.ParagraphLabels = []string{"violated"}
			verdict = "reject"
		case 2:
			res[0].Value.ParagraphLabels = []string{"not_relevant"}
		}
		res = append(res, review.LabelStudioResult{FromName: "verdict", ToName: "dialogue", Type: "choices", Value: review.LabelStudioValue{Choices: []string{verdict}}})
		export = append(export, map[string]any{"id": i + 1, "data": task.Data, "annotations": []any{map[string]any{"id": 100 + i, "result": res, "was_cancelled": false, "completed_by": 1}}})
	}
	exportFile := filepath.Join(dir, "export.json")
	b, _ := json.Marshal(export)
	os.WriteFile(exportFile, b, 0o644)

	code, out, stderr := run(t, Ngcat, "", "--from", "labelstudio", exportFile)
	if code != 0 {
		t.Fatalf("--from labelstudio: exit %d %s", code, stderr)
	}
	recs := readJSONL(t, out)
	if len(recs) != 3 || recs[1].Turns[1].LabelsHuman.Norm != "violated" || recs[1].Turns[0].Labels.Intent != "QUE" || recs[1].Review.Verdict != "reject" {
		t.Fatalf("reviewed records: %+v", recs[1])
	}
	code, rep, stderr := run(t, Ngstats, out, "--json")
	if code != 0 {
		t.Fatalf("ngstats: %s", stderr)
	}
	var r stats.Report
	if err := json.Unmarshal([]byte(rep), &r); err != nil || r.Review == nil {
		t.Fatalf("no review in the report: %v", err)
	}
	// 6 turns: model (adhered, not_relevant) x3; reviewers changed two.
	all := r.Review.Agreement[0]
	if all.Task != "norm" || all.Group != "all" || all.Turns != 6 || math.Abs(all.Accuracy-4.0/6) > 1e-9 ||
		fmt.Sprint(all.Labels) != "[adhered violated not_relevant]" || fmt.Sprint(all.Confusion) != "[[2 0 1] [0 0 0] [0 1 2]]" {
		t.Errorf("agreement %+v", all)
	}
	// po = 4/6; pe = (3/6)(2/6) + 0 + (3/6)(3/6) = 5/12; kappa = (2/3-5/12)/(7/12) = 3/7.
	if all.Kappa == nil || math.Abs(*all.Kappa-3.0/7) > 1e-9 {
		t.Errorf("kappa %v, want 3/7", all.Kappa)
	}
	var ko *stats.HumanAgreement
	for i := range r.Review.Agreement {
		if a := r.Review.Agreement[i]; a.Task == "norm" && a.Group == "korean" {
			ko = &r.Review.Agreement[i]
		}
	}
	if ko == nil || ko.Turns != 4 || ko.Accuracy != 0.75 {
		t.Errorf("korean agreement %+v", ko)
	}
	v := r.Review.Verdicts
	if len(v) != 3 || v[0].Group != "all" || v[0].Reviewed != 3 || v[0].Rejected != 1 || v[2].Group != "korean" || v[2].Share != 0.5 {
		t.Errorf("verdicts %+v", v)
	}
	// The text report has the tables.
	_, text, _ := run(t, Ngstats, out)
	if !strings.Contains(text, "Human review: model labels against reviewers'") || !strings.Contains(text, "Human review: verdicts") {
		t.Errorf("text report lacks the review tables:\n%s", text)
	}

	// Argilla the same way, from its records form.
	code, out, stderr = run(t, Ngcat, in.String(), "--to", "argilla", "--review-tasks", "norm")
	if code != 0 || !strings.HasPrefix(out, "[\n{") {
		t.Fatalf("--to argilla: exit %d %s %.40q", code, stderr, out)
	}
	var arecs []review.ArgillaRecord
	if err := json.Unmarshal([]byte(out), &arecs); err != nil || len(arecs) != 3 {
		t.Fatal(err)
	}
	arecs[1].Responses["norm_1"] = []review.ArgillaResponse{{Value: "violated", UserID: "u1"}}
	arecs[1].Responses["verdict"] = []review.ArgillaResponse{{Value: "reject", UserID: "u1"}}
	b, _ = json.Marshal(arecs)
	code, out, stderr = run(t, Ngcat, string(b), "--from", "argilla")
	if code != 0 {
		t.Fatalf("--from argilla: %s", stderr)
	}
	recs = readJSONL(t, out)
	if recs[1].Turns[1].LabelsHuman.Norm != "violated" || recs[1].Turns[1].Labels.Norm != "not_relevant" || recs[1].Review.Verdict != "reject" || recs[0].Review != nil {
		t.Errorf("argilla round trip: %+v %+v", recs[1].Turns[1], recs[0].Review)
	}

	for _, bad := range [][]string{
		{"--to", "labelstudio", "-o", filepath.Join(dir, "x.parquet")},
		{"--to", "labelstudio", "--review-tasks", "norms"},
		{"--review-tasks", "norm"},
		{"--to", "argilla", "--review-config", cfg},
	} {
		if code, _, _ := run(t, Ngcat, "", bad...); code != 2 {
			t.Errorf("%v: exit %d, want 2", bad, code)
		}
	}
}

// ngstats --html shows --examples dialogues per culture and type, and
// every record of --show-defect; the flags are checked first.
func TestNgstatsBrowser(t *testing.T) {
	code, imported, stderr := run(t, Ngcat, "", append([]string{"--from", "normgenesis"}, sampleFiles(t)...)...)
	if code != 0 {
		t.Fatal(stderr)
	}
	code, page, stderr := run(t, Ngstats, imported, "--html", "--examples", "1", "--show-defect", "end_marker")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// 8 culture/type groups, one example each, plus the end_marker records.
	if n := strings.Count(page, `<article class="dlg"`); n <= 8 || !strings.Contains(page, "Records with end_marker (") {
		t.Errorf("%d dialogues in the browser", n)
	}
	for _, bad := range [][]string{{"--show-defect", "end_marker"}, {"--html", "--show-defect", "end_markers"}} {
		if code, _, _ := run(t, Ngstats, "", bad...); code != 2 {
			t.Errorf("%v: exit %d, want 2", bad, code)
		}
	}
}

// kappaOf is Cohen's kappa and the accuracy of (model, human) label pairs,
// computed here from the pairs, apart from ngstats.
func kappaOf(pairs [][2]string) (acc, kappa float64) {
	n := float64(len(pairs))
	rows, cols := map[string]float64{}, map[string]float64{}
	agree := 0.0
	for _, p := range pairs {
		rows[p[0]]++
		cols[p[1]]++
		if p[0] == p[1] {
			agree++
		}
	}
	pe := 0.0
	for l, r := range rows {
		pe += r / n * cols[l] / n
	}
	return agree / n, (agree/n - pe) / (1 - pe)
}

// reviewFigures runs ngstats on reviewed records and returns the norm
// agreement and the verdicts over all of them.
func reviewFigures(t *testing.T, reviewed string) (stats.HumanAgreement, stats.Verdicts) {
	t.Helper()
	code, rep, stderr := run(t, Ngstats, reviewed, "--json")
	if code != 0 {
		t.Fatalf("ngstats: %s", stderr)
	}
	var r stats.Report
	if err := json.Unmarshal([]byte(rep), &r); err != nil || r.Review == nil {
		t.Fatalf("no review in the report: %v", err)
	}
	for _, a := range r.Review.Agreement {
		if a.Task == "norm" && a.Group == "all" {
			return a, r.Review.Verdicts[0]
		}
	}
	t.Fatal("no norm agreement")
	return stats.HumanAgreement{}, stats.Verdicts{}
}

// Argilla's flat export (to_list(flatten=True)): only submitted answers
// count. The expected figures are computed here from the export itself:
// per record and question the majority of the submitted answers (a tie to
// the first), per record the majority verdict (a tie rejects).
func TestNgcatArgillaSubmittedOnly(t *testing.T) {
	raw, err := os.ReadFile("../../../testdata/review/argilla_flat.json")
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := json.Unmarshal(raw, &rows); err != nil {
		t.Fatal(err)
	}
	var pairs [][2]string
	reviewed, rejected := 0, 0
	for _, row := range rows {
		submitted := func(q string) []string {
			var out []string
			vals, _ := row[q+".responses"].([]any)
			st, _ := row[q+".responses.status"].([]any)
			for i, v := range vals {
				if st[i] == "submitted" {
					out = append(out, v.(string))
				}
			}
			return out
		}
		for i := 0; i < 2; i++ {
			q := fmt.Sprintf("norm_%d", i)
			votes := submitted(q)
			if len(votes) == 0 {
				continue
			}
			best, n := "", 0
			for _, v := range votes {
				if c := strings.Count(strings.Join(votes, ","), v); c > n {
					best, n = v, c
				}
			}
			pairs = append(pairs, [2]string{row[q+".suggestion"].(string), best})
		}
		if v := submitted("verdict"); len(v) > 0 {
			reviewed++
			if strings.Count(strings.Join(v, ","), "accept")*2 <= len(v) {
				rejected++
			}
		}
	}
	acc, kappa := kappaOf(pairs)
	code, out, stderr := run(t, Ngcat, "", "--from", "argilla", "../../../testdata/review/argilla_flat.json")
	if code != 0 || stderr != "ngcat: argilla: 3 responses left out (2 draft, 1 discarded): only submitted answers count\n" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	a, v := reviewFigures(t, out)
	if a.Turns != int64(len(pairs)) || math.Abs(a.Accuracy-acc) > 1e-9 || a.Kappa == nil || math.Abs(*a.Kappa-kappa) > 1e-9 {
		t.Errorf("norm agreement %+v (kappa %v), want %d turns, accuracy %.4f, kappa %.4f", a, a.Kappa, len(pairs), acc, kappa)
	}
	if v.Reviewed != int64(reviewed) || v.Rejected != int64(rejected) {
		t.Errorf("verdicts %+v, want %d reviewed, %d rejected", v, reviewed, rejected)
	}
	t.Logf("submitted only: %d turns, accuracy %.3f, kappa %.3f; %d reviewed, %d rejected", len(pairs), acc, kappa, reviewed, rejected)
}

// A Label Studio export with the cases a review meets
// (testdata/review/labelstudio_cases.json): c1 three annotators, 2 to 1;
// c2 a tie on a turn (the first given wins) and on the verdict (a tie
// rejects); c3 one annotator skipped (cancelled), one did not; c4 all
// skipped (not reviewed); c5 a draft, which does not count; c6 a region
// drawn over a turn beside the predicted one (the reviewer's wins); c7 two
// annotations by one user (the newer counts, once). The human labels are
// derived by hand here, the figures computed from them.
func TestNgcatLabelStudioCases(t *testing.T) {
	code, out, stderr := run(t, Ngcat, "", "--from", "labelstudio", "../../../testdata/review/labelstudio_cases.json")
	// What was counted and left out, in two lines: c7's older annotation, and
	// the seven tasks with c4 not reviewed.
	const said = "ngcat: labelstudio: 1 annotations left out: their annotator annotated the same task again, and only each annotator's newest annotation counts (first: ../../../testdata/review/labelstudio_cases.json task 7, annotator 2)\n" +
		"ngcat: labelstudio: 7 tasks read, 6 with a submitted annotation (skipped, cancelled and draft annotations do not count; a task deleted in Label Studio is not in its export)\n"
	if code != 0 || stderr != said {
		t.Fatalf("exit %d: %q, want %q", code, stderr, said)
	}
	want := map[string]struct {
		human     [2]string
		verdict   string
		reviewers int
	}{
		"c1": {[2]string{"adhered", "violated"}, "accept", 3},
		"c2": {[2]string{"violated", "not_relevant"}, "reject", 2},
		"c3": {[2]string{"adhered", "violated"}, "reject", 1},
		"c4": {},
		"c5": {[2]string{"adhered", "not_relevant"}, "accept", 1},
		"c6": {[2]string{"violated", "not_relevant"}, "reject", 1},
		"c7": {[2]string{"adhered", "not_relevant"}, "accept", 1},
	}
	var pairs [][2]string
	reviewed, rejected := 0, 0
	for _, r := range readJSONL(t, out) {
		w, ok := want[r.ID]
		if !ok {
			t.Fatalf("record %s", r.ID)
		}
		got := [2]string{r.Turns[0].LabelsHuman.Get("norm"), r.Turns[1].LabelsHuman.Get("norm")}
		verdict, n := "", 0
		if r.Review != nil {
			verdict, n = r.Review.Verdict, r.Review.Reviewers
		}
		if got != w.human || verdict != w.verdict || n != w.reviewers {
			t.Errorf("%s: %v %s by %d, want %v %s by %d", r.ID, got, verdict, n, w.human, w.verdict, w.reviewers)
		}
		if w.reviewers > 0 {
			reviewed++
			if w.verdict == "reject" {
				rejected++
			}
			pairs = append(pairs, [2]string{"adhered", w.human[0]}, [2]string{"not_relevant", w.human[1]})
		}
	}
	acc, kappa := kappaOf(pairs)
	a, v := reviewFigures(t, out)
	if a.Turns != int64(len(pairs)) || math.Abs(a.Accuracy-acc) > 1e-9 || a.Kappa == nil || math.Abs(*a.Kappa-kappa) > 1e-9 {
		t.Errorf("norm agreement %+v (kappa %v), want %d turns, accuracy %.4f, kappa %.4f", a, a.Kappa, len(pairs), acc, kappa)
	}
	if v.Reviewed != int64(reviewed) || v.Rejected != int64(rejected) {
		t.Errorf("verdicts %+v, want %d reviewed, %d rejected", v, reviewed, rejected)
	}
	t.Logf("%d turns, accuracy %.3f, kappa %.3f; %d reviewed, %d rejected", len(pairs), acc, kappa, reviewed, rejected)
}
