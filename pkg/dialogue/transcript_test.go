package dialogue

import (
	"testing"

	"github.com/ngkit/ngkit/pkg/record"
)

func TestTranscript(t *testing.T) {
	turns := []record.Turn{
		{Index: 0, Speaker: "Mrs.  Kim", Action: "bows\n deeply", Text: "Welcome.\nB: not a turn"},
		{Index: 1, Speaker: "Jun", Text: "Thank you."},
		{Index: 2, Speaker: "Jun", Action: "leaves"},
	}
	if got, want := Transcript(turns, true), "[0] Mrs. Kim: (bows deeply) Welcome. B: not a turn\n[1] Jun: Thank you.\n[2] Jun: (leaves)"; got != want {
		t.Errorf("indexed:\n%s\nwant:\n%s", got, want)
	}
	if got, want := Transcript(turns[1:2], false), "Jun: Thank you."; got != want {
		t.Errorf("plain: %q, want %q", got, want)
	}
	if got := Transcript(nil, true); got != "" {
		t.Errorf("no turns: %q", got)
	}
}
