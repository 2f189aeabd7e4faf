package recio

import (
	"encoding/json"
	"testing"
)

// TestJSONLMapsAsKeyValueLists: a JSONL line whose maps are lists of
// {key, value}, as datasets' to_json writes a dataset loaded from ngkit's
// Parquet or --hf folder (datasets 5.2, found by scripts/interop-py.sh),
// reads as the record with those maps; numbers keep every digit; a list
// that is not of {key, value} is still an error naming the field.
func TestJSONLMapsAsKeyValueLists(t *testing.T) {
	line := `{"id":"a","persona":[{"key":"age","value":"30-49"}],"turns":[{"index":0,"speaker":"A","text":"Hi.","labels":{"norm":"adhered","norm_dist":[{"key":"adhered","value":0.980926953556466},{"key":"violated","value":0.019073046443534}],"intent_dist":[]}}],"quality":{"norm":4,"explanations":[{"key":"norm","value":"ok <b>&"}]},"extra":"{\"meta\":{\"tags\":[{\"key\":\"k\",\"value\":1}]}}"}`
	rec, err := DecodeJSONL("x.jsonl", 1, []byte(line))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := rec.AppendJSON(nil)
	want := `{"id":"a","turns":[{"index":0,"speaker":"A","text":"Hi.","labels":{"norm":"adhered","norm_dist":{"adhered":0.980926953556466,"violated":0.019073046443534}}}],"quality":{"norm":4,"explanations":{"norm":"ok <b>&"}},"persona":{"age":"30-49"},"meta":{"tags":[{"key":"k","value":1}]}}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	var back map[string]any
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{
		`{"id":"b","persona":[{"key":"age"}]}`,
		`{"id":"b","persona":["30-49"]}`,
		`{"id":"b","turns":[{"labels":{"norm_dist":[{"key":"adhered","value":"high"}]}}]}`,
	} {
		if _, err := DecodeJSONL("x.jsonl", 3, []byte(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		} else {
			checkReadError(t, bad, err)
		}
	}
}
