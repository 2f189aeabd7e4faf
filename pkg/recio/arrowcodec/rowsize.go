package arrowcodec

import (
	"reflect"
	"sync"
)

// RowSizer returns the function estimating the uncompressed size of a row
// of type t, as PLAIN encoding would store it: the length of each string
// plus 4, 8 bytes per number, 1 per bool, for every value reachable through
// fields, pointers, slices and maps. Fields tagged parquet:"-" are skipped.
// It is cheap and approximate, for sizing row groups and record batches.
func RowSizer(t reflect.Type) func(reflect.Value) int64 {
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
		return func(v reflect.Value) int64 { return RowSizer(t)(v) }
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
			return RowSizer(v.Elem().Type())(v.Elem())
		}
	}
	return func(reflect.Value) int64 { return 8 }
}
