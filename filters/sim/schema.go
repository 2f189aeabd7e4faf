package sim

import (
	"strings"

	"github.com/ngkit/ngkit/pkg/episode"
	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/record"
)

// The reply schemas of the simulator and the judge (schemas/llm).
const (
	userSchemaFile  = "sim_user"
	judgeSchemaFile = "sim_judge"
)

// episodeSchemas are the simulator's and the judge's reply schemas for
// one episode, made from the files with the episode's constraint ids as
// enums: a server that decodes under the schema (llama.cpp's grammar,
// vLLM's guided decoding) can then write no other id. The files alone
// fix the JSON's shape but not the ids, and a small model under a grammar
// made them up until the episode failed. The reply checks stay as they
// are, for servers that ignore schemas.
//
// sim_user's revealed: an array of the ids that may be revealed (not
// those never to be), each at most once. sim_judge's constraints: an
// object with exactly the episode's ids as required properties, each an
// outcome, so that every constraint is judged once.
func episodeSchemas(cons []record.Constraint) (user, judge *llm.Schema, err error) {
	var ids, revealable []any
	for _, c := range cons {
		ids = append(ids, c.ID)
		if c.Reveal != episode.RevealNever {
			revealable = append(revealable, c.ID)
		}
	}
	user, err = llm.DeriveSchema(userSchemaFile, func(doc map[string]any) {
		revealed := property(doc, "revealed")
		revealed["uniqueItems"] = true
		revealed["maxItems"] = len(revealable)
		if len(revealable) == 0 { // an enum has at least one value
			revealed["items"] = map[string]any{"type": "string", "enum": ids}
		} else {
			revealed["items"] = map[string]any{"type": "string", "enum": revealable}
		}
	})
	if err != nil {
		return nil, nil, err
	}
	judge, err = llm.DeriveSchema(judgeSchemaFile, func(doc map[string]any) {
		cs := property(doc, "constraints")
		outcome := cs["additionalProperties"]
		props := map[string]any{}
		for _, id := range ids {
			props[id.(string)] = outcome
		}
		cs["properties"], cs["required"], cs["additionalProperties"] = props, ids, false
		delete(cs, "maxProperties")
	})
	if err != nil {
		return nil, nil, err
	}
	return user, judge, nil
}

// maxEpisodeSchemas bounds the stage's cache of episode schemas: specs
// from ngseed share a few id lists (c1..cN), imported ones may each have
// their own.
const maxEpisodeSchemas = 256

// replySchemas are an episode's reply schemas.
type replySchemas struct{ user, judge *llm.Schema }

// schemas are the reply schemas of an episode with constraints cons,
// made once per list of ids and reveal modes (compiling them costs about
// a millisecond).
func (s *Stage) schemas(cons []record.Constraint) (replySchemas, error) {
	var key strings.Builder
	for _, c := range cons {
		key.WriteString(c.ID + "\x00" + c.Reveal + "\x00")
	}
	s.mu.Lock()
	rs, ok := s.replySchemas[key.String()]
	s.mu.Unlock()
	if ok {
		return rs, nil
	}
	var err error
	if rs.user, rs.judge, err = episodeSchemas(cons); err != nil {
		return replySchemas{}, err
	}
	s.mu.Lock()
	if len(s.replySchemas) < maxEpisodeSchemas {
		s.replySchemas[key.String()] = rs
	}
	s.mu.Unlock()
	return rs, nil
}

// property is the schema of a top-level property of a schema document.
func property(doc map[string]any, name string) map[string]any {
	return doc["properties"].(map[string]any)[name].(map[string]any)
}
