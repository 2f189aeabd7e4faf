package seed_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/filters/seed"
	"github.com/ngkit/ngkit/internal/testkit"
	"github.com/ngkit/ngkit/pkg/llm/llmtest"
	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/record"
)

// Each episode slot's request carries the seed_episode schema with the
// norms offered to that slot (and "") as the enum of norm_id, so that a
// server decoding under the schema cannot make an id up: the ids are the
// ones the prompt lists, slots offered other norms get other enums, and
// the specs written rest on ids of the enum.
func TestEpisodeNormIDEnum(t *testing.T) {
	srv, c := fakeServer(t, llmtest.Options{})
	st, err := seed.NewEpisodes(c, seed.EpisodeOptions{Norms: normbank.Norms("korean", nil)})
	if err != nil {
		t.Fatal(err)
	}
	var specs []*record.Record
	for _, slot := range testkit.Records(t, seed.EpisodeSlots("korean", []string{"work", "health", "food_and_dining"}, 2, nil)) {
		out, err := st.Process(context.Background(), slot)
		if err != nil {
			t.Fatal(err)
		}
		specs = append(specs, out...)
	}
	enums := map[string]bool{}
	allowed := map[string]bool{}
	n := 0
	for _, rq := range srv.Requests() {
		if rq.Request.SchemaName() != "seed_episode" {
			continue
		}
		n++
		rf := rq.Request.ResponseFormat
		if rf == nil || rf.JSONSchema == nil {
			t.Fatalf("request without a schema: %s", rq.Body)
		}
		var doc struct {
			Properties struct {
				Constraints struct {
					Items struct {
						Properties struct {
							NormID struct {
								Enum []string `json:"enum"`
							} `json:"norm_id"`
						} `json:"properties"`
					} `json:"items"`
				} `json:"constraints"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(rf.JSONSchema.Schema, &doc); err != nil {
			t.Fatal(err)
		}
		enum := doc.Properties.Constraints.Items.Properties.NormID.Enum
		if len(enum) != seed.NormsOffered+1 || enum[0] != "" {
			t.Fatalf("norm_id enum %q: want \"\" and the %d norms offered", enum, seed.NormsOffered)
		}
		for _, id := range enum[1:] {
			if !strings.Contains(rq.Request.LastUser(), id) {
				t.Errorf("enum id %s is not among the norms the prompt lists", id)
			}
			allowed[id] = true
		}
		enums[strings.Join(enum, ",")] = true
	}
	if n != len(specs) || n != 6 {
		t.Fatalf("%d seed_episode requests for %d specs, want 6 each", n, len(specs))
	}
	if len(enums) < 2 {
		t.Errorf("every slot was offered the same norms: %v", enums)
	}
	for _, s := range specs {
		for _, c := range s.Episode.Constraints {
			if c.NormID != "" && !allowed[c.NormID] {
				t.Errorf("spec %s: norm_id %s is in no enum sent", s.ID, c.NormID)
			}
		}
	}
	if !slices.ContainsFunc(specs, func(r *record.Record) bool {
		return slices.ContainsFunc(r.Episode.Constraints, func(c record.Constraint) bool { return c.NormID != "" })
	}) {
		t.Error("no constraint rests on a norm: the test shows nothing")
	}
}
