package imports

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	json "github.com/goccy/go-json"

	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/record"
)

// A human-study file (the PACT authors' tidy_human_responses.csv) has one
// row per respondent and item: respondent_id, respondent_country,
// human_personal and human_norm (A: the culture-following choice, B the
// other; or FOLLOW_CULTURE / ALLOW_PREFERENCE), beside the item's
// columns. ngcat --from pact merges its rows into one item per
// scenario_item_id (else scenario_id, else id), in the order items first
// appear, with the answers under pact_item.human.answers; the rows are
// held in memory (a study's thousands, not a benchmark's millions).

// respondentCols are the per-respondent columns, left out of the item.
var respondentCols = []string{"respondent_id", "respondent_country", "human_personal", "human_norm",
	"respondent_age_bucket", "respondent_age", "respondent_gender", "respondent_demo"}

type groupedItem struct {
	raw  []byte
	line int64
}

func hasRespondents(header []string) bool {
	return slices.ContainsFunc(header, func(h string) bool { return key(h) == "respondent_id" })
}

// groupRespondents reads the whole CSV and merges its rows per item.
func (p *Pact) groupRespondents() error {
	type acc struct {
		obj     map[string]any
		line    int64
		answers []map[string]string
	}
	byKey := map[string]*acc{}
	var order []string
	for {
		cells, err := p.csv.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if pe := (*csv.ParseError)(nil); errors.As(err, &pe) {
			return fmt.Errorf("%s:%d: %v", p.display, pe.StartLine, pe.Err)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", p.display, err)
		}
		l, _ := p.csv.FieldPos(0)
		if len(cells) != len(p.header) {
			return fmt.Errorf("%s:%d: %d cells, the header has %d", p.display, l, len(cells), len(p.header))
		}
		row := map[string]string{}
		for i, c := range cells {
			if !utf8.ValidString(c) {
				return fmt.Errorf("%s:%d: not UTF-8 text; convert the file to UTF-8 first", p.display, l)
			}
			if p.header[i] != "" {
				row[key(p.header[i])] = strings.TrimSpace(c)
			}
		}
		k := cmpOr(row["scenario_item_id"], row["scenario_id"], row["id"])
		if k == "" {
			return fmt.Errorf("%s:%d: a human-study row without scenario_item_id, scenario_id or id", p.display, l)
		}
		a := byKey[k]
		if a == nil {
			a = &acc{obj: map[string]any{}, line: int64(l)}
			for i, h := range p.header {
				if h != "" && !slices.Contains(respondentCols, key(h)) {
					a.obj[h] = cells[i]
				}
			}
			byKey[k] = a
			order = append(order, k)
		}
		a.answers = append(a.answers, map[string]string{"respondent": row["respondent_id"], "country": row["respondent_country"],
			"demo": row["respondent_demo"], "age": cmpOr(row["respondent_age_bucket"], row["respondent_age"]), "gender": row["respondent_gender"],
			"personal": row["human_personal"], "norm": row["human_norm"]})
	}
	if len(order) == 0 {
		return fmt.Errorf("%s: empty input (no items)", p.display)
	}
	p.grouped = []groupedItem{}
	for _, k := range order {
		a := byKey[k]
		a.obj["human_answers"] = a.answers
		raw, err := json.Marshal(a.obj)
		if err != nil {
			return err
		}
		p.grouped = append(p.grouped, groupedItem{raw: raw, line: a.line})
	}
	p.csv = nil
	return nil
}

func cmpOr(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// choiceOf reads a human choice: A (the culture-following option in the
// PACT study) or B, FOLLOW_CULTURE / ALLOW_PREFERENCE in any case, 1 or 0;
// "" is no answer.
func choiceOf(s string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "":
		return "", nil
	case "a", "follow_culture", "1":
		return record.PactFollow, nil
	case "b", "allow_preference", "0":
		return record.PactAllow, nil
	}
	return "", fmt.Errorf("choice %q: want A or B (FOLLOW_CULTURE or ALLOW_PREFERENCE)", s)
}

// setAnswers reads human_answers, a list of {respondent, country, demo,
// age, gender, personal, norm}, into h with the shares they give: per framing, and
// follow_culture over both (an item's own human_follow_culture, read
// after, wins).
func setAnswers(h *record.HumanShare, v any) error {
	list, ok := v.([]any)
	if !ok {
		return errors.New("want a list of {respondent, country, personal, norm}")
	}
	var follow, all [2]int // personal, norm
	for i, x := range list {
		m, ok := x.(map[string]any)
		if !ok {
			return fmt.Errorf("answer %d: want an object", i+1)
		}
		var a record.HumanAnswer
		for k, fv := range m {
			s, err := scalar(fv)
			if err != nil {
				return fmt.Errorf("answer %d: %s: %v", i+1, k, err)
			}
			switch key(k) {
			case "respondent", "respondent_id":
				a.Respondent = s
			case "country", "respondent_country":
				a.Country = s
			case "demo", "respondent_demo":
				a.Demo = s
			case "age", "respondent_age_bucket", "respondent_age":
				a.Age = s
			case "gender", "respondent_gender":
				a.Gender = s
			case "personal", "norm":
				c, err := choiceOf(s)
				if err != nil {
					return fmt.Errorf("answer %d: %s: %v", i+1, k, err)
				}
				j := 0
				if key(k) == "norm" {
					a.Norm, j = c, 1
				} else {
					a.Personal = c
				}
				if c != "" {
					all[j]++
					if c == record.PactFollow {
						follow[j]++
					}
				}
			}
		}
		h.Answers = append(h.Answers, a)
	}
	share := func(k, n int) *float64 {
		if n == 0 {
			return nil
		}
		f := float64(k) / float64(n)
		return &f
	}
	h.Personal, h.Norm = share(follow[0], all[0]), share(follow[1], all[1])
	h.N = len(h.Answers) // an item's own human_n, read after, wins
	if p := share(follow[0]+follow[1], all[0]+all[1]); p != nil {
		h.FollowCulture = *p
	}
	return nil
}

// RespondentPersonas is the stage of ngcat --from pact
// --respondent-personas: each item with human answers, then the same item
// once per respondent subgroup that answered it (respondent_country and
// respondent_demo, both given, in the order they first answer), as the
// persona-prompted run's items: pact_item.persona_country and
// persona_demo set, the human answers left on the item alone, and the
// scenario item shared (the same scenario_id and variant_of, or
// variant_of the item's id when it has neither), so that ngstats finds
// the subgroup's answers. Its id is a hash of the item's and the persona.
// An item that is already of a persona run, or has no answers, is written
// as it is.
var RespondentPersonas pipeline.Stage = pipeline.StageFunc{StageName: "respondent-personas",
	Fn: func(_ context.Context, rec *record.Record) ([]*record.Record, error) {
		out := []*record.Record{rec}
		it := rec.PactItem
		if it == nil || it.Human == nil || it.PersonaCountry != "" || it.PersonaDemo != "" {
			return out, nil
		}
		var seen [][2]string
		for _, a := range it.Human.Answers {
			p := [2]string{a.Country, a.Demo}
			if a.Country == "" || a.Demo == "" || slices.Contains(seen, p) {
				continue
			}
			seen = append(seen, p)
			v := *rec
			v.ID = record.NewID(rec.ID, "persona", a.Country, a.Demo)
			if v.VariantOf == "" && it.ScenarioID == "" {
				v.VariantOf = rec.ID
			}
			pi := *it
			pi.Human, pi.PersonaCountry, pi.PersonaDemo = nil, a.Country, a.Demo
			v.PactItem = &pi
			// its own maps; results of the item's are not the persona's
			v.Persona, v.Extra, v.Gen, v.Pact = maps.Clone(rec.Persona), maps.Clone(rec.Extra), slices.Clone(rec.Gen), nil
			out = append(out, &v)
		}
		return out, nil
	}}
