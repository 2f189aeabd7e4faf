package recio

import (
	"reflect"
	"sync"
)

// normalizeEmpty sets every empty slice and map reachable from v (through
// struct fields, pointers and slice elements) to nil.
//
// This is the columnar readers' rule for nil versus empty: an empty list or
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

// rowSizer returns the function estimating the uncompressed size of a row
// of type t, as PLAIN encoding would store it: the length of each string
// plus 4, 8 bytes per number, 1 per bool, for every value reachable through
// fields, pointers, slices and maps. Fields tagged parquet:"-" are skipped.
// It is cheap and approximate, for sizing row groups and record batches.
func rowSizer(t reflect.Type) func(reflect.Value) int64 {
	if f, ok := sizers.Load(t); ok {
		return f.(func(reflect.Value) int64)
	}
	f := buildSizer(t, map[reflect.Type]bool{})
	sizers.Store(t, f)
	return f
}

var sizers sync.Map // reflect.Type -> func(reflect.Value) int64

var (
	mapStringFloat  = reflect.TypeFor[map[string]float64]()
	mapStringString = reflect.TypeFor[map[string]string]()
)

func buildSizer(t reflect.Type, seen map[reflect.Type]bool) func(reflect.Value) int64 {
	if seen[t] {
		return func(v reflect.Value) int64 { return rowSizer(t)(v) }
	}
	seen[t] = true
	defer delete(seen, t)
	switch t.Kind() {
	case reflect.String:
		return func(v reflect.Value) int64 { return int64(v.Len()) + 4 }
	case reflect.Bool:
		return func(reflect.Value) int64 { return 1 }
	case reflect.Pointer:
		elem := buildSizer(t.Elem(), seen)
		return func(v reflect.Value) int64 {
			if v.IsNil() {
				return 1
			}
			return elem(v.Elem())
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return func(v reflect.Value) int64 { return int64(v.Len()) + 4 }
		}
		elem := buildSizer(t.Elem(), seen)
		return func(v reflect.Value) int64 {
			n := int64(1)
			for i := 0; i < v.Len(); i++ {
				n += elem(v.Index(i))
			}
			return n
		}
	case reflect.Map:
		// The label distributions: no reflection per entry.
		if t.Key().Kind() == reflect.String && t.Elem().Kind() == reflect.Float64 {
			return func(v reflect.Value) int64 {
				n := int64(1)
				for k := range v.Convert(mapStringFloat).Interface().(map[string]float64) {
					n += int64(len(k)) + 12
				}
				return n
			}
		}
		if t.Key().Kind() == reflect.String && t.Elem().Kind() == reflect.String {
			return func(v reflect.Value) int64 {
				n := int64(1)
				for k, x := range v.Convert(mapStringString).Interface().(map[string]string) {
					n += int64(len(k)+len(x)) + 8
				}
				return n
			}
		}
		key, elem := buildSizer(t.Key(), seen), buildSizer(t.Elem(), seen)
		return func(v reflect.Value) int64 {
			n := int64(1)
			for it := v.MapRange(); it.Next(); {
				n += key(it.Key()) + elem(it.Value())
			}
			return n
		}
	case reflect.Struct:
		type field struct {
			i int
			f func(reflect.Value) int64
		}
		var fields []field
		for i := 0; i < t.NumField(); i++ {
			sf := t.Field(i)
			if !sf.IsExported() || sf.Tag.Get("parquet") == "-" {
				continue
			}
			fields = append(fields, field{i, buildSizer(sf.Type, seen)})
		}
		return func(v reflect.Value) int64 {
			var n int64
			for _, f := range fields {
				n += f.f(v.Field(f.i))
			}
			return n
		}
	case reflect.Interface:
		return func(v reflect.Value) int64 {
			if v.IsNil() {
				return 1
			}
			return rowSizer(v.Elem().Type())(v.Elem())
		}
	}
	return func(reflect.Value) int64 { return 8 }
}
