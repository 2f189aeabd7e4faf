package dedup

import (
	"strings"

	"github.com/cespare/xxhash/v2"
	"github.com/ngkit/ngkit/pkg/record"
)

// DialogueKey is the hash two exact duplicates of a dialogue share: the
// same speakers, stage directions and texts, turn by turn.
func DialogueKey(rec *record.Record) uint64 {
	var d xxhash.Digest
	d.Reset()
	for _, t := range rec.Turns {
		d.WriteString(t.Speaker)
		d.WriteString("\x1f")
		d.WriteString(t.Action)
		d.WriteString("\x1f")
		d.WriteString(t.Text)
		d.WriteString("\x1e")
	}
	return d.Sum64()
}

// ScenarioKey is the hash two exact duplicates of a scenario share: the
// same text, culture and dialogue type.
func ScenarioKey(rec *record.Record) uint64 {
	var d xxhash.Digest
	d.Reset()
	d.WriteString(rec.Culture)
	d.WriteString("\x00")
	d.WriteString(rec.DialogueType)
	d.WriteString("\x00")
	d.WriteString(rec.Scenario)
	return d.Sum64()
}

// DialogueText is the text a dialogue is compared by for near-duplicates:
// its turn texts, one per line (speakers and stage directions left out,
// so that renamed speakers do not hide a copy).
func DialogueText(rec *record.Record) string {
	texts := make([]string, len(rec.Turns))
	for i, t := range rec.Turns {
		texts[i] = t.Text
	}
	return strings.Join(texts, "\n")
}
