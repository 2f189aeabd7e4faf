package dialogue

import (
	"slices"
	"strings"

	"github.com/ngkit/ngkit/pkg/dialogue/internal/lex"
)

// stabilize makes sure that Render's output of d reads back as d, so that a
// dialogue written out as text (ngcat --to text, the audit) is the one that
// was read. Mostly it does by construction; the check (a second parse) is
// paid only where it may not, and the text as read (prepared) is not already
// what Render writes: where a turn's text or direction holds a colon — cleaning a turn
// (taking out directions, markdown, quotes, escapes) can leave one where a
// line of its own shows a new speaker ("*\"A:*" → "\"A:") — or a line
// break, or where a weak form made turns (weak: "I a—0" is a speaker in the
// dash form, not before a colon). Then the dialogue is what Parse reads
// from Render's output. When that reads as no dialogue, or as lines it
// cannot place, a turn's continuation lines may be the cause ("i 0:\n0
// a:A\nA0—00": the narration that made the colon form win is rendered in
// brackets): then the turn's lines are joined with spaces.
func stabilize(d Dialogue, prepared string, weak bool) Dialogue {
	fragile := weak
	for _, t := range d.Turns {
		if fragile {
			break
		}
		fragile = strings.IndexByte(t.Text, '\n') >= 0 || hasColon(t.Text) || hasColon(t.Action)
	}
	if !fragile {
		return d
	}
	out := Render(d)
	if sameLines(out, prepared) {
		return d
	}
	for range 4 {
		q := parse1(out, "", nil)
		if len(q.Dialogues) != 1 || len(q.Unplaced) != 0 {
			if j, ok := joinLines(d); ok {
				if q := parse1(Render(j), "", nil); len(q.Dialogues) == 1 && len(q.Unplaced) == 0 && sameDialogue(q.Dialogues[0], j) {
					return j
				}
			}
			return d
		}
		if sameDialogue(q.Dialogues[0], d) {
			return d
		}
		d = q.Dialogues[0]
		out = Render(d)
	}
	return d
}

func hasColon(s string) bool {
	return strings.IndexByte(s, ':') >= 0 || strings.Contains(s, "：")
}

// sameLines reports whether a and b hold the same non-blank lines, each
// trimmed.
func sameLines(a, b string) bool {
	for {
		var la, lb string
		for la == "" && a != "" {
			la, a, _ = strings.Cut(a, "\n")
			la = lex.Trim(la)
		}
		for lb == "" && b != "" {
			lb, b, _ = strings.Cut(b, "\n")
			lb = lex.Trim(lb)
		}
		if la != lb {
			return false
		}
		if la == "" {
			return true
		}
	}
}

// joinLines is d with the line breaks in its turns' text made spaces; ok
// reports whether there were any.
func joinLines(d Dialogue) (Dialogue, bool) {
	ok := false
	turns := slices.Clone(d.Turns)
	for i, t := range d.Turns {
		if strings.IndexByte(t.Text, '\n') >= 0 {
			t.Text = strings.ReplaceAll(t.Text, "\n", " ")
			ok = true
		}
		turns[i] = t
	}
	d.Turns = turns
	return d, ok
}

func sameDialogue(a, b Dialogue) bool {
	if len(a.Turns) != len(b.Turns) || len(a.Narration) != len(b.Narration) {
		return false
	}
	for i := range a.Turns {
		x, y := a.Turns[i], b.Turns[i]
		if x.Index != y.Index || x.Speaker != y.Speaker || x.Action != y.Action || x.Text != y.Text {
			return false
		}
	}
	for i := range a.Narration {
		if a.Narration[i] != b.Narration[i] || narrAt(a, i) != narrAt(b, i) {
			return false
		}
	}
	return true
}

func narrAt(d Dialogue, i int) int {
	if i < len(d.NarrationAt) {
		return d.NarrationAt[i]
	}
	return len(d.Turns)
}
