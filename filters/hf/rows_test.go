package hf

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/parquet-go/parquet-go/format"

	"github.com/ngkit/ngkit/pkg/record"
)

// rowType is record.Record as the shards hold it (maps as lists of
// {key, value}), for reading them back with parquet-go, a reader
// independent of ours.
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

func isType[T format.LogicalTypeValue](lt *format.LogicalType) bool {
	_, ok := lt.Value.(T)
	return ok
}
