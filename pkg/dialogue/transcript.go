package dialogue

import (
	"strconv"
	"strings"

	"github.com/ngkit/ngkit/pkg/record"
)

// Transcript writes turns for a prompt, one a line: "Speaker: (action)
// text", led by "[index] " when indexed (so that a model can name turns).
// Each field is put on one line (runs of white space become one space), so
// that a turn's text can never pass for another turn. The judges and
// labellers of ngv2r and nglabel show dialogues this way.
func Transcript(turns []record.Turn, indexed bool) string {
	var b strings.Builder
	for i, t := range turns {
		if i > 0 {
			b.WriteByte('\n')
		}
		if indexed {
			b.WriteString("[" + strconv.Itoa(t.Index) + "] ")
		}
		b.WriteString(oneLine(t.Speaker) + ":")
		if t.Action != "" {
			b.WriteString(" (" + oneLine(t.Action) + ")")
		}
		if t.Text != "" {
			b.WriteString(" " + oneLine(t.Text))
		}
	}
	return b.String()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
