// Package seedreply is the canned model of ngseed: it answers ngseed's
// calls with scenarios and situations of the real NormGenesis release, of
// the culture and category of the norm asked about, so that the language,
// sentence and marker checks run on real English, Chinese and Korean
// text. The built-in demo model answers from the release records it
// bundles (testdata/demo), ngseed's tests (filters/seed/seedtest) from
// testdata/seed/release.jsonl.
package seedreply

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/ngkit/ngkit/internal/canned/wire"
	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/recio"
	"github.com/ngkit/ngkit/pkg/record"
)

// Pair is a scenario and situation of one release record.
type Pair struct {
	ID, Culture, Category, Type string
	Scenario, Situation         string
}

// Pool holds the release pairs by culture, category and dialogue type.
type Pool struct {
	by    map[[3]string][]Pair
	pairs []Pair
	norms []normbank.Norm
}

// Load reads the pairs of the release records in file (JSONL or Parquet).
func Load(file string) (*Pool, error) {
	recs, err := recio.ReadAll(file)
	if err != nil {
		return nil, err
	}
	return FromRecords(file, recs)
}

// FromRecords makes a pool of the pairs of release records read from
// file (named in the error when there are none).
func FromRecords(file string, recs []*record.Record) (*Pool, error) {
	p := &Pool{by: map[[3]string][]Pair{}, norms: normbank.BuiltinNorms()}
	for _, rec := range recs {
		p.Add(Pair{ID: rec.ID, Culture: rec.Culture, Category: rec.Category, Type: rec.DialogueType,
			Scenario: rec.Scenario, Situation: rec.Situation})
	}
	if len(p.pairs) == 0 {
		return nil, fmt.Errorf("%s: no pairs", file)
	}
	return p, nil
}

// Add adds a pair.
func (p *Pool) Add(x Pair) {
	k := [3]string{x.Culture, x.Category, x.Type}
	p.by[k] = append(p.by[k], x)
	p.pairs = append(p.pairs, x)
}

// Pairs returns the pairs of a culture, category and type; for a type
// the release lacks (Korean V2R), the culture's violation pairs.
func (p *Pool) Pairs(culture, category, typ string) []Pair {
	if ps := p.by[[3]string{culture, category, typ}]; len(ps) > 0 || typ != record.TypeV2R {
		return ps
	}
	return p.by[[3]string{culture, category, record.TypeViolation}]
}

// All returns every pair, in file order.
func (p *Pool) All() []Pair { return p.pairs }

// Replier answers ngseed's calls from a pool. Its zero options answer
// every call right the first time.
type Replier struct {
	Pool *Pool
	// NearDups replaces the last NearDups scenarios of the first scenarios
	// reply of each norm with near-duplicates of its first one (the same
	// text, case and punctuation changed; or with one word more).
	NearDups int
	// WrongLangFirst answers the first situation call of each scenario
	// with a situation of another culture, in another language.
	WrongLangFirst bool
	// PerReply is how many scenarios a scenarios call returns (default:
	// all the pool has for the norm's culture and category, unused ones).
	PerReply int
	// NormDups adds a near-duplicate norm to the first norms reply of each
	// category (see norms).
	NormDups bool
	// Distinct gives each norm of a culture and category its own run of
	// the pool's scenarios, as many as asked: the norm's rank among the
	// built-in norms of its culture and category times the count, so that
	// norms drawn together share no scenario (the built-in demo: a small
	// run has no duplicate). When the category's pairs run out, those of
	// the culture's other categories follow (candidates); a derived seed
	// takes the pair at its parent's place in that order.
	Distinct bool

	mu   sync.Mutex
	seen map[string]int
}

// Reply answers a request of ngseed.
func (r *Replier) Reply(req *wire.ChatRequest) string {
	user := req.LastUser()
	for _, m := range req.Messages { // the first user message: re-asks add more
		if m.Role == "user" {
			user = m.Text()
			break
		}
	}
	switch name := req.SchemaName(); name {
	case "seed_scenarios":
		return r.scenarios(user)
	case "seed_situation":
		return r.situation(user)
	case "seed_norms":
		return r.norms(user)
	case "seed_violation", "seed_v2r":
		return r.derived(user, strings.TrimPrefix(name, "seed_"))
	default:
		return fmt.Sprintf("no fake reply for schema %q", name)
	}
}

// first counts the requests for key and reports whether this is the first.
func (r *Replier) first(key string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.seen == nil {
		r.seen = map[string]int{}
	}
	r.seen[key]++
	return r.seen[key] == 1
}

// normIn finds the built-in norm a prompt is about.
func (p *Pool) normIn(text string) (normbank.Norm, bool) {
	for _, n := range p.norms {
		if strings.Contains(text, n.Text) {
			return n, true
		}
	}
	return normbank.Norm{}, false
}

// pairIn finds the release pair whose scenario a prompt quotes.
func (p *Pool) pairIn(text string) (Pair, bool) {
	for _, x := range p.pairs {
		if strings.Contains(text, x.Scenario) {
			return x, true
		}
	}
	return Pair{}, false
}

func (r *Replier) scenarios(user string) string {
	n, ok := r.Pool.normIn(user)
	if !ok {
		return `{"scenarios": ["The prompt names no known norm."]}`
	}
	if r.Distinct {
		return marshal(map[string]any{"scenarios": r.Pool.distinct(n, user)})
	}
	pairs := r.Pool.Pairs(n.Culture, n.Category, record.TypeAdherence)
	start := record.Bucket(n.ID, len(pairs))
	var out []string
	for i := range pairs {
		sc := pairs[(start+i)%len(pairs)].Scenario
		if !strings.Contains(user, sc) { // not one of those already taken
			out = append(out, sc)
		}
	}
	if r.PerReply > 0 && len(out) > r.PerReply {
		out = out[:r.PerReply]
	}
	if r.NearDups > 0 && r.first("scenarios "+n.ID) && len(out) > r.NearDups {
		for i := 0; i < r.NearDups; i++ {
			dup := out[0] + "!" // the same text once punctuation is ignored
			if i%2 == 1 {
				_, size := utf8.DecodeRuneInString(out[0])
				dup = out[0][size:] // one character less: Jaccard near 1
			}
			out[len(out)-1-i] = dup
		}
	}
	return marshal(map[string]any{"scenarios": out})
}

// distinct is the scenarios of Replier.Distinct: the count the prompt
// asks for, from the norm's rank times the count on, none the prompt
// names as already written.
func (p *Pool) distinct(n normbank.Norm, user string) []string {
	pairs := p.candidates(n.Culture, n.Category, record.TypeAdherence)
	count := 1 // "one scenario"
	first, _, _ := strings.Cut(strings.TrimSpace(user), "\n")
	if m := countRe.FindString(first); m != "" {
		count, _ = strconv.Atoi(m)
	}
	rank := 0
	for _, o := range p.norms {
		if o.ID == n.ID {
			break
		}
		if o.Culture == n.Culture && o.Category == n.Category {
			rank++
		}
	}
	var out []string
	for i := range pairs {
		sc := pairs[(rank*count+i)%len(pairs)].Scenario
		if len(out) < count && !strings.Contains(user, sc) {
			out = append(out, sc)
		}
	}
	return out
}

// candidates are the pairs of a culture, category and type, then those of
// the culture's other categories (in normbank.Categories order).
func (p *Pool) candidates(culture, category, typ string) []Pair {
	out := slices.Clone(p.Pairs(culture, category, typ))
	for _, c := range normbank.Categories() {
		if c != category {
			out = append(out, p.Pairs(culture, c, typ)...)
		}
	}
	return out
}

// countRe finds the count in the first line of a scenarios prompt.
var countRe = regexp.MustCompile(`\d+`)

// pairFor finds the pair whose scenario a prompt quotes or, for a
// scenario not from the release (one a fault made up), a pair of the
// norm's culture and category.
func (p *Pool) pairFor(user string) (Pair, bool) {
	if x, ok := p.pairIn(user); ok {
		return x, true
	}
	n, ok := p.normIn(user)
	if !ok {
		return Pair{}, false
	}
	pairs := p.Pairs(n.Culture, n.Category, record.TypeAdherence)
	if len(pairs) == 0 {
		return Pair{}, false
	}
	return pairs[record.Bucket(user, len(pairs))], true
}

func (r *Replier) situation(user string) string {
	x, ok := r.Pool.pairFor(user)
	if !ok {
		return `{"situation": "The prompt quotes no known scenario."}`
	}
	if r.WrongLangFirst && r.first("situation "+x.ID) {
		other := "american"
		if x.Culture == "american" {
			other = "korean"
		}
		if ps := r.Pool.Pairs(other, x.Category, record.TypeAdherence); len(ps) > 0 {
			return marshal(map[string]string{"situation": ps[0].Situation})
		}
	}
	return marshal(map[string]string{"situation": x.Situation})
}

func (r *Replier) derived(user, typ string) string {
	x, ok := r.Pool.pairFor(user)
	if !ok {
		return `{"scenario": "The prompt quotes no known scenario.", "situation": "None."}`
	}
	if n, ok := r.Pool.normIn(user); r.Distinct && ok {
		// the parent's place among the norm's candidates: distinct
		// parents get distinct derived seeds
		pairs := r.Pool.candidates(n.Culture, n.Category, typ)
		i := slices.IndexFunc(r.Pool.candidates(n.Culture, n.Category, record.TypeAdherence), func(a Pair) bool { return a.ID == x.ID })
		if typ == record.TypeV2R && len(r.Pool.by[[3]string{n.Culture, n.Category, typ}]) == 0 {
			// no V2R records (Korean): V2R seeds are violation records,
			// from the other half of the list than the violation seeds
			i += len(pairs) / 2
		}
		if len(pairs) > 0 && i >= 0 {
			y := pairs[i%len(pairs)]
			return marshal(map[string]string{"scenario": y.Scenario, "situation": y.Situation})
		}
	}
	pairs := r.Pool.Pairs(x.Culture, x.Category, typ)
	if len(pairs) == 0 {
		return `{"scenario": "No pair.", "situation": "None."}`
	}
	// By the parent's place among the adherence pairs, which a norm's
	// scenarios take in a row: up to len(pairs) seeds of a norm get
	// different derived seeds (ngstats counts duplicate scenarios).
	i := record.Bucket(x.ID, len(pairs))
	for j, a := range r.Pool.Pairs(x.Culture, x.Category, record.TypeAdherence) {
		if a.ID == x.ID {
			i = j
		}
	}
	y := pairs[i%len(pairs)]
	return marshal(map[string]string{"scenario": y.Scenario, "situation": y.Situation})
}

func marshal(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
