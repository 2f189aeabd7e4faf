package cat

import (
	"fmt"

	"github.com/ngkit/ngkit/pkg/dedup"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/record"
)

// Dedup modes.
const (
	DedupExact = "exact"
	DedupNear  = "near"
)

// Dedup keeps the first record of each cluster of duplicates and drops the
// others (pipeline.Drop, with the id of the record kept). Dialogues are
// compared by their turns, records without turns (seeds) by their
// scenario, records with neither are kept. Exact: the same speakers,
// directions and texts, or the same scenario of the same culture and type.
// Near: as ngstats clusters them (pkg/dedup: MinHash over character
// shingles, over the whole stream; scenarios within one dialogue type).
// Memory: a key and two ids per record, and a signature for near.
type Dedup struct {
	pipeline.Sink
	Mode      string
	Threshold float64

	exact     map[uint64]firstOf
	dialogues *nearIDs
	scenarios map[string]*nearIDs
}

// firstOf is the first record of an exact key, and the record kept for
// it: the first of the near cluster it joined ("" when it was kept
// itself), so that a later exact copy names the record kept, not one
// dropped.
type firstOf struct{ id, kept string }

type nearIDs struct {
	ix  *dedup.Index
	ids []string
}

func (n *nearIDs) add(id, text string) (dupOf string, sim float64) {
	sig, ok := dedup.Sign(text)
	if !ok {
		return "", 0
	}
	c, sim := n.ix.Add(sig)
	n.ids = append(n.ids, id)
	if c == len(n.ids)-1 {
		return "", 0
	}
	return n.ids[c], sim
}

// Write implements pipeline.Sink.
func (d *Dedup) Write(r *record.Record) error {
	if d.exact == nil {
		d.exact = map[uint64]firstOf{}
		d.scenarios = map[string]*nearIDs{}
		d.dialogues = &nearIDs{ix: dedup.NewIndex(d.Threshold)}
	}
	var key uint64
	switch {
	case len(r.Turns) > 0:
		key = dedup.DialogueKey(r) ^ 1 // apart from scenario keys
	case r.Scenario != "":
		key = dedup.ScenarioKey(r)
	default:
		return d.Sink.Write(r)
	}
	// An exact duplicate is also a near one, even one without letters to
	// sign ("..." placeholders).
	if first, ok := d.exact[key]; ok {
		if first.kept != "" {
			return pipeline.Drop("--dedup near: in the cluster of %s (a duplicate of %s)", first.kept, first.id)
		}
		return pipeline.Drop("--dedup %s: a duplicate of %s", d.Mode, first.id)
	}
	d.exact[key] = firstOf{id: r.ID}
	if d.Mode == DedupExact {
		return d.Sink.Write(r)
	}
	var first string
	var sim float64
	if len(r.Turns) > 0 {
		first, sim = d.dialogues.add(r.ID, dedup.DialogueText(r))
	} else {
		ix := d.scenarios[r.DialogueType]
		if ix == nil {
			ix = &nearIDs{ix: dedup.NewIndex(d.Threshold)}
			d.scenarios[r.DialogueType] = ix
		}
		first, sim = ix.add(r.ID, r.Scenario)
	}
	if first != "" {
		d.exact[key] = firstOf{id: r.ID, kept: first}
		return pipeline.Drop("--dedup near: in the cluster of %s (similarity %.2f >= %.2f)", first, sim, d.Threshold)
	}
	return d.Sink.Write(r)
}

// ParseDedup checks a --dedup mode.
func ParseDedup(mode string) error {
	if mode != DedupExact && mode != DedupNear {
		return fmt.Errorf("--dedup %q: want exact or near", mode)
	}
	return nil
}
