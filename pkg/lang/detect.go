package lang

import "strings"

// Detect returns the language of text after StripForDetection.
func (d *Detector) Detect(text string) Result {
	return d.detectStripped(StripForDetection(text))
}

// weakVariant is the confidence cap of Han text that has no character of
// only one form, for a detector that must tell Simplified from
// Traditional: certainly Chinese, but which form cannot be told.
const weakVariant = MinConfidence - 0.05

func (d *Detector) detectStripped(s string) Result {
	c := census(s)
	cjk := float64(c.hangulRuns) + float64(c.han+c.kana)/hanCharsPerWord
	lat := float64(c.latinRuns)
	thai := float64(c.thai) / thaiCharsPerWord
	tamil := float64(c.tamilRuns)
	oth := float64(c.otherRuns)
	total := cjk + lat + thai + tamil + oth
	if total == 0 {
		return Result{}
	}
	// The dominant script decides; ties go to CJK, then Latin, Thai,
	// Tamil, other scripts.
	switch top := max(cjk, lat, thai, tamil, oth); {
	case cjk == top:
	case lat == top:
		return d.detectLatin(s, c, lat/total)
	case thai == top:
		return d.pick(d.th, "th", thai/total*lengthFactor(c.thai, fullThai))
	case tamil == top:
		return d.pick(d.ta, "ta", tamil/total*lengthFactor(c.tamil, fullTamil))
	default:
		return Result{Confidence: oth / total * lengthFactor(c.other, fullLatin)}
	}
	share := cjk / total
	cj := c.han + c.kana
	switch {
	case c.hangul > 0 && c.hangul >= cj:
		return d.pick(d.ko, "ko", share*lengthFactor(c.hangul, fullHangul))
	case c.kana > 0 && float64(c.kana) >= kanaShare*float64(cj):
		return d.pick(d.ja, "ja", share*lengthFactor(cj, fullKana))
	case d.zh && d.zht:
		return d.chineseForm(c, share*lengthFactor(cj, fullHan))
	case d.zh:
		return d.pick(true, "zh", share*lengthFactor(cj, fullHan))
	case d.zht:
		return d.pick(true, "zh-Hant", share*lengthFactor(cj, fullHan))
	default:
		// Han-only text without zh among the candidates: it may be
		// kanji-only Japanese; say so, weakly.
		return d.pick(d.ja, "ja", 0.5*share*lengthFactor(cj, fullHan))
	}
}

// chineseForm tells Simplified from Traditional Chinese by the characters
// only one form writes. The confidence is scaled by the margin between
// the two counts: a Traditional text quoting one Simplified name is still
// Traditional. Text with none of them is either; it gets the first of zh
// and zh-Hant among the candidates, below MinConfidence.
func (d *Detector) chineseForm(c scriptCounts, conf float64) Result {
	s, t := c.simp, c.trad
	switch {
	case s == t:
		l := "zh"
		if d.hantFirst {
			l = "zh-Hant"
		}
		return Result{Lang: l, Confidence: min(conf, weakVariant)}
	case t > s:
		return Result{Lang: "zh-Hant", Confidence: conf * variantFactor(t, s)}
	default:
		return Result{Lang: "zh", Confidence: conf * variantFactor(s, t)}
	}
}

// variantFactor is how sure n distinguishing characters against m of the
// other form make the verdict: one character alone is enough (a short
// turn such as "謝謝。" has only that), an even mix is not.
func variantFactor(n, m int) float64 {
	return float64(n-m) / float64(n+m)
}

// pick reports lang if it is a candidate, and "" otherwise (with the same
// confidence: the text is certainly not in any candidate language).
func (d *Detector) pick(ok bool, lang string, conf float64) Result {
	if !ok {
		lang = ""
	}
	return Result{Lang: lang, Confidence: conf}
}

func (d *Detector) detectLatin(s string, c scriptCounts, share float64) Result {
	lf := lengthFactor(c.latin, fullLatin)
	switch {
	case len(d.latin) == 0:
		return Result{Confidence: share * lf}
	case len(d.latin) == 1 || c.latin < minLatinLetters:
		return Result{Lang: d.latin[0], Confidence: share * lf}
	}
	if d.words {
		if win, h1, h2 := wordVote(s); win != "" {
			conf := share * lf * float64(h1) / float64(h1+h2)
			switch {
			case d.isLatinCandidate(win):
				return Result{Lang: win, Confidence: conf, Method: ByWords}
			case h1 >= minWordHits:
				// Clearly Italian, say, for a detector without "it": none of
				// the candidates. lingua would force the nearest candidate
				// (it calls Dutch English). A single word ("Ciao, Maria!")
				// is too little to call a turn foreign; lingua decides.
				return Result{Confidence: conf, Method: ByWords}
			}
		}
	}
	vals := d.askLingua(latinOnly(s, c))
	top := vals[0]
	if top.Value() == 0 {
		// lingua found no known n-gram: we only know it is Latin script.
		return Result{Lang: d.latin[0], Confidence: 0.5 * share * lf, Method: ByLingua}
	}
	// lingua's values are a softmax over the candidates, so 1/n is chance
	// level; rescale to "above chance" so that a name-only turn ("Maria
	// Garcia": es 0.59 among four) stays below MinConfidence.
	chance := 1 / float64(len(vals))
	conf := (top.Value() - chance) / (1 - chance)
	return Result{Lang: d.byLingua[top.Language()], Confidence: conf * share * lf, Method: ByLingua}
}

func (d *Detector) isLatinCandidate(code string) bool {
	for _, c := range d.latin {
		if c == code {
			return true
		}
	}
	return false
}

// latinOnly keeps only the Latin words of s, space-separated, so that a
// Han name in English text does not engage lingua's own CJK rules. When s
// has no other letters it is returned as is.
func latinOnly(s string, c scriptCounts) string {
	if c.hangul+c.kana+c.han+c.thai+c.tamil+c.other == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	prev := clsNone
	for _, r := range s {
		cls := classify(r)
		if cls == clsLatin || (cls == -1 && prev == clsLatin) {
			if prev != clsLatin && b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteRune(r)
			prev = clsLatin
			continue
		}
		prev = clsNone
	}
	return b.String()
}
