package hf

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"golang.org/x/text/language"

	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/record"
)

// Licenses are the licence identifiers the Hub accepts in a card's
// `license` field (huggingface.co/docs/hub/repositories-licenses), in its
// order. "other" needs a name and a link as well.
var Licenses = []string{
	"apache-2.0", "mit", "openrail", "bigscience-openrail-m", "creativeml-openrail-m",
	"bigscience-bloom-rail-1.0", "bigcode-openrail-m", "afl-3.0", "artistic-2.0", "bsl-1.0",
	"bsd", "bsd-2-clause", "bsd-3-clause", "bsd-3-clause-clear", "c-uda", "cc", "cc0-1.0",
	"cc-by-2.0", "cc-by-2.5", "cc-by-3.0", "cc-by-4.0", "cc-by-sa-3.0", "cc-by-sa-4.0",
	"cc-by-nc-2.0", "cc-by-nc-3.0", "cc-by-nc-4.0", "cc-by-nd-4.0", "cc-by-nc-nd-3.0",
	"cc-by-nc-nd-4.0", "cc-by-nc-sa-2.0", "cc-by-nc-sa-3.0", "cc-by-nc-sa-4.0",
	"cdla-sharing-1.0", "cdla-permissive-1.0", "cdla-permissive-2.0", "wtfpl", "ecl-2.0",
	"epl-1.0", "epl-2.0", "etalab-2.0", "eupl-1.1", "eupl-1.2", "agpl-3.0", "gfdl", "gpl",
	"gpl-2.0", "gpl-3.0", "lgpl", "lgpl-2.1", "lgpl-3.0", "isc", "h-research", "intel-research",
	"lppl-1.3c", "ms-pl", "apple-ascl", "apple-amlr", "mpl-2.0", "odc-by", "odbl", "openrail++",
	"osl-3.0", "postgresql", "ofl-1.1", "ncsa", "unlicense", "zlib", "pddl", "lgpl-lr",
	"deepfloyd-if-license", "fair-noncommercial-research-license", "llama2", "llama3",
	"llama3.1", "llama3.2", "llama3.3", "llama4", "gemma", "unknown", "other",
}

// CheckLicense checks a card's licence: one Hub identifier, written as the
// Hub writes it (lower case); "other" with a name (lower-case letters,
// digits and '-', as the Hub wants license_name) and an http(s) link to
// its text. It names the closest spelling when it can.
func CheckLicense(id, name, link string) error {
	switch {
	case id == "":
		return nil // "unknown"
	case strings.ContainsAny(id, ", "):
		return fmt.Errorf("--license %q: one licence identifier; for several, use other with --license-name and --license-link", id)
	case !slices.Contains(Licenses, id):
		if lower := strings.ToLower(id); slices.Contains(Licenses, lower) {
			return fmt.Errorf("--license %q: the Hub's identifier is %q (lower case)", id, lower)
		}
		return fmt.Errorf("--license %q: not a Hub licence identifier (cc-by-sa-4.0, apache-2.0, mit, ..., or other with --license-name and --license-link)", id)
	case id == "other" && (name == "" || link == ""):
		return fmt.Errorf("--license other needs --license-name and --license-link")
	case id != "other" && (name != "" || link != ""):
		return fmt.Errorf("--license-name and --license-link go with --license other")
	}
	if id == "other" {
		for _, r := range name {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '.') {
				return fmt.Errorf("--license-name %q: lower-case letters, digits, '-' and '.' only (the Hub's rule)", name)
			}
		}
		if u, err := url.Parse(link); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return fmt.Errorf("--license-link %q: want an http(s) URL of the licence text", link)
		}
	}
	return nil
}

// LanguageCode returns the card's code of a language tag: the ISO 639-1
// code where there is one, else the ISO 639-2/3 code ("eng" -> "en",
// "yue" stays "yue", "zh-Hans" -> "zh"); an error for anything else
// ("English", "und").
func LanguageCode(tag string) (string, error) {
	base, _, _ := strings.Cut(strings.ReplaceAll(tag, "_", "-"), "-")
	b, err := language.ParseBase(strings.ToLower(base))
	if err != nil || len(base) < 2 || len(base) > 3 || b.String() == "und" {
		return "", fmt.Errorf("language %q is not an ISO 639-1/2/3 code (en, ko, zh, yue, ...)", tag)
	}
	return b.String(), nil
}

// RecordLang is the language tag of a record's dialogues, as given: its
// lang, else the dialogue language of its culture's profile (a user
// profile in normbank.UserCultureDir or a built-in one); "" when none is
// known. LanguageCode
// turns it into the card's code.
func RecordLang(r *record.Record) string {
	if r.Lang != "" {
		return r.Lang
	}
	c := strings.ToLower(r.Culture)
	if c == "" {
		return ""
	}
	if p, err := normbank.SharedProfile(c); err == nil {
		return p.Lang
	}
	return ""
}

// Languages collects the languages of the records of a card, with the
// first record of each, so that a bad one is reported with where it came
// from.
type Languages struct {
	first map[string]string // tag -> id of its first record
}

// Add notes the language of r.
func (l *Languages) Add(r *record.Record) {
	tag := RecordLang(r)
	if tag == "" {
		return
	}
	if l.first == nil {
		l.first = map[string]string{}
	}
	if _, ok := l.first[tag]; !ok {
		l.first[tag] = r.ID
	}
}

// Codes returns the card's language codes, sorted, or the first tag that
// is not a language code, with the id of a record that has it.
func (l *Languages) Codes() ([]string, error) {
	seen := map[string]bool{}
	var out []string
	tags := make([]string, 0, len(l.first))
	for t := range l.first {
		tags = append(tags, t)
	}
	slices.Sort(tags)
	for _, t := range tags {
		code, err := LanguageCode(t)
		if err != nil {
			return nil, fmt.Errorf("dataset card: record %s: %w", l.first[t], err)
		}
		if !seen[code] {
			seen[code] = true
			out = append(out, code)
		}
	}
	slices.Sort(out)
	return out, nil
}
