package stats

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ngkit/ngkit/pkg/audit"
	"github.com/ngkit/ngkit/pkg/lang"
	"github.com/ngkit/ngkit/pkg/record"
)

// FuzzParseFailOn: any accepted spec has known names and rates in [0, 1].
func FuzzParseFailOn(f *testing.F) {
	for _, s := range []string{"end_marker=0.01", "any=5%,wrong_language=0", "x=1", "=", "end_marker=1e-3,,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ts, err := ParseFailOn(s)
		if err != nil {
			return
		}
		for _, th := range ts {
			if _, _, ok := audit.Describe(th.Defect); !ok && th.Defect != AnyDefect || !(th.Max >= 0 && th.Max <= 1) {
				t.Fatalf("%q accepted as %+v", s, th)
			}
		}
	})
}

var scriptOnly = func() *lang.Detector {
	d, err := lang.New("ko", "zh", "ja")
	if err != nil {
		panic(err)
	}
	return d
}()

// FuzzAuditCollect: any turn texts go through the audit and the collector
// without a panic, and the counts add up.
func FuzzAuditCollect(f *testing.F) {
	for _, s := range []string{"Hi [END]\nB: ho", "你好，世界", "\\n---\n**x**", "", "Dialogue:\n안녕"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		var ts []record.Turn
		for i, line := range strings.Split(s, "|") {
			ts = append(ts, record.Turn{Index: i, Speaker: string(rune('A' + i%3)), Text: line})
		}
		// A script-only detector: each fuzz worker would otherwise load
		// lingua's models (~0.5 s of CPU), enough on a busy machine to run
		// the short CI fuzz past its deadline. The collector's invariants
		// do not depend on which language is found.
		a := &audit.Audit{Detector: scriptOnly, MinTurns: 5, MaxTurns: 15, MinLangShare: 0.8}
		c := NewCollector()
		for _, id := range []string{"f", "g"} {
			rec := &record.Record{ID: id, Culture: "korean", Turns: slices.Clone(ts)}
			a.Record(rec)
			c.Add(rec)
		}
		r := c.Report()
		if r.Turns != int64(2*len(ts)) || r.TurnsPerDialogue.N != 2 {
			t.Fatalf("%d turns counted of %d", r.Turns, 2*len(ts))
		}
		var n int64
		for _, l := range r.Lengths {
			n += l.Turns
			if l.Tokens.Max > l.Chars.Max {
				t.Fatalf("more tokens than characters: %+v", l)
			}
		}
		if n != r.Turns {
			t.Fatalf("lengths count %d turns of %d", n, r.Turns)
		}
	})
}
