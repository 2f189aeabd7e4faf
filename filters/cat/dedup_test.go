package cat

import (
	"errors"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/record"
)

func dlg(id string, texts ...string) *record.Record {
	r := &record.Record{ID: id}
	for i, t := range texts {
		r.Turns = append(r.Turns, record.Turn{Index: i, Speaker: []string{"A", "B"}[i%2], Text: t})
	}
	return r
}

func TestDedup(t *testing.T) {
	base := []string{"Hi Sarah. I just wanted to say I am really sorry for your loss.", "Thank you, Mike. That means a lot to me.", "If you need anything at all, just let me know."}
	renamed := []string{"Hi Emily. I just wanted to say I am really sorry for your loss.", "Thank you, Mike. That means a lot to me.", "If you need anything at all, just let me know."}
	recs := []*record.Record{
		dlg("a", base...),
		dlg("b", base...),    // exact copy of a
		dlg("c", renamed...), // near a
		dlg("d", "민수는 부장님께 보고서를 드리며 늦어서 죄송하다고 정중하게 사과한다.", "괜찮아요, 다음부터 조심해요."),
		dlg("e", "민수는 부장님께 보고서를 드리며 늦어서 죄송하다고 정중히 사과한다.", "괜찮아요, 다음부터 조심해요."),
		{ID: "s1", DialogueType: "adherence", Scenario: "Two coworkers talk in the break room after a long meeting."},
		{ID: "s2", DialogueType: "violation", Scenario: "Two coworkers talk in the break room after a long meeting!"}, // other type: kept
		{ID: "s3", DialogueType: "adherence", Scenario: "Two coworkers talk in the break room after a long meeting!!"},
		{ID: "none"}, {ID: "none2"}, // nothing to compare: kept
	}
	for _, c := range []struct{ mode, kept string }{
		{DedupExact, "a c d e s1 s2 s3 none none2"},
		{DedupNear, "a d s1 s2 none none2"},
	} {
		m := &mem{}
		d := &Dedup{Sink: m, Mode: c.mode, Threshold: 0.7}
		var reasons []string
		for _, r := range recs {
			err := d.Write(r)
			var drop *pipeline.DropError
			if errors.As(err, &drop) {
				reasons = append(reasons, r.ID+": "+drop.Reason)
			} else if err != nil {
				t.Fatal(err)
			}
		}
		if got := strings.Join(m.ids, " "); got != c.kept {
			t.Errorf("%s: kept %q, want %q (dropped: %q)", c.mode, got, c.kept, reasons)
		}
		if c.mode == DedupNear && (len(reasons) != 4 || reasons[0] != "b: --dedup near: a duplicate of a" || !strings.HasPrefix(reasons[1], "c: --dedup near: in the cluster of a (similarity 0.")) {
			t.Errorf("reasons %q", reasons)
		}
	}
}

// TestDedupNamesKept: an exact copy of a record that was itself dropped
// into an earlier near cluster names the record kept, the first of that
// cluster, as every other drop does (it named the dropped copy, so that
// one cluster read as two: 1,301 records of 8x the release).
func TestDedupNamesKept(t *testing.T) {
	recs := []*record.Record{
		dlg("a", "Hi Sarah. I just wanted to say I am really sorry for your loss.", "Thank you, Mike. That means a lot to me."),
		dlg("b", "Hi Emily. I just wanted to say I am really sorry for your loss.", "Thank you, Mike. That means a lot to me."),
		dlg("b2", "Hi Emily. I just wanted to say I am really sorry for your loss.", "Thank you, Mike. That means a lot to me."),
	}
	m := &mem{}
	d := &Dedup{Sink: m, Mode: DedupNear, Threshold: 0.6}
	var reasons []string
	for _, r := range recs {
		var drop *pipeline.DropError
		if err := d.Write(r); errors.As(err, &drop) {
			reasons = append(reasons, r.ID+": "+drop.Reason)
		} else if err != nil {
			t.Fatal(err)
		}
	}
	if len(reasons) != 2 || !strings.HasPrefix(reasons[0], "b: --dedup near: in the cluster of a (") ||
		reasons[1] != "b2: --dedup near: in the cluster of a (a duplicate of b)" {
		t.Errorf("kept %q, dropped %q", m.ids, reasons)
	}
}
