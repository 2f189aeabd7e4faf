package cat

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/builtin"
	"github.com/expr-lang/expr/vm"
	"github.com/expr-lang/expr/vm/runtime"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/record"
)

// The bounds of one --where evaluation. expr's own budget counts only
// the elements of ranges, lists and maps it builds, not the bytes of the
// strings its builtins return (repeat(repeat("a", 999999), 999999) was
// a fatal out-of-memory), so ngkit charges every builtin that allocates
// and the + of strings itself; a regular expression on a huge text
// allocates little but can be slow, hence the time limit.
const whereMemory = 64 << 20 // bytes of strings and lists built

var whereTime = 2 * time.Second // a variable for tests

// errBudget is the panic of a charged builtin over whereMemory (the VM
// turns it into the evaluation's error).
const errBudget = "memory budget exceeded"

// evaluator is one compiled program with its own allocation budget: the
// charged builtins are closures over it, so an evaluator evaluates one
// record at a time (Where keeps a pool of them).
type evaluator struct {
	prog *vm.Program
	vm   vm.VM
	used uint
}

func (e *evaluator) charge(n uint) {
	if e.used += n; e.used > whereMemory || n > whereMemory {
		panic(errBudget)
	}
}

// sizeOf is what charge counts for a builtin's result: the bytes of a
// string, 16 per element of a list or map, and what their strings hold.
func sizeOf(v any) uint {
	switch v := v.(type) {
	case string:
		return uint(len(v))
	case []any:
		n := uint(16 * len(v))
		for _, x := range v {
			if s, ok := x.(string); ok {
				n += uint(len(s))
			}
		}
		return n
	case []string:
		n := uint(16 * len(v))
		for _, s := range v {
			n += uint(len(s))
		}
		return n
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map:
		return uint(16 * rv.Len())
	}
	return 0
}

// plainCtx is the plain form of an empty record: the variables the
// program is compiled against.
var plainCtx = sync.OnceValue(func() map[string]any { return plainEnv(&record.Record{}) })

// newEvaluator compiles src on plain values, every allocating builtin
// charged: before it allocates when its size is known from its arguments
// (repeat, replace, join, +), after otherwise.
func newEvaluator(src string) (*evaluator, error) {
	e := &evaluator{}
	opts := []expr.Option{expr.Env(plainCtx()), expr.AsBool(), expr.Patch(addPatch{}),
		expr.Function(addFunc, func(a ...any) (any, error) {
			if s, ok := a[0].(string); ok {
				if t, ok := a[1].(string); ok {
					e.charge(uint(len(s) + len(t)))
					return s + t, nil
				}
			}
			return runtime.Add(a[0], a[1]), nil
		})}
	for _, f := range builtin.Builtins {
		if f.Predicate || !allocates[f.Name] {
			continue
		}
		f := f
		opts = append(opts, expr.Function(f.Name, func(a ...any) (any, error) {
			e.charge(preSize(f.Name, a))
			var v any
			var err error
			switch {
			case f.Safe != nil:
				v, _, err = f.Safe(a...)
			case f.Func != nil:
				v, err = f.Func(a...)
			case f.Fast != nil && len(a) == 1:
				v = f.Fast(a[0])
			default:
				return nil, fmt.Errorf("%s: wrong number of arguments", f.Name)
			}
			if err == nil {
				e.charge(sizeOf(v))
			}
			return v, err
		}))
	}
	prog, err := expr.Compile(src, opts...)
	if err != nil {
		return nil, err
	}
	e.prog = prog
	e.vm.MemoryBudget = whereMemory / 16
	return e, nil
}

// allocates are the builtins whose result can be larger than what they
// were given or that copy it: they are charged.
var allocates = map[string]bool{
	"repeat": true, "replace": true, "join": true, "split": true, "splitAfter": true,
	"upper": true, "lower": true, "string": true, "toJSON": true, "fromJSON": true,
	"toBase64": true, "fromBase64": true, "concat": true, "flatten": true, "sort": true,
	"sortBy": true, "reverse": true, "uniq": true, "keys": true, "values": true,
	"toPairs": true, "fromPairs": true, "groupBy": true, "take": true,
	"trim": true, "trimPrefix": true, "trimSuffix": true,
}

// preSize is the size of a builtin's result known from its arguments
// before it is built: repeat's, replace's worst case and join's.
func preSize(name string, a []any) uint {
	str := func(i int) string {
		if i < len(a) {
			s, _ := a[i].(string)
			return s
		}
		return ""
	}
	switch name {
	case "repeat":
		if len(a) == 2 {
			n := runtime.ToInt(a[1])
			if n > 0 && len(str(0)) > 0 && n > whereMemory/len(str(0)) {
				return whereMemory + 1
			}
			if n > 0 {
				return uint(len(str(0)) * n)
			}
		}
	case "replace":
		if len(a) == 3 {
			s, old, nw := str(0), str(1), str(2)
			k := strings.Count(s, old)
			if len(nw) > len(old) && k > 0 && (len(nw)-len(old)) > whereMemory/k {
				return whereMemory + 1
			}
			return uint(len(s) + k*max(len(nw)-len(old), 0))
		}
	case "toJSON", "string", "upper", "lower", "toBase64":
		if len(a) == 1 {
			return deepSize(a[0], whereMemory+1)
		}
	case "concat", "flatten":
		var n uint
		for _, x := range a {
			if rv := reflect.ValueOf(x); rv.Kind() == reflect.Slice {
				n += uint(16 * rv.Len())
			}
		}
		return n
	case "join":
		var n uint
		if l, ok := a[0].([]any); ok {
			for _, x := range l {
				if s, ok := x.(string); ok {
					n += uint(len(s) + len(str(1)))
				}
			}
		}
		return n
	}
	return 0
}

// deepSize is the bytes of v's strings and 16 per element, counted up to
// limit (a list holding one long string a million times is large).
func deepSize(v any, limit uint) uint {
	var n uint
	var walk func(v any)
	walk = func(v any) {
		if n > limit {
			return
		}
		switch v := v.(type) {
		case string:
			n += uint(len(v))
		case []any:
			n += uint(16 * len(v))
			for _, x := range v {
				walk(x)
			}
		case map[string]any:
			for k, x := range v {
				n += uint(16 + len(k))
				walk(x)
			}
		default:
			n += 16
		}
	}
	walk(v)
	return n
}

// addFunc is what + becomes (addPatch), so that a string built by + in a
// reduce is charged like repeat's.
const addFunc = "__ngkit_add"

type addPatch struct{}

func (addPatch) Visit(node *ast.Node) {
	if b, ok := (*node).(*ast.BinaryNode); ok && b.Operator == "+" {
		ast.Patch(node, &ast.CallNode{Callee: &ast.IdentifierNode{Value: addFunc}, Arguments: []ast.Node{b.Left, b.Right}})
	}
}

// Match evaluates the expression on rec. An evaluation over the memory
// budget or the time limit is a *pipeline.FatalError: the run stops (exit
// 2) rather than dropping records for a reason that is not theirs.
func (w *Where) Match(rec *record.Record) (bool, error) {
	e, _ := w.progs.Get().(*evaluator)
	if e == nil {
		var err error
		if e, err = newEvaluator(w.src); err != nil { // compiled once in CompileWhere
			return false, err
		}
	}
	type result struct {
		v   any
		err error
	}
	done := make(chan result, 1)
	go func() {
		e.used = 0
		v, err := e.vm.Run(e.prog, plainEnv(rec))
		done <- result{v, err}
	}()
	t := time.NewTimer(whereTime)
	defer t.Stop()
	select {
	case r := <-done:
		w.progs.Put(e)
		if r.err != nil {
			msg, _, _ := strings.Cut(r.err.Error(), "\n")
			err := fmt.Errorf("--where %q: %s", w.src, msg)
			if strings.Contains(msg, errBudget) {
				return false, &pipeline.FatalError{Err: fmt.Errorf("--where %q: on record %q: evaluation needs more than %d MiB", w.src, rec.ID, whereMemory>>20)}
			}
			return false, err
		}
		b, _ := r.v.(bool)
		return b, nil
	case <-t.C:
		// The evaluation cannot be stopped; it is left behind (the
		// evaluator with it) and the run ends.
		return false, &pipeline.FatalError{Err: fmt.Errorf("--where %q: on record %q: evaluation took longer than %s", w.src, rec.ID, whereTime)}
	}
}

// plainEnv is the record as --where sees it: its JSON names and plain
// values (map[string]any, []any, string, int, float64, bool), no Go
// value with methods or Go field names. A field the record lacks is its
// zero value (an absent quality reads quality.norm 0, an absent list is
// empty), so that quality.norm >= 4 is false rather than an error.
func plainEnv(rec *record.Record) map[string]any {
	m, _ := plain(reflect.ValueOf(rec).Elem(), reflect.TypeOf(*rec), 0).(map[string]any)
	return m
}

// plain converts v (of type t; v may be invalid: t's zero value).
func plain(v reflect.Value, t reflect.Type, depth int) any {
	if depth > 32 {
		return nil
	}
	valid := v.IsValid()
	switch t.Kind() {
	case reflect.Pointer:
		if valid && !v.IsNil() {
			return plain(v.Elem(), t.Elem(), depth+1)
		}
		return plain(reflect.Value{}, t.Elem(), depth+1)
	case reflect.Struct:
		fs := jsonFieldsOf(t)
		m := make(map[string]any, len(fs))
		for _, f := range fs {
			var fv reflect.Value
			if valid {
				fv = v.Field(f.index)
			}
			m[f.name] = plain(fv, f.typ, depth+1)
		}
		return m
	case reflect.Slice, reflect.Array:
		out := []any{}
		if valid {
			for i := 0; i < v.Len(); i++ {
				out = append(out, plain(v.Index(i), t.Elem(), depth+1))
			}
		}
		return out
	case reflect.Map:
		out := map[string]any{}
		if valid {
			it := v.MapRange()
			for it.Next() {
				out[fmt.Sprint(it.Key().Interface())] = plain(it.Value(), t.Elem(), depth+1)
			}
		}
		return out
	case reflect.String:
		if valid {
			return v.String()
		}
		return ""
	case reflect.Bool:
		return valid && v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if valid {
			return int(v.Int())
		}
		return 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if valid {
			return int(v.Uint())
		}
		return 0
	case reflect.Float32, reflect.Float64:
		if valid {
			return v.Float()
		}
		return 0.0
	case reflect.Interface:
		if valid && !v.IsNil() {
			return plain(v.Elem(), v.Elem().Type(), depth+1)
		}
	}
	return nil
}

type jsonField struct {
	index int
	name  string
	typ   reflect.Type
}

var structFields sync.Map // reflect.Type -> []jsonField

// jsonFieldsOf lists t's exported fields with a JSON name (cached: plain
// runs on every record).
func jsonFieldsOf(t reflect.Type) []jsonField {
	if v, ok := structFields.Load(t); ok {
		return v.([]jsonField)
	}
	var out []jsonField
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.IsExported() && name != "" && name != "-" {
			out = append(out, jsonField{i, name, f.Type})
		}
	}
	structFields.Store(t, out)
	return out
}
