// Package arrowcodec is the Arrow form of a Go row type, which the Arrow
// IPC and the Parquet readers and writers of pkg/recio share: the schema
// derived from a struct's tags (SchemaOf), the rows turned into record
// batches of a bounded size (Builder), and record batches decoded into
// record.Record (Decoder), tolerant of the types other writers use.
package arrowcodec

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// arrowCol is a top-level column of a row type.
type arrowCol struct {
	index int // Go field index
	enc   encoderFactory
}

// An encoderFactory binds an encoder to the builder of its column; the
// encoder appends one Go value. An encoder that defers appends registers a
// function in fl that does them; the batch builder calls those before it
// takes a batch.
type encoderFactory func(b array.Builder, fl *flushers) func(reflect.Value)

// flushers complete the deferred appends of a batch's encoders.
type flushers []func()

// SchemaOf maps a struct type to an Arrow schema:
//
//	string -> utf8, []byte -> binary, bool -> bool,
//	int, int8..int64 -> int64, uint.. -> uint64, float32 -> float32,
//	float64 -> float64, []T -> list<item: T> (items non-nullable unless
//	T is a pointer), map[string]T -> list<item: struct<key: utf8,
//	value: T>> (see mapListType), struct and *struct -> struct, *T -> T
//	(nullable).
//
// A field's name is its parquet tag name, else its json tag name, else the
// Go name; fields tagged parquet:"-" (or json:"-" without a parquet tag) are
// skipped. A field tagged `optional` (parquet) or `omitempty` (json) is
// nullable and its zero value — "", 0, false, an empty list or map — is
// written as null, as parquet-go does for optional columns; a pointer is
// nullable and only nil is null (a pointer to false is false). Map keys are
// written in sorted order, so output is deterministic.
func SchemaOf(t reflect.Type) (*arrow.Schema, error) {
	s, _, err := schemaOf(t)
	return s, err
}

// schemaOf is SchemaOf with the encoders of the columns.
func schemaOf(t reflect.Type) (*arrow.Schema, []arrowCol, error) {
	if t.Kind() != reflect.Struct {
		return nil, nil, fmt.Errorf("arrow: cannot write rows of type %v: want a struct", t)
	}
	fields, encs, idx, err := structFieldsOf(t, map[reflect.Type]bool{})
	if err != nil {
		return nil, nil, fmt.Errorf("arrow: schema of %v: %w", t, err)
	}
	cols := make([]arrowCol, len(fields))
	for i := range fields {
		cols[i] = arrowCol{index: idx[i], enc: encs[i]}
	}
	return arrow.NewSchema(fields, nil), cols, nil
}

// ColumnTag returns the column name of a struct field, whether it is
// optional, and whether it is skipped.
func ColumnTag(sf reflect.StructField) (name string, optional, skip bool) {
	if !sf.IsExported() {
		return "", false, true
	}
	ptag, hasP := sf.Tag.Lookup("parquet")
	jparts := strings.Split(sf.Tag.Get("json"), ",")
	if hasP {
		parts := strings.Split(ptag, ",")
		if parts[0] == "-" {
			return "", false, true
		}
		name = parts[0]
		optional = slices.Contains(parts[1:], "optional")
	} else if jparts[0] == "-" {
		return "", false, true
	}
	if name == "" {
		name = jparts[0]
	}
	if name == "" {
		name = sf.Name
	}
	optional = optional || slices.Contains(jparts[1:], "omitempty")
	return name, optional, false
}

func structFieldsOf(t reflect.Type, seen map[reflect.Type]bool) ([]arrow.Field, []encoderFactory, []int, error) {
	if seen[t] {
		return nil, nil, nil, fmt.Errorf("recursive type %v", t)
	}
	seen[t] = true
	defer delete(seen, t)
	var (
		fields []arrow.Field
		encs   []encoderFactory
		idx    []int
	)
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		name, optional, skip := ColumnTag(sf)
		if skip {
			continue
		}
		dt, nullable, enc, err := arrowTypeOf(sf.Type, optional, seen)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("field %s: %w", name, err)
		}
		fields = append(fields, arrow.Field{Name: name, Type: dt, Nullable: nullable})
		encs = append(encs, enc)
		idx = append(idx, i)
	}
	if len(fields) == 0 {
		return nil, nil, nil, fmt.Errorf("%v has no exported fields", t)
	}
	return fields, encs, idx, nil
}

// scalarEncoder is the encoder of a scalar column: get reads a value and
// whether it is set (not zero); an unset value is null when optional.
func scalarEncoder[T any, B interface {
	Append(T)
	AppendNull()
}](optional bool, get func(reflect.Value) (T, bool)) encoderFactory {
	return func(b array.Builder, fl *flushers) func(reflect.Value) {
		bb := b.(B)
		return func(v reflect.Value) {
			if x, set := get(v); set || !optional {
				bb.Append(x)
			} else {
				bb.AppendNull()
			}
		}
	}
}

// arrowTypeOf compiles the Arrow type of Go type t and its encoder (one
// codec per kind: scalars here, the others below). optional makes zero
// values null.
func arrowTypeOf(t reflect.Type, optional bool, seen map[reflect.Type]bool) (arrow.DataType, bool, encoderFactory, error) {
	switch t.Kind() {
	case reflect.String:
		return arrow.BinaryTypes.String, optional, scalarEncoder[string, *array.StringBuilder](optional,
			func(v reflect.Value) (string, bool) { s := v.String(); return s, s != "" }), nil
	case reflect.Bool:
		return arrow.FixedWidthTypes.Boolean, optional, scalarEncoder[bool, *array.BooleanBuilder](optional,
			func(v reflect.Value) (bool, bool) { x := v.Bool(); return x, x }), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return arrow.PrimitiveTypes.Int64, optional, scalarEncoder[int64, *array.Int64Builder](optional,
			func(v reflect.Value) (int64, bool) { x := v.Int(); return x, x != 0 }), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return arrow.PrimitiveTypes.Uint64, optional, scalarEncoder[uint64, *array.Uint64Builder](optional,
			func(v reflect.Value) (uint64, bool) { x := v.Uint(); return x, x != 0 }), nil
	case reflect.Float32:
		return arrow.PrimitiveTypes.Float32, optional, scalarEncoder[float32, *array.Float32Builder](optional,
			func(v reflect.Value) (float32, bool) { x := v.Float(); return float32(x), x != 0 }), nil
	case reflect.Float64:
		return arrow.PrimitiveTypes.Float64, optional, scalarEncoder[float64, *array.Float64Builder](optional,
			func(v reflect.Value) (float64, bool) { x := v.Float(); return x, x != 0 }), nil
	case reflect.Pointer:
		return pointerCodec(t, seen)
	case reflect.Slice:
		return sliceCodec(t, optional, seen)
	case reflect.Map:
		return mapCodec(t, optional, seen)
	case reflect.Struct:
		return structCodec(t, seen)
	}
	return nil, false, nil, fmt.Errorf("unsupported Go type %v", t)
}

// pointerCodec: a nil pointer is null.
func pointerCodec(t reflect.Type, seen map[reflect.Type]bool) (arrow.DataType, bool, encoderFactory, error) {
	dt, _, elem, err := arrowTypeOf(t.Elem(), false, seen)
	if err != nil {
		return nil, false, nil, err
	}
	if t.Elem().Kind() == reflect.Struct {
		// A null struct appends a null to each of its children, and
		// theirs: a turn's two unset label sets are some thirty
		// appends. So a run of nulls is appended at once, before the
		// next struct or when the batch is taken.
		return dt, true, func(b array.Builder, fl *flushers) func(reflect.Value) {
			enc := elem(b, fl)
			nulls := 0
			flush := func() {
				if nulls > 0 {
					b.AppendNulls(nulls)
					nulls = 0
				}
			}
			*fl = append(*fl, flush)
			return func(v reflect.Value) {
				if v.IsNil() {
					nulls++
					return
				}
				flush()
				enc(v.Elem())
			}
		}, nil
	}
	return dt, true, func(b array.Builder, fl *flushers) func(reflect.Value) {
		enc := elem(b, fl)
		return func(v reflect.Value) {
			if v.IsNil() {
				b.AppendNull()
			} else {
				enc(v.Elem())
			}
		}
	}, nil
}

// sliceCodec: []byte is Binary, other slices lists; an empty optional
// slice is null.
func sliceCodec(t reflect.Type, optional bool, seen map[reflect.Type]bool) (arrow.DataType, bool, encoderFactory, error) {
	if t.Elem().Kind() == reflect.Uint8 {
		return arrow.BinaryTypes.Binary, optional, func(b array.Builder, fl *flushers) func(reflect.Value) {
			bb := b.(*array.BinaryBuilder)
			return func(v reflect.Value) {
				if v.Len() > 0 || !optional {
					bb.Append(v.Bytes())
				} else {
					bb.AppendNull()
				}
			}
		}, nil
	}
	et, enull, elem, err := arrowTypeOf(t.Elem(), false, seen)
	if err != nil {
		return nil, false, nil, err
	}
	return arrow.ListOfField(arrow.Field{Name: "item", Type: et, Nullable: enull}), optional, func(b array.Builder, fl *flushers) func(reflect.Value) {
		lb := b.(*array.ListBuilder)
		enc := elem(lb.ValueBuilder(), fl)
		return func(v reflect.Value) {
			n := v.Len()
			if n == 0 && optional {
				lb.AppendNull()
				return
			}
			lb.Append(true)
			for i := 0; i < n; i++ {
				enc(v.Index(i))
			}
		}
	}, nil
}

// mapCodec: a map is a list of {key, value} structs sorted by key
// (mapListType); an empty optional map is null.
func mapCodec(t reflect.Type, optional bool, seen map[reflect.Type]bool) (arrow.DataType, bool, encoderFactory, error) {
	if t.Key().Kind() != reflect.String {
		return nil, false, nil, fmt.Errorf("unsupported map key type %v (want string)", t.Key())
	}
	it, inull, item, err := arrowTypeOf(t.Elem(), false, seen)
	if err != nil {
		return nil, false, nil, err
	}
	lt := mapListType(it, inull)
	switch t.Elem().Kind() {
	case reflect.Float64: // the label distributions: no reflection per entry
		return lt, optional, mapEncoder(optional, mapStringFloat, func(b array.Builder) func(float64) {
			return b.(*array.Float64Builder).Append
		}), nil
	case reflect.String:
		return lt, optional, mapEncoder(optional, mapStringString, func(b array.Builder) func(string) {
			return b.(*array.StringBuilder).Append
		}), nil
	}
	return lt, optional, func(b array.Builder, fl *flushers) func(reflect.Value) {
		lb := b.(*array.ListBuilder)
		sb := lb.ValueBuilder().(*array.StructBuilder)
		kb := sb.FieldBuilder(0).(*array.StringBuilder)
		enc := item(sb.FieldBuilder(1), fl)
		var keys []reflect.Value
		return func(v reflect.Value) {
			n := v.Len()
			if n == 0 && optional {
				lb.AppendNull()
				return
			}
			lb.Append(true)
			keys = append(keys[:0], v.MapKeys()...)
			slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
			for _, k := range keys {
				sb.Append(true)
				kb.Append(k.String())
				enc(v.MapIndex(k))
			}
			clear(keys)
		}
	}, nil
}

// structCodec: a struct's exported fields, as structFieldsOf lists them.
func structCodec(t reflect.Type, seen map[reflect.Type]bool) (arrow.DataType, bool, encoderFactory, error) {
	fields, encs, idx, err := structFieldsOf(t, seen)
	if err != nil {
		return nil, false, nil, err
	}
	return arrow.StructOf(fields...), false, func(b array.Builder, fl *flushers) func(reflect.Value) {
		sb := b.(*array.StructBuilder)
		children := make([]func(reflect.Value), len(encs))
		for i, e := range encs {
			children[i] = e(sb.FieldBuilder(i), fl)
		}
		return func(v reflect.Value) {
			sb.Append(true)
			for i, c := range children {
				c(v.Field(idx[i]))
			}
		}
	}, nil
}

// mapListType is the Arrow type of a Go map: a list of {key, value}
// structs, sorted by key. Not an Arrow map: the Hugging Face datasets
// library cannot load Arrow or Parquet maps (Features.from_arrow_schema:
// "does not have a datasets dtype equivalent", huggingface/datasets issue
// 5612) and polars reads them as lists of structs anyway, so one schema
// serves Arrow, Parquet and the Hub. The readers accept both forms.
func mapListType(value arrow.DataType, nullable bool) arrow.DataType {
	return arrow.ListOfField(arrow.Field{Name: "item", Type: arrow.StructOf(
		arrow.Field{Name: "key", Type: arrow.BinaryTypes.String},
		arrow.Field{Name: "value", Type: value, Nullable: nullable},
	)})
}

// mapEncoder encodes maps convertible to map[string]V, keys in order.
func mapEncoder[V any](optional bool, mt reflect.Type, item func(array.Builder) func(V)) encoderFactory {
	return func(b array.Builder, fl *flushers) func(reflect.Value) {
		lb := b.(*array.ListBuilder)
		sb := lb.ValueBuilder().(*array.StructBuilder)
		kb := sb.FieldBuilder(0).(*array.StringBuilder)
		appendItem := item(sb.FieldBuilder(1))
		var keys []string
		return func(v reflect.Value) {
			if v.Len() == 0 && optional {
				lb.AppendNull()
				return
			}
			m := v.Convert(mt).Interface().(map[string]V)
			lb.Append(true)
			keys = keys[:0]
			for k := range m {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				sb.Append(true)
				kb.Append(k)
				appendItem(m[k])
			}
			clear(keys)
		}
	}
}
