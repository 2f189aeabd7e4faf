package hf

import (
	"fmt"
	"reflect"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// Feature is one entry of a dataset card's dataset_info.features, in the
// YAML form the datasets library writes (datasets 4: `list:` for lists,
// `struct:` for structs). Exactly one of Dtype, Struct and List is set.
type Feature struct {
	Name  string `yaml:"name,omitempty"`
	Dtype string `yaml:"dtype,omitempty"`
	// Struct lists the fields of a struct.
	Struct []Feature `yaml:"struct,omitempty"`
	// List is the element type of a list: a dtype string ("list: string"),
	// a []Feature for a list of structs, or a Feature (without a name) for
	// a list of lists.
	List any `yaml:"list,omitempty"`
}

// Features returns the features of the rows the export writes, from the
// Parquet schema the writer uses for them.
func Features() ([]Feature, error) {
	return FeaturesOf(parquet.SchemaOf(reflect.New(rowType).Elem().Interface()))
}

// FeaturesOf derives card features from a Parquet schema (or group): a
// string column is "string", integers "int32"/"int64", doubles "float64",
// booleans "bool", a LIST a `list`, a group a `struct`. Parquet MAP and the
// types the card has no word for are errors.
func FeaturesOf(schema parquet.Node) ([]Feature, error) {
	var out []Feature
	for _, f := range schema.Fields() {
		ft, err := featureOf(f, f.Name(), 0)
		if err != nil {
			return nil, err
		}
		ft.Name = f.Name()
		out = append(out, ft)
	}
	return out, nil
}

func featureOf(n parquet.Node, path string, depth int) (Feature, error) {
	if depth > 32 {
		return Feature{}, fmt.Errorf("column %s: nested too deep", path)
	}
	if n.Leaf() {
		dt, err := dtypeOf(n)
		if err != nil {
			return Feature{}, fmt.Errorf("column %s: %w", path, err)
		}
		return Feature{Dtype: dt}, nil
	}
	lt := n.Type().LogicalType()
	switch {
	case n.Repeated():
		// A bare repeated group (not written by ngkit): a list of it.
		return listFeature(parquet.Required(n), path, depth)
	case lt != nil && isType[*format.ListType](lt):
		elem := n.Fields()
		if len(elem) != 1 || !elem[0].Repeated() {
			return Feature{}, fmt.Errorf("column %s: malformed LIST", path)
		}
		e := elem[0]
		if inner := e.Fields(); !e.Leaf() && len(inner) == 1 {
			return listFeature(inner[0], path, depth) // list/element
		}
		return listFeature(parquet.Required(e), path, depth) // two-level list
	case lt != nil && isType[*format.MapType](lt):
		return Feature{}, fmt.Errorf("column %s: a Parquet MAP, which the datasets library cannot load", path)
	}
	var fields []Feature
	for _, f := range n.Fields() {
		ft, err := featureOf(f, path+"."+f.Name(), depth+1)
		if err != nil {
			return Feature{}, err
		}
		ft.Name = f.Name()
		fields = append(fields, ft)
	}
	return Feature{Struct: fields}, nil
}

// listFeature is a list whose element is elem: `list: dtype` for scalars,
// `list: [fields]` for structs, `list: {list: ...}` for lists.
func listFeature(elem parquet.Node, path string, depth int) (Feature, error) {
	e, err := featureOf(elem, path+"[]", depth+1)
	if err != nil {
		return Feature{}, err
	}
	switch {
	case e.Dtype != "":
		return Feature{List: e.Dtype}, nil
	case e.Struct != nil:
		return Feature{List: e.Struct}, nil
	}
	return Feature{List: e}, nil
}

func isType[T format.LogicalTypeValue](lt *format.LogicalType) bool {
	_, ok := lt.Value.(T)
	return ok
}

// dtypeOf names a leaf's type as datasets.Value does.
func dtypeOf(n parquet.Node) (string, error) {
	t := n.Type()
	lt := t.LogicalType()
	if lt != nil && lt.Value != nil {
		switch v := lt.Value.(type) {
		case *format.StringType, *format.EnumType, *format.JsonType:
			return "string", nil
		case *format.IntType:
			name := fmt.Sprintf("int%d", v.BitWidth)
			if !v.IsSigned {
				name = "u" + name
			}
			return name, nil
		default:
			return "", fmt.Errorf("no Hugging Face dtype for %v", lt)
		}
	}
	switch t.Kind() {
	case parquet.Boolean:
		return "bool", nil
	case parquet.Int32:
		return "int32", nil
	case parquet.Int64:
		return "int64", nil
	case parquet.Float:
		return "float32", nil
	case parquet.Double:
		return "float64", nil
	case parquet.ByteArray:
		return "binary", nil
	}
	return "", fmt.Errorf("no Hugging Face dtype for %v", t)
}
