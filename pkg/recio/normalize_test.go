package recio

import (
	"reflect"
	"sync"
)

// normalizeEmpty sets every empty slice and map reachable from v (through
// struct fields, pointers and slice elements) to nil.
//
// The tests compare what a columnar reader gives back with what was
// written by this, the columnar readers' rule for nil versus empty: an empty list or
// map reads back as nil, as it would from JSONL (the fields are omitempty).
// Pointers are kept as they are: a nil pointer reads back nil and a pointer
// to a zero struct reads back as a pointer to a zero struct.
func normalizeEmpty(v reflect.Value) {
	if f := normalizer(v.Type()); f != nil {
		f(v)
	}
}

var normalizers sync.Map // reflect.Type -> func(reflect.Value) (nil when nothing to do)

func normalizer(t reflect.Type) func(reflect.Value) {
	if f, ok := normalizers.Load(t); ok {
		return f.(func(reflect.Value))
	}
	f := buildNormalizer(t, map[reflect.Type]bool{})
	normalizers.Store(t, f)
	return f
}

func buildNormalizer(t reflect.Type, seen map[reflect.Type]bool) func(reflect.Value) {
	if seen[t] {
		// A recursive type: fall back to the dynamic walk.
		return func(v reflect.Value) {
			if f := normalizer(t); f != nil {
				f(v)
			}
		}
	}
	seen[t] = true
	defer delete(seen, t)
	switch t.Kind() {
	case reflect.Map:
		return func(v reflect.Value) {
			if v.Len() == 0 && !v.IsNil() {
				v.SetZero()
			}
		}
	case reflect.Slice:
		elem := buildNormalizer(t.Elem(), seen)
		return func(v reflect.Value) {
			if v.Len() == 0 {
				if !v.IsNil() {
					v.SetZero()
				}
				return
			}
			if elem != nil {
				for i := 0; i < v.Len(); i++ {
					elem(v.Index(i))
				}
			}
		}
	case reflect.Pointer:
		elem := buildNormalizer(t.Elem(), seen)
		if elem == nil {
			return nil
		}
		return func(v reflect.Value) {
			if !v.IsNil() {
				elem(v.Elem())
			}
		}
	case reflect.Struct:
		type field struct {
			i int
			f func(reflect.Value)
		}
		var fields []field
		for i := 0; i < t.NumField(); i++ {
			if !t.Field(i).IsExported() {
				continue
			}
			if f := buildNormalizer(t.Field(i).Type, seen); f != nil {
				fields = append(fields, field{i, f})
			}
		}
		if len(fields) == 0 {
			return nil
		}
		return func(v reflect.Value) {
			for _, f := range fields {
				f.f(v.Field(f.i))
			}
		}
	}
	return nil
}
