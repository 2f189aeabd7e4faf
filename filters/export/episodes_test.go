package export

import (
	"reflect"
	"testing"

	"github.com/ngkit/ngkit/pkg/record"
)

// An ngsim episode: user and assistant turns, the user's closing message
// last; the example ends with the assistant's last reply, per turn too,
// and a system template may read the episode's fields.
func TestMessagesEpisode(t *testing.T) {
	rec := &record.Record{ID: "e", Culture: "thai", Episode: &record.Episode{Subgroup: "a monk"},
		Sim: &record.Sim{Assistant: "a", Mode: "gold", End: "goal_met"},
		Turns: []record.Turn{
			{Index: 0, Speaker: "user", Text: "Help me plan a dinner."},
			{Index: 1, Speaker: "assistant", Text: "Here is a plan."},
			{Index: 2, Speaker: "user", Text: "No beef, please."},
			{Index: 3, Speaker: "assistant", Text: "A plan without beef."},
			{Index: 4, Speaker: "user", Text: "Thanks, bye."},
		}}
	tmpl, err := ParseSystemTemplate("sys", "You help {{.Episode.Subgroup}}.")
	if err != nil {
		t.Fatal(err)
	}
	got := contents(Messages(MessagesOptions{System: tmpl}, nil)(rec))
	want := [][]string{{"system:You help a monk.", "user:Help me plan a dinner.", "assistant:Here is a plan.", "user:No beef, please.", "assistant:A plan without beef."}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q", got)
	}
	got = contents(Messages(MessagesOptions{PerTurn: true}, nil)(rec))
	if len(got) != 2 || got[1][len(got[1])-1] != "assistant:A plan without beef." {
		t.Errorf("per turn %q", got)
	}
	// A dialogue that is not an episode keeps its last turn, as before.
	rec.Sim = nil
	if got := contents(Messages(MessagesOptions{}, nil)(rec)); len(got[0]) != 5 {
		t.Errorf("not an episode: %q", got)
	}
}
