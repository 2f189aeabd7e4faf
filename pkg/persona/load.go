package persona

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Load reads a personas file. Its format (YAML) maps each attribute to its
// values, either a list (equal weights) or a map of value to weight:
//
//	age: [18-29, 30-49, 50-64, 65+]
//	gender: {female: 1, male: 1}
//	relationship:
//	  colleagues: 3
//	  friends: 1
//
// Every problem is an error of one line that names the file and line.
func Load(path string) (*Set, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, b)
}

// Parse reads a personas file's contents; name is the file name for errors.
//
// Invariant (fuzzed): Parse never panics; it returns a Set or an error that
// starts with "name:line N: ", never both; a returned Set has at least one attribute, every attribute
// a distinct, non-empty name without '=' or ',' and at least one value,
// every value a distinct, non-empty name without ',' and a finite
// weight > 0.
func Parse(name string, b []byte) (*Set, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, yamlError(name, err)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, fmt.Errorf("%s:line 1: empty personas file: want attribute: [values...]", name)
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, errAt(name, root, "want a map of attribute to its values, got %s", kind(root))
	}
	if len(root.Content) == 0 {
		return nil, errAt(name, root, "no attribute")
	}
	set := &Set{}
	seen := map[string]bool{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		attr, err := label(name, k, "attribute name", "=,")
		if err != nil {
			return nil, err
		}
		if seen[attr] {
			return nil, errAt(name, k, "attribute %q given twice", attr)
		}
		seen[attr] = true
		a := Attribute{Name: attr}
		vseen := map[string]bool{}
		add := func(n *yaml.Node, val string, w float64) error {
			if vseen[val] {
				return errAt(name, n, "attribute %s: value %q given twice", attr, val)
			}
			vseen[val] = true
			a.Values = append(a.Values, Value{Name: val, Weight: w})
			return nil
		}
		switch v.Kind {
		case yaml.SequenceNode:
			for _, item := range v.Content {
				val, err := label(name, item, "value of "+attr, ",")
				if err != nil {
					return nil, err
				}
				if err := add(item, val, 1); err != nil {
					return nil, err
				}
			}
		case yaml.MappingNode:
			for j := 0; j+1 < len(v.Content); j += 2 {
				vk, vw := v.Content[j], v.Content[j+1]
				val, err := label(name, vk, "value of "+attr, ",")
				if err != nil {
					return nil, err
				}
				w, err := weight(name, vw, attr, val)
				if err != nil {
					return nil, err
				}
				if err := add(vk, val, w); err != nil {
					return nil, err
				}
			}
		default:
			return nil, errAt(name, v, "attribute %s: want a list of values or a map of value to weight, got %s", attr, kind(v))
		}
		if len(a.Values) == 0 {
			return nil, errAt(name, v, "attribute %s: no value", attr)
		}
		set.Attrs = append(set.Attrs, a)
	}
	return set, nil
}

// label reads a scalar name (an attribute or a value).
func label(name string, n *yaml.Node, what, forbidden string) (string, error) {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind != yaml.ScalarNode {
		return "", errAt(name, n, "%s: want a plain word, got %s", what, kind(n))
	}
	s := strings.TrimSpace(n.Value)
	switch {
	case s == "":
		return "", errAt(name, n, "%s is empty", what)
	case strings.ContainsAny(s, forbidden+"\n\r"):
		return "", errAt(name, n, "%s %q: must not hold %q or a line break", what, s, forbidden)
	}
	return s, nil
}

func weight(name string, n *yaml.Node, attr, val string) (float64, error) {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind != yaml.ScalarNode {
		return 0, errAt(name, n, "attribute %s, value %s: weight: want a number > 0, got %s", attr, val, kind(n))
	}
	w, err := strconv.ParseFloat(strings.TrimSpace(n.Value), 64)
	if err != nil || math.IsNaN(w) || math.IsInf(w, 0) || w <= 0 {
		return 0, errAt(name, n, "attribute %s, value %s: weight %q: want a number > 0", attr, val, n.Value)
	}
	return w, nil
}

func errAt(name string, n *yaml.Node, format string, a ...any) error {
	return fmt.Errorf("%s:line %d: %s", name, n.Line, fmt.Sprintf(format, a...))
}

// yamlError puts the line yaml names first, as every other error has it
// ("yaml: line 3: did not find expected key").
func yamlError(name string, err error) error {
	msg := strings.ReplaceAll(err.Error(), "\n", "; ")
	if rest, ok := strings.CutPrefix(msg, "yaml: line "); ok {
		if num, tail, ok := strings.Cut(rest, ":"); ok {
			if _, err := strconv.Atoi(num); err == nil {
				return fmt.Errorf("%s:line %s:%s", name, num, tail)
			}
		}
	}
	// yaml names no line when the problem is on the first (its marks
	// count from 0 and it omits 0).
	return fmt.Errorf("%s:line 1: %s", name, strings.TrimPrefix(msg, "yaml: "))
}

func kind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a map"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "nothing"
		}
		return fmt.Sprintf("%q", n.Value)
	case yaml.AliasNode:
		return "an alias"
	}
	return "something else"
}
