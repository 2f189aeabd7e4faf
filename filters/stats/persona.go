package stats

import (
	"slices"
	"strings"

	"github.com/ngkit/ngkit/pkg/record"
)

// PersonaGroup is the whole report of the records whose persona attribute
// Attr has Value ("" for records without it): every metric of the main
// report, within the group (near-duplicates too are found within it).
type PersonaGroup struct {
	Attr   string  `json:"attr"`
	Value  string  `json:"value"`
	Report *Report `json:"report"`
}

// byPersona collects one report per value of each --by attribute.
type byPersona struct {
	attrs  []string
	newC   func() *Collector
	groups map[[2]string]*Collector
}

// ByPersona makes the collector also report by each of the persona
// attributes attrs (ngstats --by ATTR): Report().ByPersona then holds one
// group per attribute and value. Call it before the first Add.
func (c *Collector) ByPersona(attrs ...string) {
	if len(attrs) == 0 {
		c.by = nil
		return
	}
	c.by = &byPersona{attrs: attrs, groups: map[[2]string]*Collector{}, newC: func() *Collector {
		g := NewCollector()
		g.IDs, g.Examples, g.DupThreshold = c.IDs, c.Examples, c.DupThreshold
		return g
	}}
}

func (b *byPersona) add(rec *record.Record) {
	if b == nil {
		return
	}
	for _, a := range b.attrs {
		k := [2]string{a, rec.Persona[a]}
		g := b.groups[k]
		if g == nil {
			g = b.newC()
			b.groups[k] = g
		}
		g.Add(rec)
	}
}

// reports are the groups in --by order, then by value ("" last).
func (b *byPersona) reports() []PersonaGroup {
	if b == nil {
		return nil
	}
	out := []PersonaGroup{}
	for _, a := range b.attrs {
		var vals []string
		for k := range b.groups {
			if k[0] == a {
				vals = append(vals, k[1])
			}
		}
		slices.SortFunc(vals, func(x, y string) int {
			if (x == "") != (y == "") {
				if x == "" {
					return 1
				}
				return -1
			}
			return strings.Compare(x, y)
		})
		for _, v := range vals {
			out = append(out, PersonaGroup{Attr: a, Value: v, Report: b.groups[[2]string{a, v}].Report()})
		}
	}
	return out
}
