package imports

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/pkg/record"
)

const pactCSV = `id,Country,scenario,actor,receiver,expectation,preference,follow_option,allow_option,human_follow_culture,human_n,age,gender,source
j1,Japan,"Ken visits his friend's family home in Osaka for dinner.",Ken,the host,Guests remove their shoes at the door.,Ken would rather keep his shoes on.,Ken takes off his shoes.,Ken keeps his shoes on.,0.81,120,30-49,male,survey
k1,South Korea,"Mina joins her manager for a team dinner.",Mina,her manager,A junior pours for the senior first.,Mina would rather pour her own drink.,Mina pours for her manager first.,Mina pours her own drink first.,62%,80,18-29,female,survey
k2,Korea,"Jun meets his teacher.",Jun,,,Jun would rather wave.,Jun bows.,Jun waves.,,,,,survey
k3,Korea,"Jun meets his teacher.",Jun,,Bow to a teacher.,Jun would rather wave.,Jun bows.,Jun waves.,1.5,,,,survey
`

// CSV items: the fields, country to culture, the human share (a share or
// a percentage), age and gender to the persona, other columns to extra;
// an item without its expectation, or with a share above 1, is read and
// then refused by CheckPactItems with the reason.
func TestPactCSV(t *testing.T) {
	f := writeFile(t, t.TempDir(), "items.csv", pactCSV)
	recs, err := drain(NewPact([]string{f}, PactOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 4 {
		t.Fatalf("%d records", len(recs))
	}
	j := recs[0]
	if j.ID != "j1" || j.Culture != "japanese" || j.Lang != "en" || j.PactItem.Actor != "Ken" || j.PactItem.Receiver != "the host" ||
		j.PactItem.Human == nil || j.PactItem.Human.FollowCulture != 0.81 || j.PactItem.Human.N != 120 ||
		j.Persona["age"] != "30-49" || j.Persona["gender"] != "male" || string(j.Extra["source"]) != `"survey"` || string(j.Extra["Country"]) != "" {
		t.Errorf("j1: %+v %+v %s", j, j.PactItem, j.Extra)
	}
	if s, _ := j.ExtraString("country"); s != "Japan" {
		t.Errorf("country kept as %q", s)
	}
	if k := recs[1]; k.Culture != "korean" || k.PactItem.Human.FollowCulture != 0.62 || k.PactItem.Human.N != 80 {
		t.Errorf("k1: %+v %+v", k, k.PactItem.Human)
	}
	for i, want := range []string{"", "", "PACT item without expectation", "human_follow_culture: follow_culture 1.5: want a share from 0 to 1"} {
		_, err := CheckPactItems.Process(context.Background(), recs[i])
		if (err == nil) != (want == "") || err != nil && !strings.Contains(err.Error(), want) {
			t.Errorf("record %d: %v, want %q", i, err, want)
		}
		if err := recs[i].Validate(); err != nil {
			t.Errorf("record %d: %v", i, err)
		}
	}
}

// JSONL (and a JSON array) with the nested human and persona, the
// --culture flag over the file's, and a line that is not an object.
func TestPactJSON(t *testing.T) {
	dir := t.TempDir()
	f := writeFile(t, dir, "items.jsonl", `{"scenario":"민수는 회사 복도에서 부장님을 만난다.","culture":"Korean","actor":"민수","expectation":"아랫사람이 먼저 인사한다.","preference":"민수는 못 본 척 지나가고 싶다.","follow_option":"먼저 인사한다.","allow_option":"지나간다.","human":{"follow_culture":0.7,"n":30},"persona":{"age":"50+","hierarchy":"junior"},"tags":["a"]}
{"scenario":"x","actor":"y","expectation":"e","preference":"p","follow_option":"f","allow_option":"a","human":{"share":0.5}}
`)
	recs, err := drain(NewPact([]string{f}, PactOptions{Fields: Fields{Category: "greeting"}}))
	if err != nil || len(recs) != 2 {
		t.Fatalf("%d records, %v", len(recs), err)
	}
	r := recs[0]
	if r.Culture != "korean" || r.Lang != "ko" || r.Category != "greeting" || r.PactItem.Human.FollowCulture != 0.7 || r.PactItem.Human.N != 30 ||
		r.Persona["age"] != "50+" || r.Persona["hierarchy"] != "junior" || string(r.Extra["tags"]) != `["a"]` || r.ID == "" {
		t.Errorf("%+v %+v %s", r, r.PactItem, r.Extra)
	}
	if _, err := CheckPactItems.Process(context.Background(), recs[1]); err == nil || !strings.Contains(err.Error(), `unknown field "share"`) {
		t.Errorf("human.share: %v", err)
	}
	arr := writeFile(t, dir, "items.json", `[{"scenario":"s","actor":"a","expectation":"e","preference":"p","follow_option":"f","allow_option":"g"}, 3]`)
	recs, err = drain(NewPact([]string{arr}, PactOptions{}))
	if len(recs) != 1 || err == nil || !strings.Contains(err.Error(), "items.json:1: want a JSON object") {
		t.Errorf("array with a number: %d records, %v", len(recs), err)
	}
	if _, err := drain(NewPact([]string{writeFile(t, dir, "empty.csv", "")}, PactOptions{})); err == nil || !strings.Contains(err.Error(), "empty input") {
		t.Errorf("empty: %v", err)
	}
	if _, err := drain(NewPact([]string{writeFile(t, dir, "short.csv", "scenario,actor\nx\n")}, PactOptions{})); err == nil || !strings.Contains(err.Error(), "short.csv:2:") {
		t.Errorf("short row: %v", err)
	}
}

// FuzzDecodePact checks DecodePact's invariant: any input gives a record
// or an error, never a panic; a record has an id and a pact_item, is valid
// (record.Validate), and its human share, when present, is in [0, 1] and
// its n not negative, or the record carries the reason it is not
// (CheckPactItems then refuses it).
func FuzzDecodePact(f *testing.F) {
	f.Add([]byte(`{"scenario":"s","country":"Korea","actor":"a","expectation":"e","preference":"p","follow_option":"f","allow_option":"g","human":{"follow_culture":"62%","n":3}}`))
	f.Add([]byte(`{"human_follow_culture":1e309,"human_n":"-1","persona":{"age":null},"age":3}`))
	f.Add([]byte(`{"id":"x","human":{"follow_culture":0.5},"persona":{"a":{"b":1}}}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`{"scenario_id":"s1","scenario":"s","receiver_country":"India","choice_a":"f","choice_b":"g","cultural_expectation":"e","personal_preference":"p","variant_of":"v"}`))
	f.Add([]byte(`{"scenario_item_id":"i","scenario_country":"Brazil","scenario":"s","human_answers":[{"respondent":"r","personal":"A","norm":"x"},{"personal":1},3]}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		rec, err := DecodePact(raw, "f.jsonl", 0)
		if err != nil {
			return
		}
		if rec.ID == "" || rec.PactItem == nil {
			t.Fatalf("%s: %+v", raw, rec)
		}
		if err := rec.Validate(); err != nil {
			t.Fatalf("%s: invalid record: %v", raw, err)
		}
		_, cerr := CheckPactItems.Process(context.Background(), rec)
		if h := rec.PactItem.Human; h != nil && (h.FollowCulture < 0 || h.FollowCulture > 1 || h.N < 0) && cerr == nil {
			t.Fatalf("%s: human %+v accepted", raw, h)
		}
		if cerr == nil && record.CheckPact(rec) != nil {
			t.Fatalf("%s: accepted an item CheckPact refuses", raw)
		}
	})
}

// The PACT dataset card's columns as they are: scenario_id, the actor's
// and receiver's country, age and gender, cultural_expectation,
// personal_preference, choice_a (the culture-following option), choice_b,
// metadata_source; the receiver's country is the culture; variant_of is
// kept, so imported variants form counterfactual groups.
func TestPactCard(t *testing.T) {
	const card = `scenario_id,scenario,actor_country,receiver_country,actor_age,actor_gender,receiver_age,receiver_gender,cultural_expectation,personal_preference,choice_a,choice_b,metadata_source,variant_of
ca-17,"During a visit to a colleague's home in India, the host offers the actor a traditional sweet.",Brazil,India,younger,female,older,male,Accept what is offered by the host with gratitude.,Allow the actor to politely decline the offer to maintain dietary preferences.,Accept the sweet with gratitude.,Politely decline the sweet.,CultureAtlas,pact-base-17
`
	f := writeFile(t, t.TempDir(), "card.csv", card)
	recs, err := drain(NewPact([]string{f}, PactOptions{}))
	if err != nil || len(recs) != 1 {
		t.Fatalf("%v %d", err, len(recs))
	}
	r := recs[0]
	want := record.PactItem{ScenarioID: "ca-17", Actor: "the actor", ActorCountry: "Brazil", ReceiverCountry: "India",
		ActorAge: "younger", ActorGender: "female", ReceiverAge: "older", ReceiverGender: "male",
		Expectation: "Accept what is offered by the host with gratitude.", Preference: "Allow the actor to politely decline the offer to maintain dietary preferences.",
		FollowOption: "Accept the sweet with gratitude.", AllowOption: "Politely decline the sweet.", MetadataSource: "CultureAtlas"}
	if *r.PactItem != want {
		t.Errorf("item %+v\nwant %+v", *r.PactItem, want)
	}
	if r.VariantOf != "pact-base-17" || r.Culture != "indian" || len(r.Persona) != 0 {
		t.Errorf("variant_of %q culture %q persona %v", r.VariantOf, r.Culture, r.Persona)
	}
	for _, k := range []string{"variant_of", "choice_a", "scenario_id", "country"} {
		if _, ok := r.Extra[k]; ok {
			t.Errorf("%s also in extra", k)
		}
	}
	if _, err := CheckPactItems.Process(context.Background(), r); err != nil {
		t.Error(err)
	}
}

// The authors' persona-prompted rows (their prediction files'
// persona_setting, persona_country, persona_demo beside the item's
// columns): the persona is whom the model answers as, the item's
// persona_country and persona_demo, not the actor's persona; a row of
// the persona-free run has neither; persona_setting stays in extra.
func TestPactPersonaColumns(t *testing.T) {
	const rows = `scenario_item_id,scenario_country,scenario,cultural_expectation,personal_preference,choice_a,choice_b,persona_setting,persona_country,persona_demo,persona_age
i1,Brazil,"At a friend's home in Brazil, the host offers coffee.",Accept coffee.,Allow the actor to decline coffee.,Accept the coffee.,Decline the coffee.,persona,India,younger female,
i1,Brazil,"At a friend's home in Brazil, the host offers coffee.",Accept coffee.,Allow the actor to decline coffee.,Accept the coffee.,Decline the coffee.,no_persona,,,older
`
	f := writeFile(t, t.TempDir(), "pred.csv", rows)
	recs, err := drain(NewPact([]string{f}, PactOptions{}))
	if err != nil || len(recs) != 2 {
		t.Fatalf("%v, %d records", err, len(recs))
	}
	p, np := recs[0], recs[1]
	if p.PactItem.PersonaCountry != "India" || p.PactItem.PersonaDemo != "younger female" || len(p.Persona) != 0 {
		t.Errorf("persona row: item %+v, actor persona %v", *p.PactItem, p.Persona)
	}
	if np.PactItem.PersonaCountry != "" || np.PactItem.PersonaDemo != "" || np.Persona["age"] != "older" || len(np.Persona) != 1 {
		t.Errorf("persona-free row: item %+v, actor persona %v", *np.PactItem, np.Persona)
	}
	var setting string
	if err := json.Unmarshal(p.Extra["persona_setting"], &setting); err != nil || setting != "persona" {
		t.Errorf("persona_setting in extra: %q %v", setting, err)
	}
	for _, r := range recs {
		if _, err := CheckPactItems.Process(context.Background(), r); err != nil {
			t.Error(err)
		}
	}
}

// --respondent-personas: an item with answers, then one persona-prompted
// item per respondent subgroup (country and demo both given) that
// answered it, once each, sharing the item's scenario item; answers
// without a demo make none; an item without answers is left alone.
func TestRespondentPersonas(t *testing.T) {
	const tidy = `respondent_id,respondent_country,scenario_item_id,scenario_country,scenario,cultural_expectation,personal_preference,choice_a,choice_b,human_personal,human_norm,respondent_demo
r1,India,i1,Brazil,"At a friend's home in Brazil, the host offers coffee.",Accept coffee.,Allow the actor to decline coffee.,Accept the coffee.,Decline the coffee.,A,A,young woman
r2,Brazil,i1,Brazil,"At a friend's home in Brazil, the host offers coffee.",Accept coffee.,Allow the actor to decline coffee.,Accept the coffee.,Decline the coffee.,B,A,older man
r3,India,i1,Brazil,"At a friend's home in Brazil, the host offers coffee.",Accept coffee.,Allow the actor to decline coffee.,Accept the coffee.,Decline the coffee.,B,B,young woman
r4,India,i1,Brazil,"At a friend's home in Brazil, the host offers coffee.",Accept coffee.,Allow the actor to decline coffee.,Accept the coffee.,Decline the coffee.,B,B,
`
	f := writeFile(t, t.TempDir(), "tidy.csv", tidy)
	recs, err := drain(NewPact([]string{f}, PactOptions{}))
	if err != nil || len(recs) != 1 {
		t.Fatalf("%v, %d records", err, len(recs))
	}
	item := recs[0]
	out, err := RespondentPersonas.Process(context.Background(), item)
	if err != nil || len(out) != 3 || out[0] != item {
		t.Fatalf("%v, %d records", err, len(out))
	}
	ids := map[string]bool{item.ID: true}
	for i, want := range [][2]string{{"India", "young woman"}, {"Brazil", "older man"}} {
		v := out[i+1]
		it := v.PactItem
		if it.PersonaCountry != want[0] || it.PersonaDemo != want[1] || it.Human != nil || it.ScenarioID != "i1" || v.VariantOf != "" ||
			it.Expectation != item.PactItem.Expectation || v.Scenario != item.Scenario || v.Culture != item.Culture || ids[v.ID] {
			t.Errorf("persona %v: %+v %+v", want, v, *it)
		}
		ids[v.ID] = true
		if err := record.CheckPact(v); err != nil {
			t.Error(err)
		}
	}
	if item.PactItem.Human == nil || item.PactItem.PersonaCountry != "" {
		t.Errorf("the item changed: %+v", *item.PactItem)
	}
	// an item without scenario_id: its personas are variants of it
	item.PactItem.ScenarioID = ""
	if out, _ := RespondentPersonas.Process(context.Background(), item); out[1].VariantOf != item.ID {
		t.Errorf("variant_of %q, want %q", out[1].VariantOf, item.ID)
	}
	for _, r := range []*record.Record{out[1], {ID: "x", PactItem: &record.PactItem{}}} {
		if got, _ := RespondentPersonas.Process(context.Background(), r); len(got) != 1 {
			t.Errorf("%s: %d records, want itself", r.ID, len(got))
		}
	}
}

// A human-study file, one row per respondent and item (the authors'
// tidy_human_responses.csv): merged into one item per scenario_item_id
// with its answers, the shares per framing, and the respondent columns
// out of the item.
func TestPactHumanStudy(t *testing.T) {
	const tidy = `respondent_id,respondent_country,scenario_item_id,scenario_country,scenario,cultural_expectation,personal_preference,choice_a,choice_b,human_personal,human_norm,respondent_gender,respondent_age_bucket,respondent_demo
r1,India,i1,Brazil,"At a friend's home in Brazil, the host offers coffee late in the evening.",Accept coffee as a sign of hospitality.,Allow the actor to decline coffee.,Accept the coffee.,Decline the coffee.,A,A,female,18-29,young woman
r1,India,i2,India,"At a colleague's home in India, the host offers a sweet.",Accept what is offered.,Allow the actor to decline the sweet.,Accept the sweet.,Decline the sweet.,B,A,female,18-29,young woman
r2,Brazil,i1,Brazil,"At a friend's home in Brazil, the host offers coffee late in the evening.",Accept coffee as a sign of hospitality.,Allow the actor to decline coffee.,Accept the coffee.,Decline the coffee.,B,A,male,50+,older man
r3,United Kingdom,i1,Brazil,"At a friend's home in Brazil, the host offers coffee late in the evening.",Accept coffee as a sign of hospitality.,Allow the actor to decline coffee.,Accept the coffee.,Decline the coffee.,FOLLOW_CULTURE,,male,,
`
	f := writeFile(t, t.TempDir(), "tidy.csv", tidy)
	recs, err := drain(NewPact([]string{f}, PactOptions{}))
	if err != nil || len(recs) != 2 {
		t.Fatalf("%v, %d records", err, len(recs))
	}
	i1 := recs[0]
	h := i1.PactItem.Human
	if i1.PactItem.ScenarioID != "i1" || i1.Culture != "brazilian" || h == nil || h.N != 3 || len(h.Answers) != 3 ||
		h.Personal == nil || !approxEq(*h.Personal, 2.0/3) || h.Norm == nil || *h.Norm != 1 || !approxEq(h.FollowCulture, 4.0/5) {
		t.Fatalf("i1: %+v %+v", i1, h)
	}
	// the respondent's demographics are kept with the answer (the
	// authors' subgroup alignment groups by respondent_demo)
	if a := h.Answers[1]; a != (record.HumanAnswer{Respondent: "r2", Country: "Brazil", Demo: "older man", Age: "50+", Gender: "male", Personal: record.PactAllow, Norm: record.PactFollow}) {
		t.Errorf("answer %+v", a)
	}
	if h.Answers[2].Norm != "" {
		t.Errorf("an empty answer read as %q", h.Answers[2].Norm)
	}
	for _, k := range []string{"respondent_id", "human_personal", "respondent_gender", "respondent_demo", "respondent_age_bucket", "human_answers"} {
		if _, ok := i1.Extra[k]; ok {
			t.Errorf("%s in extra", k)
		}
	}
	if recs[1].PactItem.ScenarioID != "i2" || len(recs[1].PactItem.Human.Answers) != 1 {
		t.Errorf("i2: %+v", recs[1].PactItem)
	}
	for _, r := range recs {
		if _, err := CheckPactItems.Process(context.Background(), r); err != nil {
			t.Error(err)
		}
	}
	bad := writeFile(t, t.TempDir(), "bad.csv", "respondent_id,scenario_item_id,scenario,human_personal\nr1,i1,x,maybe\n")
	recs, err = drain(NewPact([]string{bad}, PactOptions{}))
	if err != nil || len(recs) != 1 {
		t.Fatal(err)
	}
	if _, err := CheckPactItems.Process(context.Background(), recs[0]); err == nil || !strings.Contains(err.Error(), `choice "maybe"`) {
		t.Errorf("a bad choice: %v", err)
	}
}

func approxEq(a, b float64) bool { return a-b < 1e-12 && b-a < 1e-12 }
