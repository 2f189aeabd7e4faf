package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A run of two steps: one whose records are all accounted for, with a
// failure and a record the language check fails, one that lost a record.
// The table says each figure and names each goal not met; the status
// file keeps what is outside the markers.
func TestYieldTable(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	write(t, in, `{"id":"a"}`+"\n"+`{"id":"b"}`+"\n"+`{"id":"c"}`+"\n")
	write(t, filepath.Join(dir, "steps.tsv"), "v2r\tsmol\tngv2r\tkorean\t"+in+"\tngv2r\t--seed 1\n"+
		"lost\tsmol\tnglabel\tkorean\t"+in+"\tnglabel\t--seed 1\n")
	write(t, filepath.Join(dir, "v2r.jsonl"), `{"id":"a"}`+"\n"+`{"id":"b"}`+"\n")
	write(t, filepath.Join(dir, "v2r-errors.jsonl"), `{"id":"c","error":"dialogue: turn 3 is in English (\"Hello there\"), want ko"}`+"\n")
	write(t, filepath.Join(dir, "v2r.usage.json"), `{"total":{"retries":1,"reasks":2,"tokens_in":300,"tokens_out":100}}`)
	write(t, filepath.Join(dir, "v2r.time"), "10.0 0.05 0.05\n")
	write(t, filepath.Join(dir, "v2r.stats.json"), `{"dialogues":2,"defects":[{"name":"repeated_turn","count":1}],"language":[{"records":2,"records_below":1}],"panel":{"records":2,"labellers":["smol","qwen"],"failed":{"qwen":1},"agreement":[{"task":"norm","turns":8,"fleiss_kappa":0.25,"krippendorff_alpha":null}]}}`)
	write(t, filepath.Join(dir, "lost.jsonl"), `{"id":"a"}`+"\n")
	// the defect was in lost's input already: not lost's
	write(t, filepath.Join(dir, "lost.stats.json"), `{"dialogues":1,"defects":[{"name":"too_few_turns","count":1}]}`)
	write(t, filepath.Join(dir, "lost.in.stats.json"), `{"dialogues":3,"defects":[{"name":"too_few_turns","count":1}]}`)
	write(t, filepath.Join(dir, "lost.time"), "10.0 0.1 0.1\n")
	write(t, filepath.Join(dir, "steps.tsv"), "v2r\tsmol\tngv2r\tkorean\t"+in+"\tngv2r\t--seed 1\n"+
		"lost\tsmol\tnglabel\tkorean\t"+in+"\tnglabel\t--seed 1\n"+
		"pact\tsmol\tngpact\tmixed\t"+in+"\tngpact\t--seed 1\n")
	// a: a distribution beside a note; b: a question with no valid reply
	write(t, filepath.Join(dir, "pact.jsonl"), `{"id":"a","pact":[{"p_follow":0.5,"valid":2,"error":"1 of 3 samples named neither option"}]}`+"\n"+
		`{"id":"b","pact":[{"p_follow":1,"valid":3},{"valid":0,"error":"no sample named an option"}]}`+"\n")
	write(t, filepath.Join(dir, "pact-errors.jsonl"), `{"id":"c","error":"call norm: HTTP 500"}`+"\n")
	status := filepath.Join(dir, "status.md")
	write(t, status, "# Status\n\nbefore\n\n"+begin+"\nold table\n"+end+"\n\nafter\n")

	steps, err := readSteps(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := splice(status, render(steps, "")); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(status)
	got := string(b)
	for _, want := range []string{
		"# Status\n\nbefore\n\n" + begin,
		end + "\n\nafter\n",
		"| v2r | smol | ngv2r | korean | 3 | 2 | 1 | dialogue: turn N is in English (…), want ko (1) | 3 | 200 | 5.0 | 1/2 | 50 | — | 1.00% |",
		"| lost | smol | nglabel | korean | 3 | 1 | 0 | — | 0 | — | 10.0 | — | 100 | — | 2.00% |",
		"- lost: 1 out + 0 failed ≠ 3 in",
		"| pact | smol | ngpact | mixed | 3 | 2 | 1 | call norm: HTTP N (1) | 0 | — | — | — | — | 1/3 |",
		"- v2r: 1 written records fail the language check",
		"- v2r: 1 defects in the records written",
		"0.3 s of 20 s wall (1.50%",
		"v2r: panel smol + qwen on 2 records, task norm over 8 turns: Fleiss' kappa 0.25, Krippendorff's alpha undefined (qwen gave no labels on 1).",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	if strings.Contains(got, "lost: 1 defects") {
		t.Error("a defect of the input counted as the stage's")
	}
	if strings.Contains(got, "old table") {
		t.Error("the old table is still there")
	}
}

func TestSpliceMarkersOutOfOrder(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.md")
	write(t, p, end+"\n"+begin+"\n")
	if err := splice(p, begin+"\n"+end); err == nil {
		t.Fatal("no error for markers out of order")
	}
}
