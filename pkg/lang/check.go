package lang

import "slices"

// Check detects every turn and returns the share of turns in the expected
// language, together with the detected language of each turn ("" when
// unknown). Turns whose result is below MinConfidence (no letters, "OK",
// "嗯") count neither for nor against and are left out of the share; when
// no turn is confident the share is 0, and so it is when expected is not a
// valid tag. Check uses the Default detector.
func Check(turnTexts []string, expected string) (share float64, langs []string) {
	return Default().Check(turnTexts, expected)
}

// Check is Check with this detector's candidate set.
func (d *Detector) Check(turnTexts []string, expected string) (share float64, langs []string) {
	v := d.CheckAny(turnTexts, expected)
	return v.Share, v.Langs
}

// Verdict is the outcome of CheckAny.
type Verdict struct {
	// Share of the confident turns that are in one of the accepted
	// languages (0 when no turn is confident).
	Share float64
	// Langs is the detected language of each turn, as Detect says ("" when
	// unknown), confident or not.
	Langs []string
	// Found are the accepted languages found among the confident turns,
	// the most frequent first (ties in the order accepted): which of a
	// culture's languages the dialogue is in.
	Found []string
	// Confident is the number of confident turns.
	Confident int
}

// CheckAny is Check for a culture written in several languages
// (Singapore: English, Chinese, Malay, Tamil): a turn in any of the
// accepted languages counts as matching, and Found says which were found.
func (d *Detector) CheckAny(turnTexts []string, accepted ...string) Verdict {
	acc := make([]string, 0, len(accepted))
	for _, a := range accepted {
		if a = Normalize(a); a != "" && !slices.Contains(acc, a) {
			acc = append(acc, a)
		}
	}
	v := Verdict{Langs: make([]string, len(turnTexts))}
	counts := make([]int, len(acc))
	ok := 0
	for i, t := range turnTexts {
		r := d.Detect(t)
		v.Langs[i] = r.Lang
		if r.Confidence < MinConfidence {
			continue
		}
		v.Confident++
		if k := slices.Index(acc, r.Lang); k >= 0 && r.Lang != "" {
			counts[k]++
			ok++
		}
	}
	if v.Confident > 0 {
		v.Share = float64(ok) / float64(v.Confident)
	}
	for k := range acc {
		if counts[k] > 0 {
			v.Found = append(v.Found, acc[k])
		}
	}
	slices.SortStableFunc(v.Found, func(a, b string) int {
		return counts[slices.Index(acc, b)] - counts[slices.Index(acc, a)]
	})
	return v
}
