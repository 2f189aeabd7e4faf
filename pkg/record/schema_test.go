package record

import (
	"bytes"
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/schemas"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

type node map[string]any

// TestSchemaMatchesTypes walks schemas/record.schema.json and the Go types
// together: a field added on one side only, or with another JSON type,
// fails the test.
func TestSchemaMatchesTypes(t *testing.T) {
	var root node
	if err := json.Unmarshal(schemas.Record(), &root); err != nil {
		t.Fatal(err)
	}
	props := root["properties"].(map[string]any)
	if _, ok := props["extra"]; !ok {
		t.Error("schema: no extra property")
	}
	delete(props, "extra") // Extra is json:"-": flattened at top level
	compare(t, "record", reflect.TypeOf(Record{}), root)
}

func compare(t *testing.T, path string, typ reflect.Type, s node) {
	t.Helper()
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	want := schemaType(typ)
	got := s["type"]
	if got != want {
		t.Errorf("%s: schema type %v, Go type %s wants %q", path, got, typ, want)
		return
	}
	switch typ.Kind() {
	case reflect.Struct:
		props, _ := s["properties"].(map[string]any)
		goFields := map[string]reflect.Type{}
		for i := 0; i < typ.NumField(); i++ {
			f := typ.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" || !f.IsExported() {
				continue
			}
			goFields[name] = f.Type
		}
		var names []string
		for n := range goFields {
			names = append(names, n)
		}
		for n := range props {
			if _, ok := goFields[n]; !ok {
				t.Errorf("%s.%s: in the schema, not in the Go type %s", path, n, typ)
			}
		}
		sort.Strings(names)
		for _, n := range names {
			p, ok := props[n].(map[string]any)
			if !ok {
				t.Errorf("%s.%s: in the Go type %s, not in the schema", path, n, typ)
				continue
			}
			compare(t, path+"."+n, goFields[n], p)
		}
	case reflect.Slice:
		compare(t, path+"[]", typ.Elem(), node(s["items"].(map[string]any)))
	case reflect.Map:
		compare(t, path+"{}", typ.Elem(), node(s["additionalProperties"].(map[string]any)))
	}
}

func schemaType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "integer"
	case reflect.Float64, reflect.Float32:
		return "number"
	case reflect.Bool:
		return "boolean"
	case reflect.Slice:
		return "array"
	}
	return "object"
}

// Full returns a record with every field set, for round-trip tests.
func Full() *Record {
	yes := true
	return &Record{
		ID: "r1", ParentID: "p1", Culture: "korean", Lang: "ko", Category: "apology",
		NormID: "n1", Norm: "윗사람에게 사과할 때는 변명 없이 바로 사과한다.", DialogueType: TypeV2R,
		Scenario: "회의실에서", Situation: "상민은 <발표> 중 & 실수했다.",
		Refinement: &Refinement{Rounds: 2, Before: &Scores{3, 4, 0}, After: &Scores{5, 5, 4},
			ExemplarIDs: []string{"e1", "e2"}, Accepted: true, Critique: "ok"},
		Turns: []Turn{
			{Index: 0, Speaker: "수진", Action: "손을 들며", Text: "상민 씨, 이유가 있나요?", Lang: "ko", Stage: "context",
				Labels: &Labels{Norm: "not_relevant", Intent: "QUE", Emotion: "neutral", Stage: "context", Safety: "casual",
					Rots: []string{"It's good to ask."}, Explanation: "질문", NormDist: map[string]float64{"not_relevant": 1},
					IntentDist: map[string]float64{"QUE": 0.5, "CRT": 0.5}, EmotionDist: map[string]float64{"neutral": 1},
					StageDist: map[string]float64{"context": 1}, SafetyDist: map[string]float64{"casual": 1}, Agreement: 0.5}},
			{Index: 1, Speaker: "상민", Text: "죄송합니다.", Stage: "repair"},
		},
		Narration:   []string{"회의실에 잠시 적막이 흐른다."},
		NarrationAt: []int{1},
		LabelsMeta:  &LabelsMeta{Model: "m", Tasks: []string{"norm", "intent"}, Samples: 3, Agreement: 0.8, Kappa: 0.6},
		Quality: &Quality{Consistency: 5, Naturalness: 4, Relevance: 5, Coherence: 4, Emotion: 3, Norm: 3, Fit: 4,
			Explanations: map[string]string{"norm": "violated then resolved"}},
		Checks: &Checks{LangExpected: "ko", LangOK: &yes, LangShare: 1, Defects: []string{DefectEndMarker}, Unplaced: []string{"???"}},
		Gen:    []Gen{{Stage: "ngv2r", Call: "dialogue", Model: "m", PromptPack: "v1", TokensIn: 10, TokensOut: 20, CacheHit: true, Retries: 1, Seconds: 0.5}},
		Extra:  map[string]json.RawMessage{"source": json.RawMessage(`{"file":"x.json","n":[1,2]}`), "note": json.RawMessage(`"<keep & this>"`)},
	}
}

// compileSchema compiles the published record schema.
func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemas.Record()))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource("record.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("record.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

func TestFullRecordValidatesAgainstSchema(t *testing.T) {
	sch := compileSchema(t)
	b, err := json.Marshal(Full())
	if err != nil {
		t.Fatal(err)
	}
	v, _ := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err := sch.Validate(v); err != nil {
		t.Errorf("full record does not validate: %v", err)
	}
	// And the schema rejects what Validate rejects.
	bad := Full()
	bad.Turns[0].Labels.Intent = "LOL"
	b, _ = json.Marshal(bad)
	v, _ = jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if sch.Validate(v) == nil {
		t.Error("schema accepted an unknown intent")
	}
	if bad.Validate() == nil {
		t.Error("Validate accepted an unknown intent")
	}
}

// Every question framing ngpact writes is one the published schema
// accepts (its enum once lacked personal, the paper's default), and the
// schema accepts no other.
func TestSchemaPactQuestions(t *testing.T) {
	sch := compileSchema(t)
	p := 0.5
	validates := func(q string) bool {
		rec := Full()
		rec.Pact = []PactResult{{Model: "m", Question: q, Method: "logprobs", PFollow: &p, Samples: 1, Valid: 1, Majority: PactFollow}}
		b, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		v, _ := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		return sch.Validate(v) == nil
	}
	for _, q := range PactQuestions {
		if !validates(q) {
			t.Errorf("the schema refuses a PACT result with question %q", q)
		}
	}
	if validates("vibes") {
		t.Error("the schema accepts an unknown question framing")
	}
}

// TestLabelTasksAgreeWithSchemas holds the schemas' label lists to the
// table (LabelTasks): each row's values are the enum of its field in
// labels and labels_human (record.schema.json) and in the label_turns
// reply (schemas/llm), by_model and the *_dist shares have its field, and
// the row's accessors point at the fields of its name.
func TestLabelTasksAgreeWithSchemas(t *testing.T) {
	var root node
	if err := json.Unmarshal(schemas.Record(), &root); err != nil {
		t.Fatal(err)
	}
	props := func(n node, path ...string) node {
		for _, p := range path {
			next, _ := n[p].(map[string]any)
			n = next
		}
		return n
	}
	turn := props(root, "properties", "turns", "items", "properties")
	raw, err := schemas.LLM("label_turns")
	if err != nil {
		t.Fatal(err)
	}
	var reply node
	if err := json.Unmarshal(raw, &reply); err != nil {
		t.Fatal(err)
	}
	entry := props(reply, "properties", "turns", "items", "properties")
	enum := func(where string, p node, want []string) {
		var got []string
		for _, v := range p["enum"].([]any) {
			got = append(got, v.(string))
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: enum %v, the table's values %v", where, got, want)
		}
	}
	for _, task := range LabelTasks {
		for _, place := range []struct {
			where string
			p     node
		}{
			{"record.schema.json turns[].labels." + task.Name, props(turn, "labels", "properties", task.Name)},
			{"record.schema.json turns[].labels_human." + task.Name, props(turn, "labels_human", "properties", task.Name)},
			{"llm/label_turns.schema.json turns[]." + task.Name, props(entry, task.Name)},
		} {
			if _, ok := place.p["enum"].([]any); !ok {
				t.Errorf("%s: not in the schema", place.where)
				continue
			}
			enum(place.where, place.p, task.Values)
		}
		if props(turn, "labels", "properties", task.Name+"_dist") == nil {
			t.Errorf("record.schema.json turns[].labels.%s_dist: not in the schema", task.Name)
		}
		if props(turn, "labels", "properties", "by_model", "items", "properties", task.Name) == nil {
			t.Errorf("record.schema.json turns[].labels.by_model[].%s: not in the schema", task.Name)
		}
		// The accessors write the fields that carry the task's name.
		var l Labels
		*task.Field(&l), *task.Dist(&l) = task.Values[0], map[string]float64{task.Values[0]: 1}
		var m ModelLabels
		*task.ByModel(&m) = task.Values[0]
		for _, c := range []struct {
			v    any
			want string
		}{{l, `"` + task.Name + `":`}, {l, `"` + task.Name + `_dist":`}, {m, `"` + task.Name + `":`}} {
			if b, _ := json.Marshal(c.v); !strings.Contains(string(b), c.want) {
				t.Errorf("%s: the row's accessors do not write %s: %s", task.Name, c.want, b)
			}
		}
		if task.Column != nil {
			var r TurnRow
			*task.Column(&r) = task.Values[0]
			if b, _ := json.Marshal(r); !strings.Contains(string(b), `"label_`+task.Name+`":`) {
				t.Errorf("%s: Column does not write label_%s: %s", task.Name, task.Name, b)
			}
		}
	}
}
