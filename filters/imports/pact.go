package imports

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	json "github.com/goccy/go-json"

	"github.com/ngkit/ngkit/pkg/lang"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/record"
)

// PactOptions tune the PACT items import (ngcat --from pact).
type PactOptions struct {
	Fields // set on every record
	Stdin  io.Reader
}

// Pact reads PACT trade-off items from CSV, TSV (by the .tsv name) or
// JSONL / a JSON array, one item per row or object, as a pipeline.Source.
// A file whose first character is { or [ is JSON, any other CSV. The
// fields (header names or keys; case, spaces and dashes ignored):
//
//	id, scenario, culture (or country), lang, category, norm, norm_id,
//	actor, receiver, expectation, preference, follow_option, allow_option,
//	human: {follow_culture, n} or human_follow_culture and human_n,
//	persona: {attr: value} or persona_ATTR columns; age and gender go to
//	the persona too; but persona_country and persona_demo, the PACT
//	authors' columns of the respondent the model is asked to answer as,
//	are the item's fields of those names
//
// Others go to extra. A share may be written 0.62 or 62%. A country of a
// built-in culture becomes that culture (Korea -> korean); any other is
// kept, in lower case. Without lang, the item's language is detected.
// A value that is not a JSON object is unreadable input, as in JSONL; an
// item missing what ngpact needs (record.CheckPact: the expectation, the
// preference, the options, ...) or with a bad field (a share above 1) is
// read, and CheckPactItems, the stage of the import, sends it to the
// errors file with the reason, the file and the line.
type Pact struct {
	names   []string
	opt     PactOptions
	display string
	file    string
	f       io.Closer
	csv     *csv.Reader
	header  []string
	json    *valueScanner
	index   int64
	// grouped holds a human-study file's items, its rows merged per item
	// (respondents.go); nil otherwise.
	grouped []groupedItem
}

// NewPact imports the named files ("-" or none: stdin).
func NewPact(names []string, opt PactOptions) (*Pact, error) {
	if err := opt.Fields.Check(); err != nil {
		return nil, err
	}
	if len(names) == 0 {
		names = []string{"-"}
	}
	return &Pact{names: names, opt: opt}, nil
}

func (p *Pact) open() error {
	name := p.names[0]
	p.names = p.names[1:]
	display, r, f, err := openText(name, p.opt.Stdin)
	if err != nil {
		return err
	}
	p.display, p.f, p.index, p.file = display, f, 0, sourceName(display)
	if first := firstByte(r); first == '{' || first == '[' {
		p.json = newValueScanner(r, 16<<20)
		return nil
	}
	p.csv = csv.NewReader(r)
	if strings.HasSuffix(strings.ToLower(name), ".tsv") {
		p.csv.Comma = '\t'
	}
	p.csv.FieldsPerRecord = 0
	if p.header, err = p.csv.Read(); err != nil {
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("%s: empty input (no header)", display)
		}
		return fmt.Errorf("%s: the header: %v", display, err)
	}
	for i, h := range p.header {
		if !utf8.ValidString(h) {
			return fmt.Errorf("%s:1: not UTF-8 text; convert the file to UTF-8 first", display)
		}
		p.header[i] = strings.TrimSpace(h)
	}
	return nil
}

// firstByte is the first byte that is not white space ("" at EOF).
func firstByte(r *bufio.Reader) byte {
	for n := 1; ; n++ {
		b, err := r.Peek(n)
		if len(b) < n || err != nil {
			return 0
		}
		if c := b[n-1]; c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return c
		}
		if n >= 4096 {
			return 0
		}
	}
}

// Next implements pipeline.Source.
func (p *Pact) Next() (pipeline.Item, error) {
	for {
		if p.csv == nil && p.json == nil && p.grouped == nil {
			if len(p.names) == 0 {
				return pipeline.Item{}, io.EOF
			}
			if err := p.open(); err != nil {
				return pipeline.Item{}, err
			}
			if p.csv != nil && hasRespondents(p.header) {
				if err := p.groupRespondents(); err != nil {
					return pipeline.Item{}, err
				}
			}
		}
		var raw []byte
		var line int64
		var err error
		if p.grouped != nil {
			if len(p.grouped) == 0 {
				p.grouped = nil
				err = io.EOF
			} else {
				raw, line = p.grouped[0].raw, p.grouped[0].line
				p.grouped = p.grouped[1:]
			}
		} else if p.json != nil {
			raw, line, err = p.json.Next()
			if err == nil && !utf8.Valid(raw) {
				return pipeline.Item{}, notUTF8(p.display, line, raw)
			}
			if err == nil {
				raw = append([]byte(nil), raw...)
			}
		} else {
			var cells []string
			cells, err = p.csv.Read()
			if err == nil {
				l, _ := p.csv.FieldPos(0)
				line = int64(l)
				if len(cells) != len(p.header) {
					return pipeline.Item{}, fmt.Errorf("%s:%d: %d cells, the header has %d", p.display, line, len(cells), len(p.header))
				}
				obj := map[string]string{}
				for i, c := range cells {
					if !utf8.ValidString(c) {
						return pipeline.Item{}, fmt.Errorf("%s:%d: not UTF-8 text; convert the file to UTF-8 first", p.display, line)
					}
					if p.header[i] != "" {
						obj[p.header[i]] = c
					}
				}
				raw, _ = json.Marshal(obj)
			} else if pe := (*csv.ParseError)(nil); errors.As(err, &pe) {
				return pipeline.Item{}, fmt.Errorf("%s:%d: %v", p.display, pe.StartLine, pe.Err)
			}
		}
		if err == nil {
			idx, name, file, fields := p.index, p.display, p.file, p.opt.Fields
			p.index++
			return pipeline.Item{Raw: raw, Name: name, Line: line,
				Decode: func(b []byte) (*record.Record, error) {
					rec, err := DecodePact(b, file, idx)
					if err != nil {
						return nil, fmt.Errorf("%s:%d: %w", name, line, err)
					}
					fields.apply(rec)
					return rec, nil
				}}, nil
		}
		if !errors.Is(err, io.EOF) {
			return pipeline.Item{}, fmt.Errorf("%s:%d: %w", p.display, line, err)
		}
		if p.index == 0 {
			return pipeline.Item{}, fmt.Errorf("%s: empty input (no items)", p.display)
		}
		p.Close()
	}
}

// Close implements pipeline.Source.
func (p *Pact) Close() error {
	p.csv, p.json, p.grouped = nil, nil, nil
	if p.f != nil {
		err := p.f.Close()
		p.f = nil
		return err
	}
	return nil
}

// countryCultures maps countries to the built-in cultures.
var countryCultures = map[string]string{
	"us": "american", "usa": "american", "united states": "american", "united states of america": "american", "america": "american",
	"china": "chinese", "prc": "chinese", "korea": "korean", "south korea": "korean", "republic of korea": "korean",
	"japan": "japanese", "vietnam": "vietnamese", "viet nam": "vietnamese", "thailand": "thai", "indonesia": "indonesian",
	"malaysia": "malaysian", "philippines": "filipino", "the philippines": "filipino", "singapore": "singaporean", "taiwan": "taiwanese",
	// the PACT human study's countries
	"brazil": "brazilian", "india": "indian", "south africa": "south-african", "united kingdom": "british", "uk": "british",
	"great britain": "british", "britain": "british", "england": "british",
}

// key normalises a field name: lower case, spaces, dashes and dots as
// underscores.
// cultureOfCountry is the built-in culture of a country, else the name in
// lower case with spaces as '-' (New Zealand: new-zealand, a profile's
// name).
func cultureOfCountry(country string) string {
	c := strings.ToLower(strings.TrimSpace(country))
	if k, ok := countryCultures[c]; ok {
		return k
	}
	return strings.Join(strings.Fields(c), "-")
}

func key(k string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '-', '.':
			return '_'
		}
		return r
	}, strings.ToLower(strings.TrimSpace(k)))
}

// DecodePact makes a record of one item (a JSON object; CSV rows come as
// objects of header -> cell). Its invariant, which FuzzDecodePact checks:
// any input gives a record or an error, never a panic; a record always
// has an id, and its human share, when present, lies in [0, 1].
func DecodePact(raw []byte, file string, idx int64) (*record.Record, error) {
	var obj map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&obj); err != nil {
		return nil, fmt.Errorf("not a JSON object: %v", describe(err))
	}
	if obj == nil {
		return nil, errors.New("not a JSON object: null")
	}
	d := &pactDecoder{rec: &record.Record{PactItem: &record.PactItem{}}, persona: map[string]string{}}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		d.field(k, obj[k])
	}
	d.finish(file, idx)
	return d.rec, nil
}

// pactDecoder is one item being decoded, field by field.
type pactDecoder struct {
	rec                      *record.Record
	human                    record.HumanShare
	hasHuman                 bool
	persona                  map[string]string
	country, scenarioCountry string
	bad                      error // the first bad field
}

func (d *pactDecoder) problem(err error) {
	if d.bad == nil {
		d.bad = err
	}
}

// field decodes the item's field k.
func (d *pactDecoder) field(k string, v any) {
	nk := key(k)
	if nk == "human_answers" {
		if err := setAnswers(&d.human, v); err != nil {
			d.problem(fmt.Errorf("%s: %v", k, err))
		}
		d.hasHuman = true
		return
	}
	if m, ok := v.(map[string]any); ok && (nk == "human" || nk == "persona") {
		d.group(k, nk, m)
		return
	}
	if v == nil {
		return
	}
	s, err := scalar(v)
	if err != nil {
		d.rec.SetExtra(k, v) // decoded JSON: it always marshals
		return
	}
	d.scalar(k, nk, s)
}

// group decodes an object of human shares or persona attributes.
func (d *pactDecoder) group(k, nk string, m map[string]any) {
	for sk, sv := range m {
		s, err := scalar(sv)
		if err != nil {
			d.problem(fmt.Errorf("%s.%s: %v", k, sk, err))
			continue
		}
		if nk == "persona" {
			if s != "" {
				d.persona[sk] = s
			}
			continue
		}
		if err := setHuman(&d.human, key(sk), s); err != nil {
			d.problem(fmt.Errorf("%s.%s: %v", k, sk, err))
		}
		d.hasHuman = true
	}
}

// scalar decodes field k (nk: its key) of value s.
func (d *pactDecoder) scalar(k, nk, s string) {
	rec, it := d.rec, d.rec.PactItem
	switch nk {
	case "id":
		rec.ID = s
	case "scenario", "situation", "context":
		if rec.Scenario == "" {
			rec.Scenario = s
		}
	case "culture":
		rec.Culture = strings.ToLower(s)
	case "country":
		d.country = s
	case "scenario_country":
		d.scenarioCountry = s
	case "lang", "language":
		rec.Lang = lang.Normalize(s)
	case "category":
		rec.Category = s
	case "norm":
		rec.Norm = s
	case "norm_id":
		rec.NormID = s
	case "actor":
		it.Actor = s
	case "receiver":
		it.Receiver = s
	case "variant_of":
		rec.VariantOf = s
	case "scenario_id":
		it.ScenarioID = s
	case "scenario_item_id": // the human study's name of it
		if it.ScenarioID == "" {
			it.ScenarioID = s
		}
	case "actor_country":
		it.ActorCountry = s
	case "receiver_country":
		it.ReceiverCountry = s
	case "actor_age":
		it.ActorAge = s
	case "actor_gender":
		it.ActorGender = s
	case "receiver_age":
		it.ReceiverAge = s
	case "receiver_gender":
		it.ReceiverGender = s
	case "metadata_source":
		it.MetadataSource = s
	case "persona_country": // the PACT authors' persona-prompted run: whom the model answers as
		it.PersonaCountry = s
	case "persona_demo":
		it.PersonaDemo = s
	case "persona_setting": // their run's name (persona, no_persona), not an actor's attribute
		rec.SetExtra(k, s)
	case "expectation", "cultural_expectation":
		it.Expectation = s
	case "preference", "personal_preference":
		it.Preference = s
	case "follow_option", "option_follow", "follow_culture_option", "choice_a":
		it.FollowOption = s // the card's choice A is the culture-following option
	case "allow_option", "option_allow", "allow_preference_option", "choice_b":
		it.AllowOption = s
	case "human_follow_culture", "human_follow", "human_n":
		if s == "" {
			return
		}
		if err := setHuman(&d.human, strings.TrimPrefix(nk, "human_"), s); err != nil {
			d.problem(fmt.Errorf("%s: %v", k, err))
		}
		d.hasHuman = true
	case "age", "gender":
		if s != "" {
			d.persona[nk] = s
		}
	default:
		if a, ok := strings.CutPrefix(nk, "persona_"); ok && a != "" {
			if s != "" {
				d.persona[a] = s
			}
			return
		}
		rec.SetExtra(k, s)
	}
}

// finish draws what the fields imply (the culture, the actor), notes the
// first bad field, and gives the item its id, source file and language.
func (d *pactDecoder) finish(file string, idx int64) {
	rec, it := d.rec, d.rec.PactItem
	country, scenarioCountry, bad := d.country, d.scenarioCountry, d.bad
	if it.ReceiverCountry == "" && scenarioCountry != "" {
		// the human study's scenario_country: the local context, which the
		// card calls the receiver's country
		it.ReceiverCountry = scenarioCountry
	}
	local := country
	if local == "" {
		// the card has no country of its own: the receiver's is the
		// scenario's local context
		local = it.ReceiverCountry
	}
	if it.Actor == "" && (it.ScenarioID != "" || it.ActorCountry != "" || it.ActorAge != "" || it.ActorGender != "") {
		// the card's rows name no actor: its questions say "the actor"
		it.Actor = "the actor"
	}
	if rec.Culture == "" && local != "" {
		rec.Culture = cultureOfCountry(local)
	}
	if country != "" {
		rec.SetExtra("country", country)
	}
	if rec.Culture == "" && scenarioCountry != "" {
		rec.Culture = cultureOfCountry(scenarioCountry)
	}
	if d.hasHuman {
		it.Human = &d.human
	}
	if err := record.CheckCulture(rec.Culture); err != nil {
		// Not a name a profile can have ("0", "x/../y"): the item fails
		// with the reason (its country stays in extra), before any lookup.
		rec.Culture = ""
		if bad == nil {
			bad = err
		}
	}
	if bad != nil {
		rec.SetExtra(importErrorKey, bad.Error())
	}
	if len(d.persona) > 0 {
		rec.Persona = d.persona
	}
	if rec.ID == "" {
		rec.ID = record.NewID("pact", file, strconv.FormatInt(idx, 10))
	}
	rec.SetExtra("source_file", file)
	if rec.Lang == "" {
		text := strings.Join([]string{rec.Scenario, it.Expectation, it.Preference}, " ")
		if r := lang.Default().Detect(text); r.Lang != "" && r.Confidence >= lang.MinConfidence {
			rec.Lang = r.Lang
		}
	}
}

// importErrorKey holds, in extra, why a field of an item could not be
// read, for CheckPactItems.
const importErrorKey = "pact_import_error"

// CheckPactItems is the stage of ngcat --from pact: an item with a bad
// field, or without what ngpact needs (record.CheckPact), fails with the
// reason (the errors file's "where" gives its file and line).
var CheckPactItems pipeline.Stage = pipeline.StageFunc{StageName: "import-pact",
	Fn: func(_ context.Context, rec *record.Record) ([]*record.Record, error) {
		var why string
		if json.Unmarshal(rec.Extra[importErrorKey], &why) == nil && why != "" {
			return nil, errors.New(why)
		}
		if err := record.CheckPact(rec); err != nil {
			return nil, err
		}
		return []*record.Record{rec}, nil
	}}

// scalar is a string, number or boolean as text; other values are errors.
func scalar(v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "", nil
	case string:
		return strings.TrimSpace(x), nil
	case json.Number:
		return x.String(), nil
	case bool:
		return strconv.FormatBool(x), nil
	}
	return "", errors.New("want a string or a number")
}

// setHuman sets the human share's follow_culture (a share 0-1, or a
// percentage with %) or n (a count).
func setHuman(h *record.HumanShare, field, s string) error {
	switch field {
	case "follow_culture", "follow":
		pct := strings.HasSuffix(s, "%")
		f, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(s, "%")), 64)
		if err != nil {
			return fmt.Errorf("follow_culture %q: want a share from 0 to 1, or a percentage", s)
		}
		if pct {
			f /= 100
		}
		if math.IsNaN(f) || f < 0 || f > 1 {
			return fmt.Errorf("follow_culture %s: want a share from 0 to 1, or a percentage", s)
		}
		h.FollowCulture = f
	case "n":
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return fmt.Errorf("n %q: want a count of people", s)
		}
		h.N = n
	default:
		return fmt.Errorf("unknown field %q (human has follow_culture and n)", field)
	}
	return nil
}
