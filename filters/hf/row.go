package hf

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/ngkit/ngkit/pkg/record"
)

// The export's rows are record.Record with one change: every Go map (the
// label distributions such as turns.labels.norm_dist, quality.explanations)
// is written as a list of {key, value} structs sorted by key instead of a
// Parquet MAP. The Hugging Face datasets library cannot load MAP columns:
// Features.from_arrow_schema fails with "Arrow type map<...> does not have
// a datasets dtype equivalent" (huggingface/datasets issue 5612, open), so
// load_dataset and the Hub viewer would fail on every ngkit Parquet file.
// A list of {key, value} is what a map is in Arrow underneath, and every
// reader loads it.
//
// The row type is derived from record.Record by reflection, so that a field
// added to the record reaches the export (and its card) with no change here.

// rowType is the Go type of the export's rows.
var rowType = exportType(reflect.TypeFor[record.Record]())

// exportType returns t with maps turned into lists of {key, value} and
// fields that are not columns (parquet:"-") dropped; t itself when nothing
// changes, so that types without maps are copied as they are.
func exportType(t reflect.Type) reflect.Type {
	switch t.Kind() {
	case reflect.Pointer:
		if e := exportType(t.Elem()); e != t.Elem() {
			return reflect.PointerTo(e)
		}
	case reflect.Slice:
		if e := exportType(t.Elem()); e != t.Elem() {
			return reflect.SliceOf(e)
		}
	case reflect.Map:
		return reflect.SliceOf(reflect.StructOf([]reflect.StructField{
			{Name: "Key", Type: exportType(t.Key()), Tag: `parquet:"key" json:"key"`},
			{Name: "Value", Type: exportType(t.Elem()), Tag: `parquet:"value" json:"value"`},
		}))
	case reflect.Struct:
		changed := false
		var fields []reflect.StructField
		for i := range t.NumField() {
			f := t.Field(i)
			if !isColumn(f) {
				changed = true
				continue
			}
			if ft := exportType(f.Type); ft != f.Type {
				changed = true
				if f.Type.Kind() == reflect.Map {
					f.Tag = withListTag(f.Tag)
				}
				f.Type = ft
			}
			fields = append(fields, reflect.StructField{Name: f.Name, Type: f.Type, Tag: f.Tag})
		}
		if changed {
			return reflect.StructOf(fields)
		}
	}
	return t
}

func isColumn(f reflect.StructField) bool {
	return f.IsExported() && f.Tag.Get("parquet") != "-"
}

// withListTag adds parquet-go's "list" option to a field's parquet tag, so
// the slice is written as a Parquet LIST as the record's other lists are.
func withListTag(tag reflect.StructTag) reflect.StructTag {
	p, ok := tag.Lookup("parquet")
	if !ok {
		panic(fmt.Sprintf("hf: map field without a parquet tag: %q", tag))
	}
	return reflect.StructTag(strings.Replace(string(tag), `parquet:"`+p+`"`, `parquet:"`+p+`,list"`, 1))
}

// toRow converts a record to a value of rowType.
func toRow(r *record.Record) any {
	v := reflect.New(rowType).Elem()
	convert(v, reflect.ValueOf(r).Elem())
	return v.Interface()
}

// convert copies src into dst, of type exportType(src.Type()).
func convert(dst, src reflect.Value) {
	if dst.Type() == src.Type() {
		dst.Set(src)
		return
	}
	switch src.Kind() {
	case reflect.Pointer:
		if !src.IsNil() {
			p := reflect.New(dst.Type().Elem())
			convert(p.Elem(), src.Elem())
			dst.Set(p)
		}
	case reflect.Slice:
		if !src.IsNil() {
			s := reflect.MakeSlice(dst.Type(), src.Len(), src.Len())
			for i := range src.Len() {
				convert(s.Index(i), src.Index(i))
			}
			dst.Set(s)
		}
	case reflect.Map:
		if src.Len() == 0 {
			return
		}
		keys := src.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return keyString(keys[i]) < keyString(keys[j]) })
		s := reflect.MakeSlice(dst.Type(), len(keys), len(keys))
		for i, k := range keys {
			convert(s.Index(i).Field(0), k)
			convert(s.Index(i).Field(1), src.MapIndex(k))
		}
		dst.Set(s)
	case reflect.Struct:
		j := 0
		for i := range src.NumField() {
			if !isColumn(src.Type().Field(i)) {
				continue
			}
			convert(dst.Field(j), src.Field(i))
			j++
		}
	default:
		panic(fmt.Sprintf("hf: cannot convert %v to %v", src.Type(), dst.Type()))
	}
}

func keyString(v reflect.Value) string {
	if v.Kind() == reflect.String {
		return v.String()
	}
	return fmt.Sprint(v.Interface())
}
