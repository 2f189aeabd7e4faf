package cat

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/record"
	"github.com/ngkit/ngkit/pkg/suggest"
)

// Where keeps the records for which an expr-lang expression over the
// record's fields (by their JSON names: quality.norm, checks.lang_ok,
// turns[0].labels.intent) holds. The expression is compiled once and
// type-checked against record.Record: an unknown field, a comparison of a
// string with a number, or an expression that is not a boolean is an error
// before any record is read. A field the record lacks reads as its zero
// value ("", 0, false, an empty list), so that `quality.norm >= 4` is
// simply false for a record without quality scores.
//
// The expression runs on the record as plain JSON values (a map of JSON
// names, lists, strings, numbers, booleans: see plainEnv), never on Go
// values, so that it cannot call a method or read a Go field; and it runs
// bounded (see where_bound.go): a record whose evaluation would allocate
// more than whereMemory or take longer than whereTime stops the run.
type Where struct {
	src   string
	progs sync.Pool // of *evaluator: each has its own allocation budget
}

var recordType = reflect.TypeOf(record.Record{})

// CompileWhere compiles and type-checks src.
func CompileWhere(src string) (*Where, error) {
	r := &renamer{renamed: map[ast.Node]bool{}}
	// This compilation type-checks the expression against the record's
	// struct, for its errors (an unknown field, a string compared with a
	// number); the program that runs is compiled on plain values.
	_, err := expr.Compile(src, expr.Env(&record.Record{}), expr.AsBool(), expr.Patch(r))
	if r.unknown != "" {
		return nil, fmt.Errorf("--where %q: %s", src, r.unknown)
	}
	if err != nil {
		// expr's messages are multi-line (the expression with a caret);
		// keep the first line, which says what is wrong and where.
		msg, _, _ := strings.Cut(err.Error(), "\n")
		// expr: "unknown name dialog_type (1:1)": name the field meant.
		if rest, ok := strings.CutPrefix(msg, "unknown name "); ok {
			name, _, _ := strings.Cut(rest, " ")
			if near, ok := suggest.Nearest(name, jsonFields(recordType)); ok {
				msg += ": did you mean " + near + "?"
			}
		}
		return nil, fmt.Errorf("--where %q: %s", src, msg)
	}
	if _, err := newEvaluator(src); err != nil {
		msg, _, _ := strings.Cut(err.Error(), "\n")
		return nil, fmt.Errorf("--where %q: %s", src, msg)
	}
	return &Where{src: src}, nil
}

// renamer is an expr patch that maps the JSON names users write onto the Go
// field names expr sees, and refuses Go names (Quality, AddDefect): only
// the record's documented fields are part of the language. It runs until
// nothing changes, since a member's type is known only once its parent was
// renamed.
type renamer struct {
	applied bool
	renamed map[ast.Node]bool
	unknown string // the first unknown field, with what was expected
}

func (r *renamer) Reset()             { r.applied = false }
func (r *renamer) ShouldRepeat() bool { return r.applied }

func (r *renamer) Visit(node *ast.Node) {
	switch n := (*node).(type) {
	case *ast.IdentifierNode:
		if r.renamed[n] {
			return
		}
		if n.Value == "$env" {
			// $env["Tu"+"rns"] would name fields by computed (Go) names.
			if r.unknown == "" {
				r.unknown = "$env is not part of --where: name the record's fields (id, turns, quality.norm, ...)"
			}
			return
		}
		if g, ok := goField(recordType, n.Value); ok {
			n.Value = g
			r.renamed[n], r.applied = true, true
		} else if isGoMember(recordType, n.Value) {
			r.fail(recordType, "record", n.Value)
		}
	case *ast.MemberNode:
		s, ok := n.Property.(*ast.StringNode)
		if !ok || r.renamed[s] || n.Node.Type() == nil {
			return
		}
		t := n.Node.Type()
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return
		}
		if g, ok := goField(t, s.Value); ok {
			s.Value = g
			r.renamed[s], r.applied = true, true
		} else {
			r.fail(t, jsonPath(n.Node), s.Value)
		}
	}
}

func (r *renamer) fail(t reflect.Type, where, name string) {
	if r.unknown == "" {
		r.unknown = fmt.Sprintf("%s has no field %q (fields: %s)", where, name, strings.Join(jsonFields(t), ", "))
	}
}

// jsonPath spells a member's parent as the user wrote it, for messages.
func jsonPath(n ast.Node) string {
	switch n := n.(type) {
	case *ast.IdentifierNode:
		return jsonName(recordType, n.Value)
	case *ast.MemberNode:
		s, ok := n.Property.(*ast.StringNode)
		if !ok {
			return jsonPath(n.Node) + "[...]"
		}
		t := n.Node.Type()
		for t != nil && t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		return jsonPath(n.Node) + "." + jsonName(t, s.Value)
	case *ast.PointerNode:
		return "#"
	}
	return "the value"
}

// goField is the Go name of the field of struct t whose JSON name is name.
func goField(t reflect.Type, name string) (string, bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if j, _, _ := strings.Cut(f.Tag.Get("json"), ","); j == name && j != "-" && j != "" && f.IsExported() {
			return f.Name, true
		}
	}
	return "", false
}

func jsonName(t reflect.Type, goName string) string {
	if t != nil && t.Kind() == reflect.Struct {
		if f, ok := t.FieldByName(goName); ok {
			if j, _, _ := strings.Cut(f.Tag.Get("json"), ","); j != "" && j != "-" {
				return j
			}
		}
	}
	return goName
}

// isGoMember reports whether name is a Go field or method of t (or *t).
func isGoMember(t reflect.Type, name string) bool {
	if _, ok := t.FieldByName(name); ok {
		return true
	}
	_, ok := reflect.PointerTo(t).MethodByName(name)
	return ok
}

func jsonFields(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		if j, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); j != "" && j != "-" {
			out = append(out, j)
		}
	}
	sort.Strings(out)
	return out
}

// Drop is a --where / --drop-defects stage: records that fail the
// expression or have one of the named defects are dropped, with the
// reason, into the errors file (pipeline.Drop).
type Drop struct {
	Where *Where
	// Defects are the defect classes that drop a record; AnyDefect drops
	// every record with at least one.
	Defects []string
	// Find returns a record's defects (nil: those in checks.defects).
	Find func(*record.Record) []string
}

// AnyDefect, in Drop.Defects, matches every defect.
const AnyDefect = "any"

// Name implements pipeline.Stage.
func (d *Drop) Name() string { return "ngcat" }

// Process implements pipeline.Stage.
func (d *Drop) Process(_ context.Context, rec *record.Record) ([]*record.Record, error) {
	if len(d.Defects) > 0 {
		var found []string
		if d.Find != nil {
			found = d.Find(rec)
		} else if rec.Checks != nil {
			found = rec.Checks.Defects
		}
		for _, x := range found {
			if slices.Contains(d.Defects, AnyDefect) || slices.Contains(d.Defects, x) {
				return nil, pipeline.Drop("--drop-defects: has defect %s", x)
			}
		}
	}
	if d.Where != nil {
		ok, err := d.Where.Match(rec)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, pipeline.Drop("--where %q is false", d.Where.src)
		}
	}
	return []*record.Record{rec}, nil
}

// Chain runs stages one after the other on each record.
type Chain []pipeline.Stage

// Name implements pipeline.Stage: the first stage's name.
func (c Chain) Name() string { return c[0].Name() }

// Process implements pipeline.Stage.
func (c Chain) Process(ctx context.Context, rec *record.Record) ([]*record.Record, error) {
	recs := []*record.Record{rec}
	for _, s := range c {
		var next []*record.Record
		for _, r := range recs {
			out, err := s.Process(ctx, r)
			if err != nil {
				return nil, err
			}
			next = append(next, out...)
		}
		recs = next
	}
	return recs, nil
}

// ParseDefects parses --drop-defects: a list of class names, kinds of
// class ("content", "format": each stands for its classes) or "any";
// known lists the classes accepted (ngstats' names) and kinds their kinds,
// so a misspelt class is an error rather than a filter that drops nothing.
func ParseDefects(spec string, known []string, kinds map[string][]string) ([]string, error) {
	var out []string
	for _, d := range strings.Split(spec, ",") {
		d = strings.TrimSpace(d)
		switch {
		case d == AnyDefect || slices.Contains(known, d):
			out = append(out, d)
		case kinds[d] != nil:
			out = append(out, kinds[d]...)
		default:
			names := slices.Sorted(maps.Keys(kinds))
			if near, ok := suggest.Nearest(d, append(slices.Clone(names), known...)); ok {
				return nil, fmt.Errorf("--drop-defects: unknown defect class %q: did you mean %s?", d, near)
			}
			return nil, fmt.Errorf("--drop-defects: unknown defect class %q (want any, a kind: %s, or a class: %s)", d, strings.Join(names, ", "), strings.Join(known, ", "))
		}
	}
	return out, nil
}
