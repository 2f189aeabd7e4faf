package seed

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/internal/testkit"
	"github.com/ngkit/ngkit/pkg/lang"
	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/persona"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/record"
)

const thaiOpening = "สวัสดีครับ ช่วยวางแผนมื้ออาหารสำหรับครอบครัวในสุดสัปดาห์หน้าได้ไหมครับ"

func episodeReply(opening, normID string, n int) string {
	var cons []map[string]string
	for i := range n {
		cons = append(cons, map[string]string{"text": "Constraint number " + string(rune('a'+i)) + " about the elders.", "norm_id": normID, "reveal": "implicit"})
	}
	b, _ := json.Marshal(map[string]any{"subgroup": "a family in Chiang Mai", "goal": "Plan a dinner.", "constraints": cons, "opening": opening})
	return string(b)
}

// The checks of a spec reply: 2-4 constraints, norm ids among those
// offered, the opening in the culture's language and giving nothing away.
func TestParseEpisode(t *testing.T) {
	det, err := lang.For("th")
	if err != nil {
		t.Fatal(err)
	}
	norms := []normbank.Norm{{ID: "n1", Culture: "thai"}}
	slot := &record.Episode{Domain: "food_and_dining"}
	for _, c := range []struct{ reply, err string }{
		{episodeReply(thaiOpening, "n1", 2), ""},
		{episodeReply(thaiOpening, "", 4), ""},
		{episodeReply(thaiOpening, "", 1), "1 hidden constraint(s), it must have 2 to 4"},
		{episodeReply(thaiOpening, "", 5), "5 hidden constraint(s)"},
		{episodeReply(thaiOpening, "n9", 2), `norm_id "n9" is not one of the norms listed`},
		{episodeReply("Hello, could you help me plan a dinner for my family next weekend?", "", 2), "the opening is in en, it must be in Thai (th)"},
		{episodeReply(thaiOpening+" Constraint number a about the elders.", "", 2), "gives hidden constraint c1 away verbatim"},
		{`{"subgroup":"x"`, "not a seed_episode reply"},
	} {
		ep, err := parseEpisode([]byte(c.reply), slot, norms, det, "th")
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", c.reply, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: error %v, want %q", c.reply, err, c.err)
		case err == nil && (ep.Domain != "food_and_dining" || ep.Constraints[0].ID != "c1" || ep.Constraints[0].Reveal != "implicit"):
			t.Errorf("spec %+v", ep)
		}
	}
}

type cannedCaller struct {
	reply string
	reqs  []llm.Request
}

func (c *cannedCaller) Call(_ context.Context, req llm.Request) (*llm.Response, error) {
	c.reqs = append(c.reqs, req)
	resp := &llm.Response{Text: c.reply, JSON: json.RawMessage(c.reply)}
	return resp, req.RunCheck(resp)
}

// Slots per domain and subgroup, a spec per persona variant with its own
// id, the slot as parent, variant_of the id without --vary.
func TestEpisodeStage(t *testing.T) {
	cc := &cannedCaller{reply: episodeReply(thaiOpening, "", 3)}
	sampler, err := persona.NewSampler(nil, []persona.Vary{{Attr: "age", Values: []string{"20-29", "65+"}}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	st, err := NewEpisodes(cc, EpisodeOptions{Personas: sampler})
	if err != nil {
		t.Fatal(err)
	}
	src := EpisodeSlots("thai", []string{"work", "health"}, 2, []string{"monk"})
	slots := testkit.Records(t, src)
	if len(slots) != 4 {
		t.Fatalf("%d slots, want 4", len(slots))
	}
	ids := map[string]bool{}
	for _, sl := range slots {
		out, err := st.Process(context.Background(), sl)
		if err != nil || len(out) != 2 {
			t.Fatalf("%v, %d specs", err, len(out))
		}
		for _, r := range out {
			if r.ParentID != sl.ID || r.VariantOf == "" || r.ID == r.VariantOf || r.Episode.Subgroup != "monk" || r.Lang != "th" || r.Persona["age"] == "" {
				t.Errorf("spec %+v", r)
			}
			ids[r.ID] = true
		}
	}
	if len(ids) != 8 {
		t.Errorf("%d distinct ids, want 8", len(ids))
	}
	if p := cc.reqs[0].Messages[1].Content; !strings.Contains(p, "There is no list of norms") || !strings.Contains(p, "Subgroup: monk") {
		t.Errorf("prompt without norms:\n%s", p)
	}
	var _ pipeline.Source = src
}

// Up to NormsOffered norms of the culture, the same for a slot on every
// run, different across slots.
func TestOfferedNorms(t *testing.T) {
	norms := normbank.Norms("korean", nil)
	a, b := offered(norms, "korean", "slot1"), offered(norms, "korean", "slot1")
	if len(a) != NormsOffered || a[0].ID != b[0].ID {
		t.Fatalf("offered %d, %v vs %v", len(a), a[0].ID, b[0].ID)
	}
	if len(offered(norms, "thai", "x")) != 0 {
		t.Error("norms of another culture offered")
	}
}
