package seed

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/ngkit/ngkit/pkg/lang"
	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/persona"
	"github.com/ngkit/ngkit/pkg/record"
)

// TypePact is --types pact: PACT trade-off items instead of, or
// besides, dialogue seeds.
const TypePact = "pact"

// PactDraft is one PACT item as the writer replies it (the fake model of
// the tests writes the same).
type PactDraft struct {
	Scenario     string `json:"scenario"`
	Actor        string `json:"actor"`
	Receiver     string `json:"receiver"`
	Expectation  string `json:"expectation"`
	Preference   string `json:"preference"`
	FollowOption string `json:"follow_option"`
	AllowOption  string `json:"allow_option"`
}

func (d *PactDraft) trim() {
	for _, f := range []*string{&d.Scenario, &d.Actor, &d.Receiver, &d.Expectation, &d.Preference, &d.FollowOption, &d.AllowOption} {
		*f = strings.TrimSpace(*f)
	}
}

// checkPactDraft judges an item: every field there, no format markers,
// the two options present and distinct, the preference not the
// expectation, and the item's text in the culture's scenario language.
func checkPactDraft(det *lang.Detector, c *normbank.Culture, d PactDraft) error {
	fields := []struct{ name, v string }{{"scenario", d.Scenario}, {"actor", d.Actor}, {"expectation", d.Expectation},
		{"preference", d.Preference}, {"follow_option", d.FollowOption}, {"allow_option", d.AllowOption}}
	for _, f := range fields {
		if f.v == "" {
			return refuse(kindEmpty, "the %s is empty", f.name)
		}
		if m := normbank.MarkerIn(f.v); m != "" {
			return refuse(kindMarker, "the %s contains %s: write plain prose on one line", f.name, m)
		}
	}
	// One text: options alone are too short for a language to be told.
	text := strings.Join([]string{d.Scenario, d.Expectation, d.Preference, d.FollowOption, d.AllowOption}, " ")
	want := lang.Normalize(c.ScenarioLang)
	if r := det.Detect(text); r.Lang != want || r.Confidence < lang.MinConfidence {
		got := r.Lang
		if got == "" || r.Confidence < lang.MinConfidence {
			got = "no clear language"
		}
		return refuse(kindLanguage, "the item is in %s, it must be in %s (%s)", got, lang.Name(want), want)
	}
	if record.SameText(d.FollowOption, d.AllowOption) {
		return refuse("same options", "follow_option and allow_option are the same; they must be the two different actions")
	}
	if record.SameText(d.Expectation, d.Preference) {
		return refuse("no conflict", "the preference is the expectation; it must conflict with it")
	}
	return nil
}

// pactItems writes the --per-norm items of a norm. One writer call asks
// for the open slots (each with its actor's persona, the varied
// attributes left out: the variants share the text); the judge is asked
// whether each item's preference really conflicts with its expectation;
// the slots it refuses are asked for again, with its reasons, at most
// --max-topups more times. Each kept item is written once per --vary
// variant, alike but for the varied attributes.
func (s *Stage) pactItems(ctx context.Context, in *record.Record, norm normbank.Norm, cu *cultureEntry) ([]*record.Record, error) {
	want := s.opt.PerNorm
	slots := s.pactSlots(in, norm)
	var rejected, have []string
	for call := 1; ; call++ {
		var open []*pactSlot
		for _, sl := range slots {
			if sl.item == nil {
				open = append(open, sl)
			}
		}
		if len(open) == 0 {
			break
		}
		if call > 1+s.opt.MaxTopUps {
			why := "none"
			if len(rejected) > 0 {
				why = rejected[len(rejected)-1]
			}
			return nil, fmt.Errorf("only %d of %d PACT items passed the judge after %d calls (last refused: %s)", want-len(open), want, call-1, why)
		}
		suffix := ""
		if call > 1 {
			suffix = "." + strconv.Itoa(call)
		}
		data := newPromptData(norm, cu.c)
		for _, sl := range open {
			data.Slots = append(data.Slots, sl.shown)
		}
		data.Have, data.Rejected = have, rejected
		drafts, wgen, err := s.writePact(ctx, in, cu, data, suffix, len(open))
		if err != nil {
			return nil, err
		}
		verdicts, jgen, err := s.judgePact(ctx, in.ID, "pact_judge"+suffix, norm, cu, drafts)
		if err != nil {
			return nil, err
		}
		for i, d := range drafts {
			if !verdicts[i].Conflict {
				rejected = append(rejected, fmt.Sprintf("expectation %q, preference %q: %s", d.Expectation, d.Preference, verdicts[i].Reason))
				continue
			}
			open[i].item = &drafts[i]
			open[i].gen = []record.Gen{wgen, jgen}
			have = append(have, d.Scenario)
		}
	}
	return s.pactRecords(in, norm, cu, slots), nil
}

// pactSlot is one of a norm's --per-norm items.
type pactSlot struct {
	id       string
	variants []persona.Variant
	shown    []string // the persona in the writer prompt
	item     *PactDraft
	gen      []record.Gen
}

// pactSlots are a norm's --per-norm slots, each with its --vary variants.
func (s *Stage) pactSlots(in *record.Record, norm normbank.Norm) []*pactSlot {
	slots := make([]*pactSlot, s.opt.PerNorm)
	varied := map[string]bool{}
	if s.opt.Personas != nil {
		for _, v := range s.opt.Personas.Vary {
			varied[v.Attr] = true
		}
	}
	for i := range slots {
		id := record.NewID(norm.ID, strconv.Itoa(i), TypePact)
		vs := s.opt.Personas.Expand(id, in.Persona)
		shown := maps.Clone(vs[0].Persona)
		for a := range varied {
			delete(shown, a)
		}
		slots[i] = &pactSlot{id: id, variants: vs, shown: persona.Lines(shown)}
	}
	return slots
}

// writePact asks the writer for n items, one per slot in data.
func (s *Stage) writePact(ctx context.Context, in *record.Record, cu *cultureEntry, data promptData, suffix string, n int) ([]PactDraft, record.Gen, error) {
	reply, err := countSchema("pact_items", "items", n)
	if err != nil {
		return nil, record.Gen{}, err
	}
	resp, err := s.call(ctx, in.ID, "pact"+suffix, "pact", "pact_items", cu.c.Name, data, reply, func(r *llm.Response) (any, error) {
		var v struct {
			Items []PactDraft `json:"items"`
		}
		if err := r.Decode(&v); err != nil {
			return nil, err
		}
		if len(v.Items) != n {
			return nil, fmt.Errorf("the reply holds %d items, it must hold exactly %d", len(v.Items), n)
		}
		for i := range v.Items {
			v.Items[i].trim()
			if err := checkPactDraft(cu.det, cu.c, v.Items[i]); err != nil {
				return nil, fmt.Errorf("item %d: %w", i+1, err)
			}
		}
		return v.Items, nil
	})
	if err != nil {
		return nil, record.Gen{}, err
	}
	return resp.Checked.([]PactDraft), resp.Gen, nil
}

// pactRecords are the records of the slots' items, one per --vary variant.
func (s *Stage) pactRecords(in *record.Record, norm normbank.Norm, cu *cultureEntry, slots []*pactSlot) []*record.Record {
	var out []*record.Record
	for _, sl := range slots {
		for _, v := range sl.variants {
			d := sl.item
			p := maps.Clone(v.Persona)
			it := &record.PactItem{Actor: d.Actor, Receiver: d.Receiver, Expectation: d.Expectation,
				Preference: d.Preference, FollowOption: d.FollowOption, AllowOption: d.AllowOption}
			takeItemAttrs(p, it)
			if len(p) == 0 {
				p = nil
			}
			r := &record.Record{
				ID: s.opt.Personas.ID(sl.id, v.Persona), ParentID: in.ID,
				Culture: norm.Culture, Lang: lang.Normalize(cu.c.ScenarioLang),
				Category: norm.Category, NormID: norm.ID, Norm: norm.Text,
				Scenario: d.Scenario, Extra: maps.Clone(in.Extra), Persona: p,
				PactItem: it,
				Gen:      append([]record.Gen(nil), sl.gen...),
			}
			if s.opt.Personas.Varies() {
				r.VariantOf = sl.id
			}
			out = append(out, r)
		}
	}
	return out
}

// takeItemAttrs moves the persona attributes that are the PACT item's own
// fields into it: --vary country=A,B (the actor's and the receiver's
// country alike: the scenario's country), actor_country, receiver_country,
// receiver_age, receiver_gender; and persona_country, persona_demo, the
// respondent the model under test answers as (the persona-prompted run).
// The actor's age and gender stay in the persona.
func takeItemAttrs(p map[string]string, it *record.PactItem) {
	if c, ok := p["country"]; ok {
		it.ActorCountry, it.ReceiverCountry = c, c
		delete(p, "country")
	}
	for k, f := range map[string]*string{"actor_country": &it.ActorCountry, "receiver_country": &it.ReceiverCountry,
		"receiver_age": &it.ReceiverAge, "receiver_gender": &it.ReceiverGender,
		"persona_country": &it.PersonaCountry, "persona_demo": &it.PersonaDemo} {
		if v, ok := p[k]; ok {
			*f = v
			delete(p, k)
		}
	}
}

// Verdict is the judge's answer for one item.
type Verdict struct {
	Index    int    `json:"index"`
	Conflict bool   `json:"conflict"`
	Reason   string `json:"reason"`
}

// judgePact asks the judge role whether each item's preference conflicts
// with its expectation: one call for the items of one writer reply, with
// one verdict per item (re-asked otherwise).
func (s *Stage) judgePact(ctx context.Context, id, name string, norm normbank.Norm, cu *cultureEntry, drafts []PactDraft) ([]Verdict, record.Gen, error) {
	if s.opt.Judge == nil {
		return nil, record.Gen{}, errors.New("--types pact needs the judge role")
	}
	data := newPromptData(norm, cu.c)
	for _, d := range drafts {
		data.Items = append(data.Items, fmt.Sprintf("scenario: %s / expectation: %s / preference: %s", d.Scenario, d.Expectation, d.Preference))
	}
	p, err := s.opt.Pack.Render("seed", "pact_judge", cu.c.Name, data)
	if err != nil {
		return nil, record.Gen{}, err
	}
	reply, err := countSchema("pact_conflict", "items", len(drafts))
	if err != nil {
		return nil, record.Gen{}, err
	}
	resp, err := s.opt.Judge.Call(ctx, llm.Request{
		ID: id, Call: name, Schema: "pact_conflict", ReplySchema: reply, PromptPack: s.opt.Pack.Version(),
		Messages: []llm.Message{llm.System(p.System), llm.User(p.User)},
		Check: func(r *llm.Response) (any, error) {
			var v struct {
				Items []Verdict `json:"items"`
			}
			if err := r.Decode(&v); err != nil {
				return nil, err
			}
			out := make([]Verdict, len(drafts))
			got := make([]bool, len(drafts))
			for _, x := range v.Items {
				if x.Index < 1 || x.Index > len(drafts) {
					return nil, fmt.Errorf("index %d: there are items 1 to %d", x.Index, len(drafts))
				}
				out[x.Index-1], got[x.Index-1] = x, true
			}
			for i, ok := range got {
				if !ok {
					return nil, fmt.Errorf("no verdict for item %d: give one per item", i+1)
				}
			}
			return out, nil
		},
	})
	if err != nil {
		return nil, record.Gen{}, fmt.Errorf("judge: %w", err)
	}
	return resp.Checked.([]Verdict), resp.Gen, nil
}
