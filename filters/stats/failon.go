package stats

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ngkit/ngkit/pkg/audit"
)

// AnyDefect is the --fail-on class of records with at least one defect.
const AnyDefect = "any"

// ParseFailOn parses "end_marker=0.01,wrong_language=2%,any=0.05": defect
// classes and the largest rate each may reach (a fraction, or a percentage
// with %).
func ParseFailOn(s string) ([]Threshold, error) {
	var out []Threshold
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, val, ok := strings.Cut(part, "=")
		if !ok {
			return nil, fmt.Errorf("--fail-on %q: want DEFECT=RATE, e.g. end_marker=0.01", part)
		}
		if _, _, known := audit.Describe(name); !known && name != AnyDefect {
			return nil, fmt.Errorf("--fail-on: unknown defect %q (known: %s)", name, strings.Join(audit.DefectNames(), ", "))
		}
		scale := 1.0
		if strings.HasSuffix(val, "%") {
			val, scale = strings.TrimSuffix(val, "%"), 0.01
		}
		f, err := strconv.ParseFloat(val, 64)
		if err != nil || f < 0 || f*scale > 1 {
			return nil, fmt.Errorf("--fail-on %s: rate %q is not a number between 0 and 1 (or 0%% and 100%%)", name, val)
		}
		out = append(out, Threshold{Defect: name, Max: f * scale})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--fail-on %q names no defect", s)
	}
	return out, nil
}

// ApplyFailOn fills r.FailOn from the thresholds and reports whether any
// was exceeded.
func ApplyFailOn(r *Report, ts []Threshold) bool {
	exceeded := false
	r.FailOn = nil
	for _, t := range ts {
		switch t.Defect {
		case AnyDefect:
			t.Rate = float64(r.RecordsWithDefects) / float64(max(r.Records, 1))
		default:
			for _, d := range r.Defects {
				if d.Name == t.Defect {
					t.Rate = d.Rate
				}
			}
		}
		t.Exceeded = t.Rate > t.Max
		exceeded = exceeded || t.Exceeded
		r.FailOn = append(r.FailOn, t)
	}
	return exceeded
}
