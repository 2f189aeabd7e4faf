package stats

import (
	"cmp"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/ngkit/ngkit/pkg/dedup"
	"github.com/ngkit/ngkit/pkg/record"
)

// DefaultDupThreshold is ngstats' and ngcat's default --dup-threshold: the
// estimated Jaccard similarity of character shingles at or above which two
// texts are near-duplicates (see docs/quality-loop.md for what it finds on the
// NormGenesis release).
const DefaultDupThreshold = 0.6

// NearDuplicates are the clusters of near-duplicate dialogues and
// scenarios over the whole corpus: each record joins the cluster of the
// first earlier record it is similar to, so a cluster's id is the id of
// its first record, the one ngcat --dedup near keeps.
type NearDuplicates struct {
	Threshold float64 `json:"threshold"`
	// Shingles says what is compared.
	Shingles  string      `json:"shingles"`
	Dialogues NearDupKind `json:"dialogues"`
	Scenarios NearDupKind `json:"scenarios"`
}

// NearDupKind are the clusters of one kind of text.
type NearDupKind struct {
	// Clusters of two records or more; Records in them beyond the first.
	Clusters int64 `json:"clusters"`
	Records  int64 `json:"records"`
	// List: the largest clusters first (at most --ids).
	List []NearCluster `json:"list"`
}

// NearCluster is one cluster: the id of its first record, its size, and
// its first members after that one with their similarity to the earlier
// record that brought them in.
type NearCluster struct {
	ID      string          `json:"id"`
	Size    int64           `json:"size"`
	Members []NearDupMember `json:"members"`
}

// NearDupMember is one record of a cluster.
type NearDupMember struct {
	ID         string  `json:"id"`
	Similarity float64 `json:"similarity"`
}

// maxMembers is how many members a cluster lists.
const maxMembers = 10

// ShinglesNote describes the shingles in reports.
const ShinglesNote = "MinHash (128 hashes) over character 5-grams (3-grams for Han, kana and Hangul) of the lower-cased text without punctuation; dialogues by their turn texts, scenarios within one dialogue type"

// nearIndex clusters one kind of text; ids[i] is the id of the i-th text.
type nearIndex struct {
	ix       *dedup.Index
	ids      []string
	clusters map[int]*NearCluster // by first text, clusters of two or more
}

func newNearIndex(threshold float64) *nearIndex {
	return &nearIndex{ix: dedup.NewIndex(threshold), clusters: map[int]*NearCluster{}}
}

// signed are a record's signatures: of its dialogue and of its scenario
// (ok false: none, no letters or no text).
type signed struct {
	dlg, scen     dedup.Signature
	dlgOK, scenOK bool
}

// signAll signs recs on every core into sigs (reused).
func signAll(recs []*record.Record, sigs []signed) []signed {
	sigs = slices.Grow(sigs[:0], len(recs))[:len(recs)]
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(recs)) {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < int64(len(recs)); i = next.Add(1) - 1 {
				r, s := recs[i], &sigs[i]
				s.dlgOK, s.scenOK = false, false
				if len(r.Turns) > 0 {
					s.dlg, s.dlgOK = dedup.Sign(dedup.DialogueText(r))
				}
				if r.Scenario != "" {
					s.scen, s.scenOK = dedup.Sign(r.Scenario)
				}
			}
		})
	}
	wg.Wait()
	return sigs
}

// add files one text's signature and reports whether it joined an earlier
// cluster.
func (n *nearIndex) add(id string, sig dedup.Signature, ok bool) bool {
	if !ok {
		return false
	}
	c, sim := n.ix.Add(sig)
	n.ids = append(n.ids, id)
	if c == len(n.ids)-1 {
		return false
	}
	cl := n.clusters[c]
	if cl == nil {
		cl = &NearCluster{ID: n.ids[c], Size: 1, Members: []NearDupMember{}}
		n.clusters[c] = cl
	}
	cl.Size++
	if len(cl.Members) < maxMembers {
		cl.Members = append(cl.Members, NearDupMember{ID: id, Similarity: sim})
	}
	return true
}

func (n *nearIndex) report(limit int) NearDupKind {
	k := NearDupKind{List: []NearCluster{}}
	for _, c := range n.clusters {
		k.Clusters++
		k.Records += c.Size - 1
		k.List = append(k.List, *c)
	}
	slices.SortFunc(k.List, func(a, b NearCluster) int { return cmp.Or(cmp.Compare(b.Size, a.Size), cmp.Compare(a.ID, b.ID)) })
	if limit > 0 && len(k.List) > limit {
		k.List = k.List[:limit]
	}
	return k
}

// nearDups holds the dialogue index and one scenario index per dialogue
// type: a violation seed is its adherence seed's scenario made to break
// the norm, by design, and is no duplicate of it.
type nearDups struct {
	threshold float64
	dialogues *nearIndex
	scenarios map[string]*nearIndex
}

func newNearDups(threshold float64) *nearDups {
	return &nearDups{threshold: threshold, dialogues: newNearIndex(threshold), scenarios: map[string]*nearIndex{}}
}

func (d *nearDups) scenario(rec *record.Record, sig *signed) bool {
	ix := d.scenarios[rec.DialogueType]
	if ix == nil {
		ix = newNearIndex(d.threshold)
		d.scenarios[rec.DialogueType] = ix
	}
	return ix.add(rec.ID, sig.scen, sig.scenOK)
}

func (d *nearDups) report(limit int) *NearDuplicates {
	r := &NearDuplicates{Threshold: d.threshold, Shingles: ShinglesNote, Dialogues: d.dialogues.report(limit)}
	all := &nearIndex{clusters: map[int]*NearCluster{}}
	i := 0
	for _, ix := range d.scenarios {
		for _, c := range ix.clusters {
			all.clusters[i] = c
			i++
		}
	}
	r.Scenarios = all.report(limit)
	return r
}
