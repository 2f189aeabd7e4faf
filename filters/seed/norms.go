package seed

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/ngkit/ngkit/pkg/lang"
	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/prompt"
	"github.com/ngkit/ngkit/pkg/record"
)

// ngseed --make-norms: norms for a culture that has a profile
// but none of its own. One call per category asks the writer for the
// norms; each is checked (in the culture's norm language, 1-MaxNormSentences
// sentences, no format markers, not a near-duplicate of another norm of
// the category: the scenario measure, character n-gram Jaccard >=
// NearDupThreshold) and the dropped ones are asked for again, at most
// MaxTopUps more calls. The norms are written as norm records marked
// source "generated", for a person to review before ngseed uses them.

// Defaults and bounds of the norms.
const (
	DefaultNormsPerCategory = 10
	MaxNormSentences        = 4
	// GeneratedSource is the source field of a generated norm record.
	GeneratedSource = "generated"
)

// NormOptions configure a NormMaker.
type NormOptions struct {
	// Pack is the prompt pack (prompt.Builtin() when nil): seed/norms.
	Pack *prompt.Pack
	// PerCategory is the number of norms per category (>= 1).
	PerCategory int
	// MaxTopUps bounds the calls, after the first, asking for norms to
	// replace the dropped ones.
	MaxTopUps int
	// Profile finds a culture's profile; normbank.Profile when nil.
	Profile func(name string) (*normbank.Culture, error)
}

// NormMaker writes the norms of one culture and category per input
// record (CategorySource makes them). It is safe for concurrent use.
type NormMaker struct {
	caller llm.Caller
	opt    NormOptions

	cultures cultureCache
}

// NewNormMaker checks the options and makes the stage.
func NewNormMaker(caller llm.Caller, opt NormOptions) (*NormMaker, error) {
	switch {
	case caller == nil:
		return nil, fmt.Errorf("no model to write the norms")
	case opt.PerCategory < 1:
		return nil, fmt.Errorf("--norms-per-category %d: want at least 1", opt.PerCategory)
	case opt.MaxTopUps < 0:
		return nil, fmt.Errorf("--max-topups %d: cannot be negative", opt.MaxTopUps)
	}
	if opt.Pack == nil {
		opt.Pack = prompt.Builtin()
	}
	if opt.Profile == nil {
		opt.Profile = normbank.Profile
	}
	return &NormMaker{caller: caller, opt: opt}, nil
}

// Name implements pipeline.Stage.
func (m *NormMaker) Name() string { return "ngseed" }

// NormLang is the language a culture's norms are written in: its
// norm_lang, else its scenario language.
func NormLang(c *normbank.Culture) string {
	if l := lang.Normalize(c.NormLang); l != "" {
		return l
	}
	return lang.Normalize(c.ScenarioLang)
}

func (m *NormMaker) culture(name string) (*cultureEntry, error) {
	return m.cultures.get(name, m.opt.Profile, func(c *normbank.Culture) (*lang.Detector, error) { return lang.For(NormLang(c), c.Lang) })
}

// normPromptData is what seed/norms.tmpl sees.
type normPromptData struct {
	Culture, CultureName string
	Language, Lang       string
	Category             string
	Honorifics, Distance string
	MaxSentences         int
	// Count is how many norms to write; Have those already kept.
	Count int
	Have  []string
	// Examples are built-in norms of the category from other cultures, to
	// show the form.
	Examples []string
}

func newNormPromptData(c *normbank.Culture, category string, count int, have []string) normPromptData {
	nl := NormLang(c)
	return normPromptData{
		Culture: c.Display(), CultureName: c.Name, Language: lang.Name(nl), Lang: nl,
		Category: strings.ReplaceAll(category, "_", " "), Honorifics: oneLine(c.Honorifics), Distance: oneLine(c.Distance),
		MaxSentences: MaxNormSentences, Count: count, Have: slices.Clone(have), Examples: normExamples(category, c.Name, 2),
	}
}

// Process implements pipeline.Stage: a {culture, category} record in, its
// norm records out; the category fails as a whole.
func (m *NormMaker) Process(ctx context.Context, rec *record.Record) ([]*record.Record, error) {
	culture, category := strings.ToLower(strings.TrimSpace(rec.Culture)), strings.ToLower(strings.TrimSpace(rec.Category))
	if culture == "" || category == "" {
		return nil, fmt.Errorf("a category record needs culture and category")
	}
	cu, err := m.culture(culture)
	if err != nil {
		return nil, err
	}
	want := m.opt.PerCategory
	nl := NormLang(cu.c)
	var kept []string
	var gens []record.Gen
	var seen dedup
	dropped := map[string]int{}
	for call := 1; len(kept) < want; call++ {
		if call > 1+m.opt.MaxTopUps {
			return nil, fmt.Errorf("only %d of %d usable, distinct %s norms after %d calls (dropped: %s)",
				len(kept), want, category, call-1, summaryOf(dropped, "norms"))
		}
		data := newNormPromptData(cu.c, category, want-len(kept), kept)
		check := func(r *llm.Response) (any, error) {
			var v struct {
				Norms []string `json:"norms"`
			}
			if err := r.Decode(&v); err != nil {
				return nil, err
			}
			if err := mostlyUsable(v.Norms, "norms", func(n string) error { return CheckNorm(cu.det, n, nl) }); err != nil {
				return nil, err
			}
			return v.Norms, nil
		}
		name := "norms"
		if call > 1 {
			name += "." + strconv.Itoa(call)
		}
		p, err := m.opt.Pack.Render("seed", "norms", cu.c.Name, data)
		if err != nil {
			return nil, err
		}
		resp, err := m.caller.Call(ctx, llm.Request{
			ID: rec.ID, Call: name, Schema: "seed_norms", PromptPack: m.opt.Pack.Version(), Check: check,
			Messages: []llm.Message{llm.System(p.System), llm.User(p.User)},
		})
		if err != nil {
			return nil, err
		}
		gens = append(gens, resp.Gen)
		items, _ := resp.Checked.([]string)
		if len(items) == 0 {
			dropped["empty reply"]++
		}
		for _, n := range items {
			if len(kept) == want {
				break
			}
			n = oneLine(n)
			if err := CheckNorm(cu.det, n, nl); err != nil {
				dropped[kindOf(err)]++
				continue
			}
			if !seen.add(n) {
				dropped["near-duplicate"]++
				continue
			}
			kept = append(kept, n)
		}
	}
	out := make([]*record.Record, len(kept))
	src, _ := json.Marshal(GeneratedSource)
	for i, n := range kept {
		id := record.NormID(culture, category, n)
		out[i] = &record.Record{ID: id, Culture: culture, Category: category, NormID: id, Norm: n,
			Extra: map[string]json.RawMessage{"source": src}, Gen: slices.Clone(gens)}
	}
	return out, nil
}

// CheckNorm judges one generated norm: not empty, no format marker, 1 to
// MaxNormSentences sentences, in want.
func CheckNorm(det *lang.Detector, n, want string) error {
	return checkText(det, "norm", n, 1, MaxNormSentences, want)
}

// normExamples are up to n built-in norms of the category, of cultures
// other than culture, the first of each, to show the form.
func normExamples(category, culture string, n int) []string {
	var out []string
	seen := map[string]bool{culture: true}
	for _, x := range normbank.Norms("", []string{category}) {
		if !seen[x.Culture] && len(out) < n {
			seen[x.Culture] = true
			out = append(out, x.Culture+": "+x.Text)
		}
	}
	return out
}

// CategorySource yields one {culture, category} record per category, the
// input of a NormMaker.
func CategorySource(culture string, categories []string) pipeline.Source {
	items := make([]pipeline.Item, len(categories))
	for i, c := range categories {
		c = strings.ToLower(strings.TrimSpace(c))
		items[i] = pipeline.Item{Rec: &record.Record{ID: record.NewID("make-norms", culture, c), Culture: culture, Category: c},
			Name: "--make-norms", Line: int64(i + 1)}
	}
	return &itemSource{items: items}
}

type itemSource struct {
	items []pipeline.Item
	i     int
}

func (s *itemSource) Next() (pipeline.Item, error) {
	if s.i == len(s.items) {
		return pipeline.Item{}, io.EOF
	}
	s.i++
	return s.items[s.i-1], nil
}

func (s *itemSource) Close() error { return nil }
