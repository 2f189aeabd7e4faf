package stats

import (
	"cmp"
	"slices"

	"github.com/cespare/xxhash/v2"

	"github.com/ngkit/ngkit/filters/stats/pactstats"
	"github.com/ngkit/ngkit/filters/stats/simstats"
	"github.com/ngkit/ngkit/pkg/audit"
	"github.com/ngkit/ngkit/pkg/dedup"
	"github.com/ngkit/ngkit/pkg/record"
)

// Collector folds audited records into a Report, one at a time, in input
// order (it is the pipeline's Sink; records must have been through Audit).
//
// Memory is bounded by what the corpus holds distinct, not by its size:
// counters per culture, type and category; a histogram of each length
// (see hist); at most DistinctExactLimit n-gram hashes per language
// (then HyperLogLog); IDs ids per defect class and Examples examples per
// language mismatch kind; and, for duplicate detection, a 64-bit hash of
// every distinct dialogue and scenario and their MinHash signatures (about
// 1 KB per record, see pkg/minhash).
type Collector struct {
	// IDs is how many ids each defect class lists (0: all).
	IDs int
	// Examples is how many turns each language mismatch kind shows.
	Examples int
	// Done, when set, is called by Close with the finished report.
	Done func(*Report) error
	// DupThreshold is the similarity of near-duplicates (0: the default).
	DupThreshold float64
	// RankBy is the simulation leaderboard's order (simstats.RankBys; "": the
	// default, assistance as the CultureConverse paper ranks).
	RankBy string
	// Browse keeps Examples dialogues of each culture and type, and every
	// record with the ShowDefect class, for the HTML report's browser.
	Browse     bool
	ShowDefect string

	rep        Report
	recDefects bool // the record being added has a defect
	byCulture  map[string]*Count
	byType     map[string]*Count
	byCategory map[string]*Count
	byCultType map[string]*Count
	turns      hist
	speakers   hist
	lengths    map[string]*lenAcc
	cultures   map[string]*consAcc
	defects    map[string]*Defect
	dlgExact   u64set
	scenExact  u64set
	// variantScen maps a counterfactual group (variant_of, else the
	// record's id; hashed) to the scenario key of its first record.
	variantScen map[uint64]uint64
	near        *nearDups
	review      *reviewAcc
	browse      *browseAcc
	recNames    []string // the defects of the record being added
	labels      map[[2]string]*LabelDist
	quality     map[string]*qualAcc
	extras      labelExtras // intent by stage, agreement, pairwise
	speakerSeen map[string]struct{}
	buf         []byte
	gens        map[genKey]*GenCost // models.go
	panel       *panelAcc

	pact pactstats.Acc
	sim  simstats.Acc

	by *byPersona // --by: a report per persona attribute value (persona.go)

	// Records wait in pending until a batch is full (or Report), so that
	// their near-duplicate signatures are computed on every core before
	// they are folded in order; sig is the one of the record being folded.
	pending []*record.Record
	sigs    []signed
	sig     *signed
}

// batch is how many records are signed at once.
const batch = 256

type lenAcc struct {
	turns         int64
	chars, tokens hist
	uni, bi       *distinct
}

type consAcc struct {
	LangConsistency
	expected   map[string]int64
	mismatches map[string]*Mismatch
}

type qualAcc struct {
	n    int64
	sum  [7]int64
	cnt  [7]int64
	name string
}

// NewCollector returns an empty collector.
func NewCollector() *Collector {
	return &Collector{
		IDs:         100,
		Examples:    3,
		byCulture:   map[string]*Count{},
		byType:      map[string]*Count{},
		byCategory:  map[string]*Count{},
		byCultType:  map[string]*Count{},
		lengths:     map[string]*lenAcc{},
		cultures:    map[string]*consAcc{},
		defects:     map[string]*Defect{},
		labels:      map[[2]string]*LabelDist{},
		quality:     map[string]*qualAcc{},
		extras:      newLabelExtras(),
		review:      newReviewAcc(),
		speakerSeen: map[string]struct{}{},
	}
}

// Write implements pipeline.Sink.
func (c *Collector) Write(rec *record.Record) error {
	c.Add(rec)
	return nil
}

// Close implements pipeline.Sink: it hands the report to Done.
func (c *Collector) Close() error {
	if c.Done == nil {
		return nil
	}
	return c.Done(c.Report())
}

// Abort implements pipeline.Sink; a report of part of the input is not
// written.
func (c *Collector) Abort() {}

func count(m map[string]*Count, key string, dialogues, turns int64) {
	g := m[key]
	if g == nil {
		g = &Count{Key: key}
		m[key] = g
	}
	g.Records++
	g.Dialogues += dialogues
	g.Turns += turns
}

// Add folds one audited record into the report (in batches: Report
// folds what is pending).
func (c *Collector) Add(rec *record.Record) {
	c.pending = append(c.pending, rec)
	if len(c.pending) == batch {
		c.flush()
	}
}

// flush signs the pending records on every core, then folds them in order.
func (c *Collector) flush() {
	c.sigs = signAll(c.pending, c.sigs)
	for i, rec := range c.pending {
		c.sig = &c.sigs[i]
		c.add(rec)
		c.pending[i] = nil
	}
	c.sig, c.pending = nil, c.pending[:0]
}

func (c *Collector) add(rec *record.Record) {
	c.by.add(rec)
	c.rep.Records++
	if record.IsDemo(rec) {
		c.rep.DemoRecords++
	}
	c.addGen(rec)
	c.addPanel(rec)
	c.pact.Add(rec)
	c.sim.Add(rec)
	c.recDefects = false
	c.recNames = c.recNames[:0]
	group := rec.Culture + "/" + rec.DialogueType
	if c.Browse && c.browse == nil {
		c.browse = &browseAcc{examples: c.Examples, showDefect: c.ShowDefect, perGroup: map[string]int{}}
	}
	defer func() {
		if c.recDefects {
			c.rep.RecordsWithDefects++
		}
		c.browse.add(rec, group, c.recNames)
	}()
	nt := int64(len(rec.Turns))
	var isDlg int64
	if nt > 0 {
		isDlg = 1
	}
	count(c.byCulture, rec.Culture, isDlg, nt)
	count(c.byType, rec.DialogueType, isDlg, nt)
	count(c.byCategory, rec.Category, isDlg, nt)
	count(c.byCultType, group, isDlg, nt)
	if rec.Checks != nil {
		for _, d := range rec.Checks.Defects {
			c.defect(d, rec.ID)
		}
	}
	c.scenario(rec)
	c.addQuality(rec, group)
	c.extras.record(rec)
	c.review.record(rec)
	if nt == 0 {
		return
	}
	c.rep.Dialogues++
	c.rep.Turns += nt
	c.turns.add(nt)
	c.dialogue(rec, group)
	c.language(rec)
	c.duplicates(rec)
}

// dialogue counts speakers, same-speaker runs, lengths and labels.
func (c *Collector) dialogue(rec *record.Record, group string) {
	clear(c.speakerSeen)
	pairs := int64(0)
	expected := audit.ExpectedLang(rec)
	for i := range rec.Turns {
		t := &rec.Turns[i]
		c.speakerSeen[t.Speaker] = struct{}{}
		if i > 0 && t.Speaker == rec.Turns[i-1].Speaker {
			pairs++
		}
		l := t.Lang
		if l == "" {
			l = expected
		}
		if l == "" {
			l = audit.Undetermined
		}
		c.length(l, t.Text)
		if t.Labels != nil {
			c.label(t.Labels, group)
			c.extras.turn(rec, t)
		}
		c.review.turn(rec, t)
	}
	c.speakers.add(int64(len(c.speakerSeen)))
	if pairs > 0 {
		c.rep.SameSpeaker.Pairs += pairs
		c.rep.SameSpeaker.Dialogues++
	}
}

func (c *Collector) length(l, text string) {
	a := c.lengths[l]
	if a == nil {
		a = &lenAcc{uni: newDistinct(), bi: newDistinct()}
		c.lengths[l] = a
	}
	a.turns++
	var prev uint64
	first := true
	chars, tokens := measure(text, &c.buf, func(h uint64) {
		a.uni.add(h)
		if !first {
			a.bi.add(record.Mix64(prev*31 ^ h))
		}
		prev, first = h, false
	})
	a.chars.add(chars)
	a.tokens.add(tokens)
}

// language counts the turns in and out of the expected language (set by
// Audit in checks.lang_expected).
func (c *Collector) language(rec *record.Record) {
	if rec.Checks == nil || rec.Checks.LangExpected == "" {
		return
	}
	exp := rec.Checks.LangExpected
	a := c.cultures[rec.Culture]
	if a == nil {
		a = &consAcc{expected: map[string]int64{}, mismatches: map[string]*Mismatch{}}
		a.Culture = rec.Culture
		c.cultures[rec.Culture] = a
	}
	a.Records++
	a.expected[exp]++
	accepted := audit.AcceptedLangs(rec, exp)
	if rec.Checks.LangOK != nil && !*rec.Checks.LangOK {
		a.RecordsBelow++
	}
	for i, t := range rec.Turns {
		a.Turns++
		if t.Lang == "" {
			continue
		}
		a.Confident++
		if slices.Contains(accepted, t.Lang) {
			a.Matching++
			continue
		}
		m := a.mismatches[t.Lang]
		if m == nil {
			m = &Mismatch{Detected: t.Lang, Examples: []Example{}}
			a.mismatches[t.Lang] = m
		}
		m.Turns++
		if len(m.Examples) < c.Examples {
			m.Examples = append(m.Examples, Example{ID: rec.ID, Turn: i, Text: shorten(t.Text, 120)})
		}
	}
}

func (c *Collector) defect(name, id string) {
	d := c.defects[name]
	if d == nil {
		kind, help, ok := audit.Describe(name)
		if !ok {
			kind, help = "other", "reported by an earlier stage"
		}
		d = &Defect{Name: name, Kind: kind, Help: help, IDs: []string{}}
		c.defects[name] = d
	}
	d.Count++
	c.recDefects = true
	c.recNames = append(c.recNames, name)
	if c.IDs <= 0 || len(d.IDs) < c.IDs {
		d.IDs = append(d.IDs, id)
	} else {
		d.More++
	}
}

// seen adds h to set and reports whether it was there.
func seen(set *u64set, h uint64) bool { return !set.add(h) }

func (c *Collector) nearDups() *nearDups {
	if c.near == nil {
		t := c.DupThreshold
		if t <= 0 {
			t = DefaultDupThreshold
		}
		c.near = newNearDups(t)
	}
	return c.near
}

func (c *Collector) duplicates(rec *record.Record) {
	dupExact := seen(&c.dlgExact, dedup.DialogueKey(rec))
	dupNear := c.nearDups().dialogues.add(rec.ID, c.sig.dlg, c.sig.dlgOK)
	switch {
	case dupExact:
		c.defect(audit.DefectDuplicateDialogue, rec.ID)
	case dupNear:
		c.defect(audit.DefectNearDupDialogue, rec.ID)
	}
}

func (c *Collector) scenario(rec *record.Record) {
	// PACT items put one scenario to actors of several ages, genders
	// and countries on purpose: their scenarios are not duplicates.
	if rec.Scenario == "" || rec.PactItem != nil {
		return
	}
	key := dedup.ScenarioKey(rec)
	// A counterfactual variant (ngseed --vary) repeats its group's
	// scenario on purpose: not a duplicate. Its text is not compared again.
	group := pactstats.Group(rec)
	if c.variantScen == nil {
		c.variantScen = map[uint64]uint64{}
	}
	g := xxhash.Sum64String(group)
	if first, ok := c.variantScen[g]; ok && first == key {
		return
	} else if !ok {
		c.variantScen[g] = key
	}
	dupExact := seen(&c.scenExact, key)
	dupNear := c.nearDups().scenario(rec, c.sig)
	switch {
	case dupExact:
		c.defect(audit.DefectDuplicateScenario, rec.ID)
	case dupNear:
		c.defect(audit.DefectNearDupScenario, rec.ID)
	}
}

// labelTasks are the label tasks in report order (record.LabelTasks).
func labelTasks() []string { return record.LabelTaskNames() }

func (c *Collector) label(l *record.Labels, group string) {
	for _, task := range record.LabelTasks {
		v := *task.Field(l)
		if v == "" {
			continue
		}
		for _, g := range []string{"all", group} {
			k := [2]string{task.Name, g}
			d := c.labels[k]
			if d == nil {
				d = &LabelDist{Task: k[0], Group: g, Counts: map[string]int64{}}
				c.labels[k] = d
			}
			d.Turns++
			d.Counts[v]++
		}
	}
}

func (c *Collector) addQuality(rec *record.Record, group string) {
	q := rec.Quality
	if q == nil {
		return
	}
	for _, g := range []string{"all", group} {
		a := c.quality[g]
		if a == nil {
			a = &qualAcc{name: g}
			c.quality[g] = a
		}
		a.n++
		for i, v := range []int{q.Consistency, q.Naturalness, q.Relevance, q.Coherence, q.Emotion, q.Norm, q.Fit} {
			if v > 0 {
				a.sum[i] += int64(v)
				a.cnt[i]++
			}
		}
	}
}

func counts(m map[string]*Count) []Count {
	out := make([]Count, 0, len(m))
	for _, g := range m {
		out = append(out, *g)
	}
	slices.SortFunc(out, func(a, b Count) int { return cmp.Compare(a.Key, b.Key) })
	return out
}

// Report returns the report of everything added so far.
func (c *Collector) Report() *Report {
	c.flush()
	r := c.rep
	r.Version = Version
	r.ByPersona = c.by.reports()
	r.Counts = Counts{
		ByCulture:     counts(c.byCulture),
		ByType:        counts(c.byType),
		ByCategory:    counts(c.byCategory),
		ByCultureType: counts(c.byCultType),
	}
	r.TurnsPerDialogue = c.turns.summary()
	r.SpeakersPerDialogue = c.speakers.summary()
	r.Lengths = []LangLengths{}
	for l, a := range c.lengths {
		d1, ap1 := a.uni.ratio()
		d2, ap2 := a.bi.ratio()
		r.Lengths = append(r.Lengths, LangLengths{Lang: l, Turns: a.turns, Chars: a.chars.summary(), Tokens: a.tokens.summary(),
			Distinct1: d1, Distinct2: d2, Approx: ap1 || ap2})
	}
	slices.SortFunc(r.Lengths, func(a, b LangLengths) int {
		return cmp.Or(cmp.Compare(b.Turns, a.Turns), cmp.Compare(a.Lang, b.Lang))
	})
	r.Language = []LangConsistency{}
	for _, a := range c.cultures {
		lc := a.LangConsistency
		var best int64
		for l, n := range a.expected {
			if n > best || n == best && l < lc.Expected {
				lc.Expected, best = l, n
			}
		}
		if lc.Confident > 0 {
			lc.Share = float64(lc.Matching) / float64(lc.Confident)
		}
		lc.Mismatches = []Mismatch{}
		for _, m := range a.mismatches {
			lc.Mismatches = append(lc.Mismatches, *m)
		}
		slices.SortFunc(lc.Mismatches, func(a, b Mismatch) int {
			return cmp.Or(cmp.Compare(b.Turns, a.Turns), cmp.Compare(a.Detected, b.Detected))
		})
		r.Language = append(r.Language, lc)
	}
	slices.SortFunc(r.Language, func(a, b LangConsistency) int { return cmp.Compare(a.Culture, b.Culture) })
	r.Defects = []Defect{}
	for _, d := range c.defects {
		dd := *d
		dd.Rate = float64(d.Count) / float64(max(r.Records, 1))
		r.Defects = append(r.Defects, dd)
	}
	slices.SortFunc(r.Defects, func(a, b Defect) int { return cmp.Compare(a.Name, b.Name) })
	r.NearDuplicates = c.nearDups().report(c.IDs)
	r.Review = c.review.report()
	r.Browser = c.browse.report()
	r.Calls, r.Panel = c.genReport(), c.panel.report()
	r.Pact, r.Sim = c.pact.Report(), c.sim.Report(c.RankBy)
	if len(c.labels) > 0 || len(c.quality) > 0 || !c.extras.empty() {
		r.Labels = &Labels{Dist: []LabelDist{}}
		for _, d := range c.labels {
			r.Labels.Dist = append(r.Labels.Dist, *d)
		}
		tasks := labelTasks()
		slices.SortFunc(r.Labels.Dist, func(a, b LabelDist) int {
			return cmp.Or(cmp.Compare(slices.Index(tasks, a.Task), slices.Index(tasks, b.Task)),
				cmp.Compare(groupOrder(a.Group), groupOrder(b.Group)), cmp.Compare(a.Group, b.Group))
		})
		for _, a := range c.quality {
			m := QualityMeans{Group: a.name, N: a.n}
			for i, p := range []*float64{&m.Consistency, &m.Naturalness, &m.Relevance, &m.Coherence, &m.Emotion, &m.Norm, &m.Fit} {
				if a.cnt[i] > 0 {
					*p = float64(a.sum[i]) / float64(a.cnt[i])
				}
			}
			r.Labels.Quality = append(r.Labels.Quality, m)
		}
		slices.SortFunc(r.Labels.Quality, func(a, b QualityMeans) int {
			return cmp.Or(cmp.Compare(groupOrder(a.Group), groupOrder(b.Group)), cmp.Compare(a.Group, b.Group))
		})
		c.extras.report(r.Labels)
	}
	return &r
}

// groupOrder puts "all" first.
func groupOrder(g string) int {
	if g == "all" {
		return 0
	}
	return 1
}
