package arrowcodec

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/ngkit/ngkit/pkg/record"
)

// A decoderFactory binds a decoder to an array; the decoder sets a Go value
// (settable, zero on entry) from element i. Nulls leave the value zero.
type decoderFactory func(arrow.Array) func(i int, v reflect.Value)

// Decoder decodes rows of one Arrow schema into record.Record.
type Decoder struct {
	schema  *arrow.Schema
	cols    []decCol // Record fields present in the schema
	unknown []int    // schema columns Record does not have, kept in Extra
}

type decCol struct {
	col   int // schema column
	field int // Go field index
	dec   decoderFactory
}

// NewDecoder compiles the decoder of schema's rows: the columns of
// record.Record's fields into them (an error names a column of a type it
// cannot read), any other column into Extra.
func NewDecoder(schema *arrow.Schema) (*Decoder, error) {
	d := &Decoder{schema: schema}
	t := reflect.TypeFor[record.Record]()
	known := map[string]bool{}
	for i := 0; i < t.NumField(); i++ {
		name, _, skip := ColumnTag(t.Field(i))
		if skip {
			continue
		}
		known[name] = true
		idx := schema.FieldIndices(name)
		if len(idx) == 0 {
			continue
		}
		dec, err := arrowDecoderOf(t.Field(i).Type, schema.Field(idx[0]).Type)
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", name, err)
		}
		d.cols = append(d.cols, decCol{col: idx[0], field: i, dec: dec})
	}
	for i, f := range schema.Fields() {
		if !known[f.Name] && f.Name != "" {
			d.unknown = append(d.unknown, i)
		}
	}
	return d, nil
}

// Schema is the schema the decoder reads.
func (d *Decoder) Schema() *arrow.Schema { return d.schema }

// Bind returns the decoder of batch's row i into rec, a zero record. It
// panics on corrupt list offsets (the readers recover it as an error).
func (d *Decoder) Bind(batch arrow.RecordBatch) func(i int, rec *record.Record) error {
	decs := make([]func(int, reflect.Value), len(d.cols))
	for k, c := range d.cols {
		decs[k] = d.cols[k].dec(batch.Column(c.col))
	}
	return func(i int, rec *record.Record) error {
		v := reflect.ValueOf(rec).Elem()
		for k, c := range d.cols {
			decs[k](i, v.Field(c.field))
		}
		if err := rec.DecodeExtra(); err != nil {
			return err
		}
		for _, c := range d.unknown {
			col := batch.Column(c)
			if col.IsNull(i) {
				continue
			}
			name := d.schema.Field(c).Name
			b, err := json.Marshal(col.GetOneForMarshal(i))
			if err != nil {
				return fmt.Errorf("column %q: %w", name, err)
			}
			if rec.Extra == nil {
				rec.Extra = make(map[string]json.RawMessage)
			}
			rec.Extra[name] = b
		}
		return nil
	}
}

// arrowDecoderOf compiles the decoder of Arrow type dt into Go type t, or
// says why it cannot. It accepts more than the writers produce: large and
// view strings and lists, binary into strings, any integer width, floats
// from integers, dictionary-encoded and extension columns.
func arrowDecoderOf(t reflect.Type, dt arrow.DataType) (decoderFactory, error) {
	switch x := dt.(type) {
	case *arrow.DictionaryType:
		inner, err := arrowDecoderOf(t, x.ValueType)
		if err != nil {
			return nil, err
		}
		return nullable(func(a arrow.Array) func(int, reflect.Value) {
			d := a.(*array.Dictionary)
			dec := inner(d.Dictionary())
			return func(i int, v reflect.Value) { dec(d.GetValueIndex(i), v) }
		}), nil
	case arrow.ExtensionType:
		inner, err := arrowDecoderOf(t, x.StorageType())
		if err != nil {
			return nil, err
		}
		return nullable(func(a arrow.Array) func(int, reflect.Value) {
			return inner(a.(array.ExtensionArray).Storage())
		}), nil
	}
	mismatch := fmt.Errorf("cannot read Arrow type %s into Go type %v", typeString(dt), t)
	if t.Kind() == reflect.Pointer {
		inner, err := arrowDecoderOf(t.Elem(), dt)
		if err != nil {
			return nil, err
		}
		et := t.Elem()
		return nullable(func(a arrow.Array) func(int, reflect.Value) {
			dec := inner(a)
			return func(i int, v reflect.Value) {
				p := reflect.New(et)
				dec(i, p.Elem())
				v.Set(p)
			}
		}), nil
	}
	id := dt.ID()
	if dec := jsonTextDecoder(t, id); dec != nil {
		return dec, nil
	}
	var dec decoderFactory
	var err error
	switch t.Kind() {
	case reflect.Slice:
		dec, err = sliceDecoder(t, dt)
	case reflect.Map:
		dec, err = mapDecoder(t, dt)
	case reflect.Struct:
		dec, err = structDecoder(t, dt)
	default:
		dec = scalarDecoder(t, id)
	}
	if dec == nil && err == nil {
		return nil, mismatch
	}
	return dec, err
}

// scalarDecoder reads a string, bool, integer or float column into t, or
// is nil when id is none of those t can hold.
func scalarDecoder(t reflect.Type, id arrow.Type) decoderFactory {
	switch t.Kind() {
	case reflect.String:
		switch id {
		case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW:
			return nullable(func(a arrow.Array) func(int, reflect.Value) {
				s := a.(interface{ Value(int) string })
				// Clone: the array's string data is released with the batch.
				return func(i int, v reflect.Value) { v.SetString(strings.Clone(s.Value(i))) }
			})
		case arrow.BINARY, arrow.LARGE_BINARY, arrow.BINARY_VIEW:
			return nullable(func(a arrow.Array) func(int, reflect.Value) {
				b := a.(interface{ Value(int) []byte })
				return func(i int, v reflect.Value) { v.SetString(string(b.Value(i))) }
			})
		}
	case reflect.Bool:
		if id == arrow.BOOL {
			return nullable(func(a arrow.Array) func(int, reflect.Value) {
				b := a.(*array.Boolean)
				return func(i int, v reflect.Value) { v.SetBool(b.Value(i)) }
			})
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if get := intGetter(id); get != nil {
			return nullable(func(a arrow.Array) func(int, reflect.Value) {
				g := get(a)
				return func(i int, v reflect.Value) { v.SetInt(g(i)) }
			})
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if get := intGetter(id); get != nil {
			return nullable(func(a arrow.Array) func(int, reflect.Value) {
				g := get(a)
				return func(i int, v reflect.Value) { v.SetUint(uint64(g(i))) }
			})
		}
	case reflect.Float32, reflect.Float64:
		switch id {
		case arrow.FLOAT64:
			return nullable(func(a arrow.Array) func(int, reflect.Value) {
				f := a.(*array.Float64)
				return func(i int, v reflect.Value) { v.SetFloat(f.Value(i)) }
			})
		case arrow.FLOAT32:
			return nullable(func(a arrow.Array) func(int, reflect.Value) {
				f := a.(*array.Float32)
				return func(i int, v reflect.Value) { v.SetFloat(float64(f.Value(i))) }
			})
		}
		if get := intGetter(id); get != nil {
			return nullable(func(a arrow.Array) func(int, reflect.Value) {
				g := get(a)
				return func(i int, v reflect.Value) { v.SetFloat(float64(g(i))) }
			})
		}
	}
	return nil
}

// sliceDecoder reads a binary column into []byte and a list into other
// slices; nil, nil when dt is neither.
func sliceDecoder(t reflect.Type, dt arrow.DataType) (decoderFactory, error) {
	id := dt.ID()
	if t.Elem().Kind() == reflect.Uint8 {
		switch id {
		case arrow.BINARY, arrow.LARGE_BINARY, arrow.BINARY_VIEW:
			return nullable(func(a arrow.Array) func(int, reflect.Value) {
				b := a.(interface{ Value(int) []byte })
				return func(i int, v reflect.Value) {
					if x := b.Value(i); len(x) > 0 {
						v.SetBytes(slices.Clone(x))
					}
				}
			}), nil
		}
		return nil, nil
	}
	lt, ok := dt.(arrow.ListLikeType)
	if !ok || id == arrow.MAP {
		return nil, nil
	}
	inner, err := arrowDecoderOf(t.Elem(), lt.Elem())
	if err != nil {
		return nil, err
	}
	return nullable(func(a arrow.Array) func(int, reflect.Value) {
		l := a.(array.ListLike)
		values := l.ListValues()
		dec := inner(values)
		return func(i int, v reflect.Value) {
			start, end := l.ValueOffsets(i)
			n := int(end - start)
			checkOffsets(start, end, values.Len())
			if n == 0 {
				return // empty lists read back as nil
			}
			s := reflect.MakeSlice(t, n, n)
			for j := 0; j < n; j++ {
				dec(int(start)+j, s.Index(j))
			}
			v.Set(s)
		}
	}), nil
}

// mapDecoder reads a list of {key, value} structs (ngkit's maps), a
// struct (a map written as one by datasets) or an Arrow map into a map;
// nil, nil when dt is none of those.
func mapDecoder(t reflect.Type, dt arrow.DataType) (decoderFactory, error) {
	id := dt.ID()
	if lt, ok := dt.(arrow.ListLikeType); ok && id != arrow.MAP {
		return mapFromListDecoder(t, lt)
	}
	if st, ok := dt.(*arrow.StructType); ok && t.Key().Kind() == reflect.String {
		return mapFromStructDecoder(t, st)
	}
	mt, ok := dt.(*arrow.MapType)
	if !ok {
		return nil, nil
	}
	kdec, err := arrowDecoderOf(t.Key(), mt.KeyType())
	if err != nil {
		return nil, err
	}
	idec, err := arrowDecoderOf(t.Elem(), mt.ItemType())
	if err != nil {
		return nil, err
	}
	return nullable(func(a arrow.Array) func(int, reflect.Value) {
		m := a.(*array.Map)
		keys, items := kdec(m.Keys()), idec(m.Items())
		return func(i int, v reflect.Value) {
			start, end := m.ValueOffsets(i)
			n := int(end - start)
			checkOffsets(start, end, min(m.Keys().Len(), m.Items().Len()))
			if n == 0 {
				return // empty maps read back as nil
			}
			mv := reflect.MakeMapWithSize(t, n)
			for j := int(start); j < int(end); j++ {
				k, x := reflect.New(t.Key()).Elem(), reflect.New(t.Elem()).Elem()
				keys(j, k)
				items(j, x)
				mv.SetMapIndex(k, x)
			}
			v.Set(mv)
		}
	}), nil
}

// structDecoder reads a struct column into a struct, field by column name
// (a missing column leaves its field zero); nil, nil when dt is no struct.
func structDecoder(t reflect.Type, dt arrow.DataType) (decoderFactory, error) {
	st, ok := dt.(*arrow.StructType)
	if !ok {
		return nil, nil
	}
	type child struct {
		col, field int
		dec        decoderFactory
	}
	var children []child
	for fi := 0; fi < t.NumField(); fi++ {
		name, _, skip := ColumnTag(t.Field(fi))
		if skip {
			continue
		}
		ci, ok := st.FieldIdx(name)
		if !ok {
			continue // missing fields stay zero
		}
		dec, err := arrowDecoderOf(t.Field(fi).Type, st.Field(ci).Type)
		if err != nil {
			return nil, fmt.Errorf("field %q: %w", name, err)
		}
		children = append(children, child{ci, fi, dec})
	}
	return nullable(func(a arrow.Array) func(int, reflect.Value) {
		s := a.(*array.Struct)
		decs := make([]func(int, reflect.Value), len(children))
		for k, c := range children {
			decs[k] = c.dec(s.Field(c.col))
		}
		return func(i int, v reflect.Value) {
			for k, c := range children {
				decs[k](i, v.Field(c.field))
			}
		}
	}), nil
}

// jsonTextDecoder reads a text column into a struct, a list or a map by
// decoding each value as JSON, or returns nil when t or id is not such a
// pair. The datasets library writes a field whose objects have different
// keys from row to row (ngkit's JSONL omits empty fields, so turns, persona,
// pact...) as a column of JSON text (its Json feature: Parquet's JSON
// logical type, arrow.json in Arrow IPC), which a user then hands back to
// ngkit. A value that is not JSON of the field's type is corrupt data.
func jsonTextDecoder(t reflect.Type, id arrow.Type) decoderFactory {
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return nil
		}
	default:
		return nil
	}
	switch id {
	case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW, arrow.BINARY, arrow.LARGE_BINARY, arrow.BINARY_VIEW:
	default:
		return nil
	}
	return nullable(func(a arrow.Array) func(int, reflect.Value) {
		var get func(int) []byte
		switch x := a.(type) {
		case interface{ Value(int) []byte }: // binary
			get = x.Value
		case interface{ Value(int) string }: // string
			get = func(i int) []byte { return []byte(x.Value(i)) }
		}
		return func(i int, v reflect.Value) {
			p := reflect.New(t)
			if err := json.Unmarshal(get(i), p.Interface()); err != nil {
				panic(fmt.Sprintf("a JSON text value of Go type %v: %v", t, err))
			}
			v.Set(p.Elem())
		}
	})
}

// mapFromListDecoder reads a list of {key, value} structs (the form ngkit
// writes maps in) into a Go map; a later entry wins over an earlier one
// with the same key.
func mapFromListDecoder(t reflect.Type, lt arrow.ListLikeType) (decoderFactory, error) {
	st, ok := lt.Elem().(*arrow.StructType)
	var ki, vi int
	kok, vok := false, false
	if ok { // a list of anything but structs (a corrupt file's) has no fields
		ki, kok = st.FieldIdx("key")
		vi, vok = st.FieldIdx("value")
	}
	if !ok || !kok || !vok || st.NumFields() != 2 {
		return nil, fmt.Errorf("cannot read Arrow type %s into Go type %v (want a map, or a list of {key, value})", typeString(lt), t)
	}
	kdec, err := arrowDecoderOf(t.Key(), st.Field(ki).Type)
	if err != nil {
		return nil, err
	}
	vdec, err := arrowDecoderOf(t.Elem(), st.Field(vi).Type)
	if err != nil {
		return nil, err
	}
	return nullable(func(a arrow.Array) func(int, reflect.Value) {
		l := a.(array.ListLike)
		entries := l.ListValues().(*array.Struct)
		keys, values := kdec(entries.Field(ki)), vdec(entries.Field(vi))
		return func(i int, v reflect.Value) {
			start, end := l.ValueOffsets(i)
			checkOffsets(start, end, entries.Len())
			n := int(end - start)
			if n == 0 {
				return // empty maps read back as nil
			}
			mv := reflect.MakeMapWithSize(t, n)
			for j := int(start); j < int(end); j++ {
				if entries.IsNull(j) {
					continue
				}
				k, x := reflect.New(t.Key()).Elem(), reflect.New(t.Elem()).Elem()
				keys(j, k)
				values(j, x)
				mv.SetMapIndex(k, x)
			}
			v.Set(mv)
		}
	}), nil
}

// mapFromStructDecoder reads a struct into a Go map, a key per field whose
// value is not null: the shape readers that infer a schema from JSON
// (datasets' load_dataset("json"), pyarrow, DuckDB) give an object of
// varying keys such as a label distribution, which they then write so.
func mapFromStructDecoder(t reflect.Type, st *arrow.StructType) (decoderFactory, error) {
	decs := make([]decoderFactory, st.NumFields())
	for k, f := range st.Fields() {
		dec, err := arrowDecoderOf(t.Elem(), f.Type)
		if err != nil {
			return nil, fmt.Errorf("field %q: %w", f.Name, err)
		}
		decs[k] = dec
	}
	return nullable(func(a arrow.Array) func(int, reflect.Value) {
		s := a.(*array.Struct)
		fields := make([]func(int, reflect.Value), len(decs))
		for k, dec := range decs {
			fields[k] = dec(s.Field(k))
		}
		return func(i int, v reflect.Value) {
			var mv reflect.Value
			for k, f := range st.Fields() {
				if s.Field(k).IsNull(i) {
					continue
				}
				if !mv.IsValid() {
					mv = reflect.MakeMap(t)
				}
				x := reflect.New(t.Elem()).Elem()
				fields[k](i, x)
				mv.SetMapIndex(reflect.ValueOf(f.Name).Convert(t.Key()), x)
			}
			if mv.IsValid() {
				v.Set(mv)
			}
		}
	}), nil
}

// checkOffsets panics (recovered by the reader as a corrupt-data error)
// when list offsets do not fit the child array: a corrupt file must not
// make the decoder allocate a slice of billions of elements.
func checkOffsets(start, end int64, n int) {
	if start < 0 || end < start || end > int64(n) {
		panic(fmt.Sprintf("list offsets [%d, %d) out of bounds of %d values", start, end, n))
	}
}

// nullable wraps a decoder factory so that null elements leave the value
// zero. Arrays without nulls skip the check.
func nullable(f decoderFactory) decoderFactory {
	return func(a arrow.Array) func(int, reflect.Value) {
		dec := f(a)
		if a.NullN() == 0 {
			return dec
		}
		return func(i int, v reflect.Value) {
			if !a.IsNull(i) {
				dec(i, v)
			}
		}
	}
}

// intGetter returns the accessor of an integer array type, or nil.
func intGetter(id arrow.Type) func(arrow.Array) func(int) int64 {
	switch id {
	case arrow.INT8:
		return func(a arrow.Array) func(int) int64 {
			x := a.(*array.Int8)
			return func(i int) int64 { return int64(x.Value(i)) }
		}
	case arrow.INT16:
		return func(a arrow.Array) func(int) int64 {
			x := a.(*array.Int16)
			return func(i int) int64 { return int64(x.Value(i)) }
		}
	case arrow.INT32:
		return func(a arrow.Array) func(int) int64 {
			x := a.(*array.Int32)
			return func(i int) int64 { return int64(x.Value(i)) }
		}
	case arrow.INT64:
		return func(a arrow.Array) func(int) int64 {
			x := a.(*array.Int64)
			return func(i int) int64 { return x.Value(i) }
		}
	case arrow.UINT8:
		return func(a arrow.Array) func(int) int64 {
			x := a.(*array.Uint8)
			return func(i int) int64 { return int64(x.Value(i)) }
		}
	case arrow.UINT16:
		return func(a arrow.Array) func(int) int64 {
			x := a.(*array.Uint16)
			return func(i int) int64 { return int64(x.Value(i)) }
		}
	case arrow.UINT32:
		return func(a arrow.Array) func(int) int64 {
			x := a.(*array.Uint32)
			return func(i int) int64 { return int64(x.Value(i)) }
		}
	case arrow.UINT64:
		return func(a arrow.Array) func(int) int64 {
			x := a.(*array.Uint64)
			return func(i int) int64 { return int64(x.Value(i)) }
		}
	}
	return nil
}

// typeString is dt as errors show it: quoted when its field names hold
// characters that are not printable (a corrupt or hostile file), so that an
// error stays one readable line.
func typeString(dt arrow.DataType) string {
	s := dt.String()
	if strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return strconv.Quote(s)
	}
	return s
}
