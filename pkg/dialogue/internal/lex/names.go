package lex

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// ValidName reports whether name (the part before the colon, role bracket
// removed) can be a speaker. strict is for names found inside a line,
// where every Latin word must be capitalised.
func ValidName(name string, strict bool) bool {
	if name == "" || len(name) > 120 {
		return false
	}
	words, runes, letters, hasLatin, comma := 1, 0, 0, false, false
	han := 0
	prevSpace := false
	for _, r := range name {
		runes++
		switch {
		case r == ' ':
			if !prevSpace {
				words++
			}
			prevSpace = true
			continue
		case r == ',':
			comma = true
		case unicode.IsLetter(r):
			letters++
			if r < 0x250 {
				hasLatin = true
			} else if unicode.Is(unicode.Han, r) {
				han++
			}
		case unicode.IsDigit(r), r == '.', r == '#', r == '\'', r == '’', r == '-', r == '‐', r == '‑', r == '&', r == '/', r == '·', r == '・', r == '、':
		default:
			if IsSpace(r) {
				if !prevSpace {
					words++
				}
				prevSpace = true
				continue
			}
			return false
		}
		prevSpace = false
	}
	if letters == 0 || runes > 40 || words > 5 {
		return false
	}
	first, _ := utf8.DecodeRuneInString(name)
	if !unicode.IsLetter(first) && !unicode.IsDigit(first) {
		return false
	}
	if han > 0 && !hasLatin && words == 1 && runes > 12 {
		return false
	}
	if !hasLatin {
		return !comma && (!strict || words <= 3)
	}
	if words == 1 {
		return !comma && (!strict || unicode.IsUpper(first))
	}
	return latinWordsOK(name, strict || comma)
}

var lowerOK = [...]string{"of", "the", "and", "de", "la", "le", "van", "von", "der", "den", "du", "da", "di", "del", "y", "bin", "al"}

var contractions = [...]string{"it's", "that's", "here's", "there's", "what's", "he's", "she's", "let's", "who's", "where's", "how's"}

// latinWordsOK checks the words of a multi-word Latin name: capitalised,
// digits, '#N', connectors ("of"), or a lower-case word after a
// possessive ("Jason’s mom"; not after "Here's").
func latinWordsOK(name string, strict bool) bool {
	prevPoss := false
	for w := range strings.FieldsSeq(name) {
		w = strings.TrimRight(w, ",")
		r, _ := utf8.DecodeRuneInString(w)
		ok := unicode.IsUpper(r) || unicode.IsDigit(r) || r == '#' || !unicode.Is(unicode.Latin, r)
		if !ok {
			for _, c := range lowerOK {
				if w == c {
					ok = true
					break
				}
			}
		}
		if !ok && prevPoss && !strict {
			ok = true
		}
		if !ok {
			return false
		}
		lw := strings.ToLower(w)
		prevPoss = strings.HasSuffix(lw, "'s") || strings.HasSuffix(lw, "’s")
		for _, c := range contractions {
			if strings.ReplaceAll(lw, "’", "'") == c {
				return false
			}
		}
	}
	return true
}

// NarrativeLine reports whether a line that follows a turn reads as
// narration rather than more speech: Korean narrative present ("...흐른다",
// "...돌아간다", not "...습니다"), Chinese "两人相视一笑…", English
// "The tension melts, and they…".
func NarrativeLine(s string) bool {
	t := strings.TrimRight(s, ". 。")
	if r, w := utf8.DecodeLastRuneInString(t); r == '다' {
		// the syllable before 다 ends in ㄴ: 간다, 흐른다, 쉰다, 본다
		if p, _ := utf8.DecodeLastRuneInString(t[:len(t)-w]); p >= 0xAC00 && p <= 0xD7A3 && (p-0xAC00)%28 == 4 {
			return true
		}
	}
	for _, pre := range [...]string{"两人", "两个人", "二人", "双方", "众人"} {
		if strings.HasPrefix(s, pre) {
			return true
		}
	}
	for _, pre := range [...]string{"The ", "They ", "Both "} {
		if strings.HasPrefix(s, pre) && strings.Contains(s, ", ") && !strings.ContainsAny(s, "?!\"“") &&
			!strings.Contains(s, " I ") && !strings.Contains(s, " you") && !strings.Contains(s, " we ") {
			return true
		}
	}
	return false
}

// listNumber reports the width of a list number at the start of s ("1. ",
// "12) ", "3、"), spaces after it included, or 0.
func listNumber(s string) int {
	i := 0
	for i < len(s) && i < 3 && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 || i >= len(s) {
		return 0
	}
	switch {
	case s[i] == '.' || s[i] == ')':
		i++
	case strings.HasPrefix(s[i:], "、"):
		i += len("、")
	default:
		return 0
	}
	j := TrimSpaceFwd(s, i)
	if j == i && s[i-1] != 0x81 || j == len(s) || s[j] >= '0' && s[j] <= '9' {
		return 0 // "1.5", "3.14: ..." are no list numbers
	}
	return j
}

// emojiRun reports the width of the emoji (and their joiners and variation
// selectors) at the start of s, or 0.
func emojiRun(s string) int {
	i := 0
	for i < len(s) {
		r, w := utf8.DecodeRuneInString(s[i:])
		if !(r >= 0x1F000 && r <= 0x1FAFF || r >= 0x2600 && r <= 0x27BF || r == 0xFE0F || r == 0x200D || r >= 0x1F3FB && r <= 0x1F3FF) {
			break
		}
		i += w
	}
	return i
}

// looseName reports whether name can be a speaker whose words are not all
// capitalised ("Family member", "Team member 2", "C senior", "security
// guard"): up to four words of letters and digits. Such a name is a weak
// speaker: prose before a colon looks the same.
func looseName(name string) bool {
	if name == "" || len(name) > 60 || strings.ContainsAny(name, ",'’") {
		return false
	}
	words, letters := 0, 0
	for w := range strings.FieldsSeq(name) {
		words++
		for _, r := range w {
			switch {
			case unicode.IsLetter(r):
				letters++
			case unicode.IsDigit(r), r == '#', r == '.', r == '-':
			default:
				return false
			}
		}
	}
	first, _ := utf8.DecodeRuneInString(name)
	return words >= 1 && words <= 4 && letters > 0 && (unicode.IsLetter(first) || unicode.IsDigit(first))
}

// proseWords start or fill sentences, not names: a weak name that holds
// one is a speaker only when it recurs or the situation names it.
var proseWords = [...]string{"the", "this", "that", "these", "those", "it", "is", "are", "was", "were", "be",
	"i", "you", "he", "she", "we", "they", "me", "him", "us", "them", "my", "your", "our", "his", "their", "its",
	"here", "there", "what", "why", "how", "when", "where", "who", "which", "so", "but", "and", "or", "if",
	"then", "also", "just", "well", "now", "to", "in", "on", "at", "for", "with", "as", "by", "from", "not",
	"no", "yes", "do", "does", "did", "have", "has", "had", "will", "would", "can", "could", "should", "let",
	"note", "remember", "please", "said", "says", "asked", "replied", "answer", "example", "question", "reason", "point"}

func HasProseWord(name string) bool {
	for w := range strings.FieldsSeq(name) {
		if len(w) > 8 {
			continue
		}
		for _, p := range proseWords {
			if len(w) == len(p) && strings.EqualFold(w, p) {
				return true
			}
		}
	}
	return false
}

// isTimestamp reports whether s is a time such as "00:01:23" or "1:02.5".
func isTimestamp(s string) bool {
	if len(s) < 3 || len(s) > 12 || strings.IndexByte(s, ':') < 0 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && c != ':' && c != '.' && c != ',' {
			return false
		}
	}
	return true
}
