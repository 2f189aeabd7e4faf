package lang

import "strings"

// Normalize returns the canonical form of a BCP-47 tag that detectors and
// checks compare: the lower-case primary subtag ("EN_us" -> "en", "ko-KR"
// -> "ko"), except for Chinese, which keeps its written form: "zh-Hant"
// for Traditional (zh-Hant, zh-Hant-TW, and zh-TW, zh-HK, zh-MO without a
// script subtag) and "zh" for Simplified (zh, zh-Hans, zh-CN, zh-SG). It
// returns "" when tag has no alphabetic primary subtag of 2 or 3 letters.
func Normalize(tag string) string {
	tag = strings.TrimSpace(tag)
	rest := ""
	if i := strings.IndexAny(tag, "-_"); i >= 0 {
		tag, rest = tag[:i], tag[i+1:]
	}
	if len(tag) < 2 || len(tag) > 3 {
		return ""
	}
	for i := 0; i < len(tag); i++ {
		c := tag[i] | 0x20
		if c < 'a' || c > 'z' {
			return ""
		}
	}
	tag = strings.ToLower(tag)
	if tag == "zh" && traditional(rest) {
		return "zh-Hant"
	}
	return tag
}

// traditional reports whether the subtags after "zh" say Traditional: a
// Hant script subtag, or no script subtag and a region that writes
// Traditional (Taiwan, Hong Kong, Macau).
func traditional(subtags string) bool {
	for _, st := range strings.FieldsFunc(subtags, func(r rune) bool { return r == '-' || r == '_' }) {
		switch strings.ToLower(st) {
		case "hant":
			return true
		case "hans":
			return false
		case "tw", "hk", "mo":
			return true
		}
	}
	return false
}
