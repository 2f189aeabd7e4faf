package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ngkit/ngkit/pkg/record"
)

// ParseUserReply reads the simulator's reply (schema sim_user): the
// message trimmed and not empty, the revealed ids trimmed, without empty
// ones or repeats, in the order given. A reply the client already
// validated against the schema always parses unless the message is blank;
// the parser does not trust that, so that --responses files and servers
// without JSON mode get the same checks.
func ParseUserReply(raw []byte) (userReply, error) {
	var v struct {
		Message  *string   `json:"message"`
		GoalMet  *bool     `json:"goal_met"`
		Revealed *[]string `json:"revealed"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		return userReply{}, fmt.Errorf("not a sim_user reply: %v", err)
	}
	if dec.More() {
		return userReply{}, errors.New("not a sim_user reply: text after the JSON object")
	}
	switch {
	case v.Message == nil:
		return userReply{}, errors.New("the reply has no message")
	case v.GoalMet == nil:
		return userReply{}, errors.New("the reply has no goal_met")
	case v.Revealed == nil:
		return userReply{}, errors.New("the reply has no revealed list (give [] when nothing is revealed)")
	}
	out := userReply{Message: strings.TrimSpace(*v.Message), GoalMet: *v.GoalMet}
	if out.Message == "" {
		return userReply{}, errors.New("the message is empty")
	}
	for _, id := range *v.Revealed {
		if id = strings.TrimSpace(id); id != "" && !slices.Contains(out.Revealed, id) {
			out.Revealed = append(out.Revealed, id)
		}
	}
	return out, nil
}

// judgeReply is the judge's reply (schema sim_judge); constraints is
// an object keyed by constraint id, read by judgeOutcomes.
type judgeReply struct {
	Assistance          int             `json:"assistance"`
	AssistanceRationale string          `json:"assistance_rationale"`
	Cultural            int             `json:"cultural"`
	CulturalRationale   string          `json:"cultural_rationale"`
	Language            int             `json:"language"`
	LanguageRationale   string          `json:"language_rationale"`
	Constraints         json.RawMessage `json:"constraints"`
}

// Outcomes are the judge's constraint outcomes.
var Outcomes = []string{record.OutcomeInferred, record.OutcomeRespected, record.OutcomeViolated, record.OutcomeUnaddressed}

// parseJudge reads a judge reply against the spec's constraints: scores
// 1-5, one known outcome for every constraint of the spec, no other id;
// the outcomes come back in the spec's order.
func parseJudge(raw []byte, cons []record.Constraint) (*record.SimJudge, error) {
	var v judgeReply
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("not a sim_judge reply: %v", err)
	}
	for _, sc := range []struct {
		name string
		n    int
	}{{"assistance", v.Assistance}, {"cultural", v.Cultural}, {"language", v.Language}} {
		if sc.n < 1 || sc.n > 5 {
			return nil, fmt.Errorf("%s %d: want a score from 1 to 5", sc.name, sc.n)
		}
	}
	got := map[string]record.ConstraintOutcome{}
	err := judgeOutcomes(v.Constraints, func(id string, o judgeOutcome) error {
		id = strings.TrimSpace(id)
		if !slices.ContainsFunc(cons, func(k record.Constraint) bool { return k.ID == id }) {
			return fmt.Errorf("constraints: %q is not a constraint of the episode (ids: %s)", id, idList(cons))
		}
		if _, dup := got[id]; dup {
			return fmt.Errorf("constraints: %s is judged twice", id)
		}
		if !slices.Contains(Outcomes, o.Outcome) {
			return fmt.Errorf("constraints: %s: outcome %q: want one of %s", id, o.Outcome, strings.Join(Outcomes, ", "))
		}
		got[id] = record.ConstraintOutcome{ID: id, Outcome: o.Outcome, Rationale: strings.TrimSpace(o.Rationale)}
		return nil
	})
	if err != nil {
		return nil, err
	}
	j := &record.SimJudge{
		Assistance: v.Assistance, AssistanceRationale: strings.TrimSpace(v.AssistanceRationale),
		Cultural: v.Cultural, CulturalRationale: strings.TrimSpace(v.CulturalRationale),
		Language: v.Language, LanguageRationale: strings.TrimSpace(v.LanguageRationale),
	}
	var missing []string
	for _, c := range cons {
		o, ok := got[c.ID]
		if !ok {
			missing = append(missing, c.ID)
			continue
		}
		j.Constraints = append(j.Constraints, o)
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("constraints: no outcome for %s: give one for every hidden constraint", strings.Join(missing, ", "))
	}
	return j, nil
}

func idList(cons []record.Constraint) string {
	var ids []string
	for _, c := range cons {
		ids = append(ids, c.ID)
	}
	return strings.Join(ids, ", ")
}

// judgeOutcome is the verdict on one constraint in a judge reply.
type judgeOutcome struct {
	Outcome   string `json:"outcome"`
	Rationale string `json:"rationale"`
}

// judgeOutcomes calls fn for each id and outcome of the reply's
// constraints object, in the reply's order and repeats included (a map
// would keep only the last of a repeated id); absent or null is none.
func judgeOutcomes(raw json.RawMessage, fn func(id string, o judgeOutcome) error) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return errors.New("constraints: want an object with an outcome per constraint id")
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return fmt.Errorf("constraints: %v", err)
		}
		id, _ := t.(string)
		var o judgeOutcome
		if err := dec.Decode(&o); err != nil {
			return fmt.Errorf("constraints: %s: %v", id, err)
		}
		if err := fn(id, o); err != nil {
			return err
		}
	}
	return nil
}
