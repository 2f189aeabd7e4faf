package record

import (
	stdjson "encoding/json"
	"errors"
	"reflect"
	"testing"
)

// stdDecode is the reference: the same rules as UnmarshalJSON, with the
// standard library's decoder. goccy/go-json (used for speed) must agree.
// Top-level keys are matched exactly: only keys spelled as a field fill it.
func stdDecode(b []byte) (*Record, error) {
	var top map[string]stdjson.RawMessage
	if err := stdjson.Unmarshal(b, &top); err != nil {
		return nil, err
	}
	if top == nil {
		return nil, errors.New("record is null")
	}
	known := map[string]stdjson.RawMessage{}
	for k, v := range top {
		if knownKeys[k] {
			known[k] = v
		}
	}
	fields, _ := stdjson.Marshal(known)
	r := &Record{}
	if err := stdjson.Unmarshal(fields, (*recordFields)(r)); err != nil {
		return nil, err
	}
	for k, v := range top {
		if !knownKeys[k] && k != "extra" {
			if r.Extra == nil {
				r.Extra = map[string]stdjson.RawMessage{}
			}
			r.Extra[k] = v
		}
	}
	return r, nil
}

func FuzzJSONAgreesWithStdlib(f *testing.F) {
	b, _ := marshal(Full())
	f.Add(b)
	f.Add([]byte(`{"id":"a","turns":[{"index":0,"speaker":"A","text":"\u00e9\ud83d\ude00"}],"x":1.5e3}`))
	f.Add([]byte(`{"id":"a","turns":null,"quality":{"norm":3.0}}`))
	f.Add([]byte(`{"id":"a","id":"b"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		want, werr := stdDecode(b)
		var got Record
		gerr := got.UnmarshalJSON(b)
		if (werr == nil) != (gerr == nil) {
			// goccy may be stricter or looser on malformed input; only a
			// disagreement on valid JSON matters.
			if stdjson.Valid(b) {
				t.Fatalf("std err %v, goccy err %v on %q", werr, gerr, b)
			}
			return
		}
		if werr != nil {
			return
		}
		normalise := func(r *Record) {
			for k, v := range r.Extra {
				var x any
				stdjson.Unmarshal(v, &x)
				c, _ := stdjson.Marshal(x)
				r.Extra[k] = c
			}
		}
		normalise(want)
		normalise(&got)
		if !reflect.DeepEqual(want, &got) {
			t.Fatalf("decoders disagree on %q:\nstd   %+v\ngoccy %+v", b, want, &got)
		}
	})
}

// The fast path of UnmarshalJSON (one scan of the top level, then the
// struct decoder) decodes every input as the general path does: the same
// record, or an error from both.
func FuzzFastPathAgrees(f *testing.F) {
	b, _ := marshal(Full())
	f.Add(b)
	f.Add([]byte(`{"id":"a","extra":{"x":1,"y":[2]},"x":"top","z":{"k":"}"}}`))
	f.Add([]byte(`{"id":"a","extra":"{\"x\":1}","Culture":"ko","cul\u0074ure":"zh"}`))
	f.Add([]byte(` { "id" : "a" , "u" : [1,}, "v":tru } `))
	f.Add([]byte(`{"id":"a","id":"b","q":1,"q":2,"extra":null}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var fast, general Record
		ferr := fast.UnmarshalJSON(b)
		gerr := general.unmarshalGeneral(b)
		if (ferr == nil) != (gerr == nil) {
			t.Fatalf("fast path err %v, general err %v on %q", ferr, gerr, b)
		}
		if ferr == nil && !reflect.DeepEqual(fast, general) {
			t.Fatalf("paths disagree on %q:\nfast    %+v\ngeneral %+v", b, fast, general)
		}
	})
}
