package record

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	json "github.com/goccy/go-json"
)

// recordFields is the alias that carries the struct tags without the
// custom methods, so encoding/json does the field work.
type recordFields Record

// knownKeys are the top-level JSON keys owned by Record.
var knownKeys = func() map[string]bool {
	m := map[string]bool{}
	for _, f := range JSONFields(Record{}) {
		m[f] = true
	}
	return m
}()

// knownFold holds the known keys lower-cased: the struct decoder matches
// keys case-insensitively, so a pass-through key such as "Culture" would
// otherwise overwrite the culture field as well as going to Extra.
var knownFold = func() map[string]bool {
	m := map[string]bool{}
	for k := range knownKeys {
		m[strings.ToLower(k)] = true
	}
	return m
}()

// MarshalJSON writes the known fields, then the Extra fields at top level
// in key order, so unknown input fields pass through unchanged.
func (r Record) MarshalJSON() ([]byte, error) { return r.AppendJSON(nil) }

// AppendJSON appends the record to dst as one compact JSON object, without
// HTML escaping (dialogue text keeps its < > &): the JSONL writer's fast
// path, which skips the Marshaler round trip.
func (r *Record) AppendJSON(dst []byte) ([]byte, error) {
	b, err := marshal((*recordFields)(r))
	if err != nil {
		return dst, err
	}
	if len(r.Extra) == 0 {
		return append(dst, b...), nil
	}
	keys := make([]string, 0, len(r.Extra))
	for k := range r.Extra {
		if !knownKeys[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	buf := bytes.NewBuffer(dst)
	buf.Grow(len(b) + 64*len(keys))
	buf.Write(b[:len(b)-1])
	for _, k := range keys {
		kb, _ := marshal(k)
		if buf.Len() > len(dst)+1 {
			buf.WriteByte(',')
		}
		buf.Write(kb)
		buf.WriteByte(':')
		v := r.Extra[k]
		if len(v) == 0 {
			v = json.RawMessage("null")
		}
		if err := json.Compact(buf, v); err != nil {
			return dst, fmt.Errorf("extra field %q: %w", k, err)
		}
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// UnmarshalJSON reads the known fields and keeps every other top-level key
// in Extra. A key named "extra" holding an object (or a JSON string of an
// object, as columnar formats store it) is merged into Extra.
//
// Most records' top-level keys are all spelled exactly as fields (or are
// "extra"): for those, one scan of the top level (topLevel) finds the other
// keys' values and the struct decoder reads the fields, without the map of
// every value that the general path (unmarshalGeneral) decodes first. The
// two decode every input alike (FuzzFastPathAgrees).
func (r *Record) UnmarshalJSON(b []byte) error {
	var spans [24]keySpan
	top, ok := topLevel(b, spans[:0])
	if !ok {
		return r.unmarshalGeneral(b)
	}
	for _, kv := range top {
		if !knownKeys[kv.key] && knownFold[strings.ToLower(kv.key)] {
			return r.unmarshalGeneral(b)
		}
	}
	*r = Record{}
	if err := json.Unmarshal(b, (*recordFields)(r)); err != nil {
		return err
	}
	var extra json.RawMessage
	for _, kv := range top {
		switch {
		case knownKeys[kv.key]:
		case kv.key == "extra":
			extra = kv.val
		default:
			if !json.Valid(kv.val) {
				return r.unmarshalGeneral(b) // for the general path's error
			}
			if r.Extra == nil {
				r.Extra = make(map[string]json.RawMessage)
			}
			r.Extra[kv.key] = append(json.RawMessage(nil), kv.val...)
		}
	}
	if extra != nil {
		return r.mergeExtra(extra) // after the top-level keys, which win
	}
	return nil
}

// keySpan is a top-level key of a JSON object and its value's bytes.
type keySpan struct {
	key string
	val []byte
}

// topLevel appends the keys and values of the JSON object b to dst, in
// order. It reports false where b is not a single object, or a key is not
// plain (the general path decodes those). It checks the structure only
// (strings, nesting); the values are validated by their decoders.
func topLevel(b []byte, dst []keySpan) ([]keySpan, bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return dst, false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return dst, skipSpace(b, i+1) == len(b)
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return dst, false
		}
		end := stringEnd(b, i)
		if end < 0 {
			return dst, false
		}
		key := b[i+1 : end-1]
		if !plainKey(key) {
			return dst, false
		}
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return dst, false
		}
		i = skipSpace(b, i+1)
		vend := valueEnd(b, i)
		if vend < 0 {
			return dst, false
		}
		dst = append(dst, keySpan{string(key), b[i:vend]})
		i = skipSpace(b, vend)
		if i >= len(b) {
			return dst, false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return dst, skipSpace(b, i+1) == len(b)
		default:
			return dst, false
		}
	}
}

// plainKey: a key the general path decodes to its bytes (no escape, valid
// UTF-8, no control characters; goccy replaces invalid bytes).
func plainKey(k []byte) bool {
	for _, c := range k {
		if c < 0x20 || c == '\\' {
			return false
		}
	}
	return utf8.Valid(k)
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd is the index after the closing quote of the string at b[i]
// (a quote), or -1 if it does not close. Quotes are found with
// bytes.IndexByte, not byte by byte: most of a record is string bytes.
func stringEnd(b []byte, i int) int {
	for j := i + 1; ; {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1
		}
		q := j + k
		n := 0 // the backslashes before the quote: an odd count escapes it
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
}

// valueEnd is the index after the JSON value at b[i], -1 if it does not
// end: strings and nesting are followed, scalars run to a delimiter.
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end := stringEnd(b, j)
				if end < 0 {
					return -1
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\n' && b[j] != '\t' && b[j] != '\r' {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

// unmarshalGeneral decodes every top-level value into a map first: for
// keys with escapes or in another case than a field's, and for the errors
// of malformed input.
func (r *Record) unmarshalGeneral(b []byte) error {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		return err
	}
	if top == nil {
		return fmt.Errorf("record is null, want an object")
	}
	*r = Record{}
	fields := b
	for k := range top {
		if !knownKeys[k] && knownFold[strings.ToLower(k)] {
			fields = exactKnown(top)
			break
		}
	}
	if err := json.Unmarshal(fields, (*recordFields)(r)); err != nil {
		return err
	}
	for k, v := range top {
		if knownKeys[k] {
			continue
		}
		if k == "extra" {
			if err := r.mergeExtra(v); err != nil {
				return err
			}
			continue
		}
		if r.Extra == nil {
			r.Extra = make(map[string]json.RawMessage)
		}
		r.Extra[k] = v
	}
	return nil
}

// exactKnown is the object of top's known keys only, spelled exactly, for
// the struct decoder; the other keys go to Extra.
func exactKnown(top map[string]json.RawMessage) []byte {
	m := make(map[string]json.RawMessage, len(top))
	for k, v := range top {
		if knownKeys[k] {
			m[k] = v
		}
	}
	b, _ := json.Marshal(m) // re-encoding values that were just decoded
	return b
}

func (r *Record) mergeExtra(v json.RawMessage) error {
	v = bytes.TrimSpace(v)
	if len(v) > 0 && v[0] == '"' {
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return err
		}
		v = []byte(s)
	}
	if len(v) == 0 || bytes.Equal(v, []byte("null")) {
		return nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(v, &m); err != nil {
		return fmt.Errorf("field extra: want a JSON object: %w", err)
	}
	if r.Extra == nil && len(m) > 0 {
		r.Extra = make(map[string]json.RawMessage, len(m))
	}
	for k, x := range m {
		if _, dup := r.Extra[k]; !dup {
			r.Extra[k] = x
		}
	}
	return nil
}

// EncodeExtra fills ExtraJSON from Extra, for columnar writers.
func (r *Record) EncodeExtra() error {
	if len(r.Extra) == 0 {
		r.ExtraJSON = ""
		return nil
	}
	b, err := marshal(r.Extra) // map keys are sorted, as by encoding/json
	if err != nil {
		return fmt.Errorf("extra: %w", err)
	}
	r.ExtraJSON = string(b)
	return nil
}

// DecodeExtra fills Extra from ExtraJSON, for columnar readers.
func (r *Record) DecodeExtra() error {
	s := r.ExtraJSON
	r.ExtraJSON = ""
	r.Extra = nil
	if s == "" {
		return nil
	}
	return r.mergeExtra(json.RawMessage(s))
}

// ExtraString returns the extra field k when it is a JSON string.
func (r *Record) ExtraString(k string) (string, bool) {
	v, ok := r.Extra[k]
	if !ok {
		return "", false
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return "", false
	}
	return s, true
}

// SetExtra stores v (marshalled to JSON) as the extra field k.
func (r *Record) SetExtra(k string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("record: SetExtra %q: %v", k, err)) // only for values that always marshal
	}
	if r.Extra == nil {
		r.Extra = make(map[string]json.RawMessage)
	}
	r.Extra[k] = b
}

// marshal is json.Marshal without HTML escaping, so dialogue text keeps its
// < > & readable.
func marshal(v any) ([]byte, error) { return json.MarshalWithOption(v, json.DisableHTMLEscape()) }
