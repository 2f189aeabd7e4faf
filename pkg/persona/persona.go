// Package persona holds the persona attributes of generated records (who
// is talking or acting: age band, gender, relationship, hierarchy,
// setting): the personas file that names each attribute's values and
// weights, the deterministic sampling of one persona per record, and the
// expansion of a record into counterfactual variants (--vary) that differ
// only in the varied attributes.
//
// Sampling is a pure function of (seed, record id, attribute): the same
// inputs give the same persona on every run and machine, whatever the
// concurrency or the order of the records.
package persona

import (
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/ngkit/ngkit/pkg/record"
)

// Value is one value of an attribute and its weight (> 0).
type Value struct {
	Name   string
	Weight float64
}

// Attribute is a persona attribute and the values it is drawn from.
type Attribute struct {
	Name   string
	Values []Value
}

// Set is the contents of a personas file: attributes in file order.
type Set struct {
	Attrs []Attribute
}

// Vary is one --vary ATTR=v1,v2,...: every record is expanded into one
// variant per value.
type Vary struct {
	Attr   string
	Values []string
}

// ParseVary parses one --vary argument, ATTR=v1,v2,... Values are trimmed;
// an empty or repeated value is an error.
func ParseVary(s string) (Vary, error) {
	attr, list, ok := strings.Cut(s, "=")
	attr = strings.TrimSpace(attr)
	if !ok || attr == "" {
		return Vary{}, fmt.Errorf("--vary %q: want ATTR=VALUE,VALUE (values comma-separated)", s)
	}
	v := Vary{Attr: attr}
	for _, x := range strings.Split(list, ",") {
		x = strings.TrimSpace(x)
		if x == "" {
			return Vary{}, fmt.Errorf("--vary %q: empty value", s)
		}
		if slices.Contains(v.Values, x) {
			return Vary{}, fmt.Errorf("--vary %q: value %q given twice", s, x)
		}
		v.Values = append(v.Values, x)
	}
	return v, nil
}

// Sampler gives each record its persona and its variants. The zero value
// (or nil) does nothing.
type Sampler struct {
	Set  *Set
	Vary []Vary
	Seed int64
}

// NewSampler checks that the --vary attributes are distinct and makes the
// sampler. set may be nil (--vary alone).
func NewSampler(set *Set, vary []Vary, seed int64) (*Sampler, error) {
	seen := map[string]bool{}
	for _, v := range vary {
		if seen[v.Attr] {
			return nil, fmt.Errorf("--vary %s: attribute given twice", v.Attr)
		}
		seen[v.Attr] = true
	}
	if set == nil && len(vary) == 0 {
		return nil, nil
	}
	return &Sampler{Set: set, Vary: vary, Seed: seed}, nil
}

// Active says whether the sampler sets anything.
func (s *Sampler) Active() bool { return s != nil && (s.Set != nil || len(s.Vary) > 0) }

// unit maps (seed, id, attribute) to [0,1), uniformly.
func (s *Sampler) unit(id, attr string) float64 {
	h := fnv.New64a()
	h.Write([]byte("persona\x1f"))
	h.Write([]byte(strconv.FormatInt(s.Seed, 10)))
	h.Write([]byte{0x1f})
	h.Write([]byte(id))
	h.Write([]byte{0x1f})
	h.Write([]byte(attr))
	// FNV's low bits mix poorly on short keys: fold the high half in.
	x := h.Sum64()
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	return float64(x>>11) / float64(1<<53)
}

// Sample draws the persona of record id: one value per attribute of the
// set, each with probability weight / sum of weights. It is nil when the
// sampler has no set.
func (s *Sampler) Sample(id string) map[string]string {
	if s == nil || s.Set == nil || len(s.Set.Attrs) == 0 {
		return nil
	}
	p := make(map[string]string, len(s.Set.Attrs))
	for _, a := range s.Set.Attrs {
		total := 0.0
		for _, v := range a.Values {
			total += v.Weight
		}
		u := s.unit(id, a.Name) * total
		pick := a.Values[len(a.Values)-1].Name
		for _, v := range a.Values {
			if u < v.Weight {
				pick = v.Name
				break
			}
			u -= v.Weight
		}
		p[a.Name] = pick
	}
	return p
}

// Variant is one persona of a record's expansion and the id of the record
// that carries it.
type Variant struct {
	ID      string
	Persona map[string]string
}

// Variants expands base, the persona of the record with id baseID (nil
// for none), into the full product of the --vary values, in flag and value
// order: each variant is base with the varied attributes set. Their ids
// are VariantID(baseID, persona). Without --vary it is base alone, under
// baseID.
func (s *Sampler) Variants(baseID string, base map[string]string) []Variant {
	if s == nil || len(s.Vary) == 0 {
		return []Variant{{ID: baseID, Persona: base}}
	}
	out := []Variant{{Persona: maps.Clone(base)}}
	for _, v := range s.Vary {
		var next []Variant
		for _, o := range out {
			for _, val := range v.Values {
				p := maps.Clone(o.Persona)
				if p == nil {
					p = map[string]string{}
				}
				p[v.Attr] = val
				next = append(next, Variant{Persona: p})
			}
		}
		out = next
	}
	for i := range out {
		out[i].ID = s.VariantID(baseID, out[i].Persona)
	}
	return out
}

// Expand is the variants of record id: its persona (given, the one it
// already has, else sampled by id) expanded by --vary. A nil sampler gives
// the record alone, with the persona given.
func (s *Sampler) Expand(id string, given map[string]string) []Variant {
	if !s.Active() {
		return []Variant{{ID: id, Persona: given}}
	}
	if given == nil {
		given = s.Sample(id)
	}
	return s.Variants(id, given)
}

// ID is the id of the variant with persona of a record whose id would be
// baseID: baseID itself without --vary.
func (s *Sampler) ID(baseID string, persona map[string]string) string {
	if s == nil || len(s.Vary) == 0 {
		return baseID
	}
	return s.VariantID(baseID, persona)
}

// Varies says whether the sampler makes variants (--vary).
func (s *Sampler) Varies() bool { return s != nil && len(s.Vary) > 0 }

// VariantID is the id of the variant of record baseID with the varied
// attributes of persona: a hash of the base id and those attribute=value
// pairs (sorted), so the same variant gets the same id on every run.
func (s *Sampler) VariantID(baseID string, persona map[string]string) string {
	parts := []string{baseID, "vary"}
	for _, v := range s.Vary {
		parts = append(parts, v.Attr+"="+persona[v.Attr])
	}
	return record.NewID(parts...)
}

// Apply gives rec its persona and returns its variants: rec itself (with
// a persona sampled by its id when it has none) without --vary, else one
// copy per variant, each with its own id and variant_of the original id.
// A persona the record already has is kept (it came from upstream), and
// only the varied attributes are overwritten.
func (s *Sampler) Apply(rec *record.Record) []*record.Record {
	if !s.Active() {
		return []*record.Record{rec}
	}
	vs := s.Expand(rec.ID, rec.Persona)
	if len(s.Vary) == 0 {
		rec.Persona = vs[0].Persona
		return []*record.Record{rec}
	}
	out := make([]*record.Record, len(vs))
	for i, v := range vs {
		c := Clone(rec)
		c.ID, c.Persona, c.VariantOf = v.ID, v.Persona, rec.ID
		out[i] = c
	}
	return out
}

// Clone copies a record deeply enough for variants: the fields a stage
// appends to or edits (gen, turns, extra, persona) are copies.
func Clone(r *record.Record) *record.Record {
	c := *r
	c.Persona = maps.Clone(r.Persona)
	c.Extra = maps.Clone(r.Extra)
	c.Gen = slices.Clone(r.Gen)
	c.Turns = slices.Clone(r.Turns)
	c.Narration = slices.Clone(r.Narration)
	return &c
}

// Lines renders a persona for a prompt, one "attribute: value" per
// attribute, in key order ("" for none).
func Lines(p map[string]string) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(p)) {
		out = append(out, strings.ReplaceAll(k, "_", " ")+": "+p[k])
	}
	return out
}
