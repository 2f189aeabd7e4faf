package v2r

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ngkit/ngkit/pkg/lang"
	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/persona"
	"github.com/ngkit/ngkit/pkg/record"
)

// PromptData is what the templates of pkg/prompt/packs/v2r see.
type PromptData struct {
	// Culture is the culture's display name ("Korean"); Language the
	// English name of the dialogue language, Lang its tag.
	Culture, Language, Lang string
	Category, Norm          string
	Scenario, Situation     string
	// Type is adherence, violation or v2r.
	Type               string
	MinTurns, MaxTurns int
	// Names are a few full names of the culture, for people the situation
	// does not name; Titles its titles and address forms.
	Names, Titles        []string
	Honorifics, Distance string
	// TextMode asks for "Name: (action) text" lines instead of JSON.
	TextMode bool
	// Persona is the seed's persona, "attribute: value" per attribute
	// (ngseed --personas / --vary); empty without one.
	Persona []string
}

// promptData fills the template data of one seed.
func promptData(rec *record.Record, c *normbank.Culture, lng string, r Rules, textMode bool) PromptData {
	return PromptData{
		Culture: c.Display(), Language: langName(lng), Lang: lng,
		Category: strings.ReplaceAll(rec.Category, "_", " "), Norm: rec.Norm,
		Scenario: strings.TrimSpace(rec.Scenario), Situation: strings.TrimSpace(rec.Situation),
		Type: rec.DialogueType, MinTurns: r.MinTurns, MaxTurns: r.MaxTurns,
		Names: names(c, rec.ID, 4), Titles: c.Titles,
		Honorifics: strings.TrimSpace(c.Honorifics), Distance: strings.TrimSpace(c.Distance),
		TextMode: textMode, Persona: persona.Lines(rec.Persona),
	}
}

// names picks n full names of the culture, the same for the same record
// id, so a rerun renders the same prompt (and hits the cache).
func names(c *normbank.Culture, id string, n int) []string {
	g, f := c.Names.Given, c.Names.Family
	if len(g) == 0 || len(f) == 0 {
		return nil
	}
	var out []string
	for i := 0; i < n; i++ {
		gi := record.Bucket(id+"/given/"+string(rune('a'+i)), len(g))
		fi := record.Bucket(id+"/family/"+string(rune('a'+i)), len(f))
		first, last := g[gi], f[fi]
		if c.Names.Order == normbank.FamilyGiven {
			first, last = last, first
		}
		if cjk(first) {
			out = append(out, first+last) // 김민수, 王伟: no space
		} else {
			out = append(out, first+" "+last)
		}
	}
	return out
}

// cjk tells whether a name is written in Han, Hangul or kana.
func cjk(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.In(r, unicode.Han, unicode.Hangul, unicode.Hiragana, unicode.Katakana)
}

// langName is the English name of a language tag ("ko" -> "Korean"), as
// lang.Name, with "und" (what pkg/lang returns for text it cannot tell)
// phrased for ngv2r's messages.
func langName(tag string) string {
	if tag == "und" {
		return "no language I can tell"
	}
	return lang.Name(tag)
}
