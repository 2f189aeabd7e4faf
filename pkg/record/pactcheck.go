package record

import (
	"errors"
	"strings"
)

// CheckPact says why rec is not a usable PACT item (nil when it is): it
// must have a pact_item with an actor, the expectation, the preference and
// two distinct options, and a scenario. ngpact refuses such records and
// the importers send them to the errors file with this reason.
func CheckPact(rec *Record) error {
	p := rec.PactItem
	if p == nil {
		return errors.New("not a PACT item: no pact_item (make items with ngseed --types pact or ngcat --from pact)")
	}
	var missing []string
	for _, f := range []struct{ name, v string }{
		{"scenario", rec.Scenario}, {"actor", p.Actor}, {"expectation", p.Expectation},
		{"preference", p.Preference}, {"follow_option", p.FollowOption}, {"allow_option", p.AllowOption},
	} {
		if strings.TrimSpace(f.v) == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return errors.New("PACT item without " + strings.Join(missing, ", "))
	}
	if SameText(p.FollowOption, p.AllowOption) {
		return errors.New("PACT item whose two options are the same text")
	}
	if h := p.Human; h != nil && (h.FollowCulture < 0 || h.FollowCulture > 1 || h.N < 0) {
		return errors.New("PACT item whose human.follow_culture is not a share from 0 to 1 (or whose human.n is negative)")
	}
	return nil
}

// SameText says whether two texts are the same once case, spacing and
// punctuation at the ends are ignored.
func SameText(a, b string) bool {
	norm := func(s string) string {
		return strings.Trim(strings.ToLower(strings.Join(strings.Fields(s), " ")), " .!?。！？")
	}
	return norm(a) == norm(b)
}
