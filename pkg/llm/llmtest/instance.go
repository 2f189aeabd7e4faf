package llmtest

import (
	"encoding/json"
	"sort"
	"strings"
)

// Instance makes a small value that satisfies a simple JSON Schema
// (objects, arrays, strings, numbers, booleans, enum, const, anyOf/oneOf:
// the first branch; no $ref): the fake's default structured reply.
func Instance(schema json.RawMessage) any {
	var s map[string]any
	if json.Unmarshal(schema, &s) != nil {
		return map[string]any{}
	}
	return instance(s, "value")
}

func instance(s map[string]any, name string) any {
	if c, ok := s["const"]; ok {
		return c
	}
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		if alts, ok := s[k].([]any); ok && len(alts) > 0 {
			if a, ok := alts[0].(map[string]any); ok {
				return instance(a, name)
			}
		}
	}
	typ, _ := s["type"].(string)
	if ts, ok := s["type"].([]any); ok && len(ts) > 0 {
		typ, _ = ts[0].(string)
	}
	switch typ {
	case "object", "":
		props, _ := s["properties"].(map[string]any)
		out := map[string]any{}
		names := make([]string, 0, len(props))
		for n := range props {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			p, _ := props[n].(map[string]any)
			out[n] = instance(p, n)
		}
		return out
	case "array":
		n := 1
		if m, ok := s["minItems"].(float64); ok && int(m) > n {
			n = int(m)
		}
		items, _ := s["items"].(map[string]any)
		out := make([]any, n)
		for i := range out {
			out[i] = instance(items, name)
		}
		return out
	case "string":
		v := "fake " + name
		if m, ok := s["minLength"].(float64); ok && len(v) < int(m) {
			v += strings.Repeat("x", int(m)-len(v))
		}
		if m, ok := s["maxLength"].(float64); ok && len(v) > int(m) {
			v = v[:int(m)]
		}
		return v
	case "integer", "number":
		if m, ok := s["minimum"].(float64); ok {
			return m
		}
		if m, ok := s["maximum"].(float64); ok && m < 1 {
			return m
		}
		return 1
	case "boolean":
		return true
	case "null":
		return nil
	}
	return nil
}
