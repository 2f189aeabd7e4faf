package hf

import (
	"fmt"
	"reflect"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/ngkit/ngkit/pkg/recio"
	"github.com/ngkit/ngkit/pkg/record"
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

// Features returns the features of the rows the export writes: records,
// in the schema of every ngkit Parquet file (maps as lists of {key,
// value}, which the datasets library loads; it cannot load Arrow maps).
func Features() ([]Feature, error) {
	schema, err := recio.ParquetArrowSchema(reflect.TypeFor[record.Record]())
	if err != nil {
		return nil, err
	}
	return FeaturesOf(schema)
}

// FeaturesOf derives card features from an Arrow schema: utf8 is "string",
// integers "int32"/"int64"/..., floats "float32"/"float64", booleans
// "bool", a list a `list`, a struct a `struct`. Maps and the types the
// card has no word for are errors.
func FeaturesOf(schema *arrow.Schema) ([]Feature, error) {
	var out []Feature
	for _, f := range schema.Fields() {
		ft, err := featureOf(f.Type, f.Name, 0)
		if err != nil {
			return nil, err
		}
		ft.Name = f.Name
		out = append(out, ft)
	}
	return out, nil
}

func featureOf(dt arrow.DataType, path string, depth int) (Feature, error) {
	if depth > 32 {
		return Feature{}, fmt.Errorf("column %s: nested too deep", path)
	}
	switch t := dt.(type) {
	case *arrow.MapType:
		return Feature{}, fmt.Errorf("column %s: an Arrow map, which the datasets library cannot load", path)
	case arrow.ListLikeType:
		e, err := featureOf(t.Elem(), path+"[]", depth+1)
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
	case *arrow.StructType:
		var fields []Feature
		for _, f := range t.Fields() {
			ft, err := featureOf(f.Type, path+"."+f.Name, depth+1)
			if err != nil {
				return Feature{}, err
			}
			ft.Name = f.Name
			fields = append(fields, ft)
		}
		return Feature{Struct: fields}, nil
	}
	switch dt.ID() {
	case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW:
		return Feature{Dtype: "string"}, nil
	case arrow.BOOL:
		return Feature{Dtype: "bool"}, nil
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64,
		arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64,
		arrow.FLOAT32, arrow.FLOAT64:
		return Feature{Dtype: dt.Name()}, nil // int64, uint8, float64, ... as datasets.Value names them
	case arrow.BINARY, arrow.LARGE_BINARY:
		return Feature{Dtype: "binary"}, nil
	}
	return Feature{}, fmt.Errorf("column %s: no Hugging Face dtype for %s", path, dt)
}
