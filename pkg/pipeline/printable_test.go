package pipeline

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/pkg/record"
)

// The "record ID (file:N) failed: ..." line and every message escape the
// control characters of the values they quote.
func TestMessagesEscapeControls(t *testing.T) {
	id := "x\x1b]52;c;cHduZWQ=\x07\x1b]0;title\x07\x1b[2J\u009b2J\x9b"
	var b bytes.Buffer
	var log *ErrorLog
	log.Add(&b, "ngcat", &record.Record{ID: id}, Item{Name: "in\x1b[2J.jsonl", Line: 3}, errors.New("culture \"k\x1b[2J\" failed\nsecond"))
	fmt.Fprintf(MessageWriter(&b), "ngcat: warning: %s\n", id)
	out := b.String()
	if strings.Count(out, "\n") != 2 || !strings.Contains(out, `record x\x1b]52;c;`) || !strings.Contains(out, `(in\x1b[2J.jsonl:3)`) {
		t.Fatalf("%q", out)
	}
	for i := 0; i < len(out); i++ {
		if c := out[i]; c < 0x20 && c != '\n' || c == 0x7f || c == 0x9b {
			t.Fatalf("raw control byte %#x in %q", c, out)
		}
	}
	if strings.Contains(out, "\u009b") {
		t.Fatalf("raw C1 in %q", out)
	}
}
