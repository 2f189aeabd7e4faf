package lang

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxSpeakerRunes bounds what counts as a "Name:" prefix. Speaker labels in
// the release are at most a few words ("Dr. Patel", "王叔叔", "사장님",
// "Grandma Rose (on the phone)"); a longer run before a colon is prose
// ("Here is what I think: ...") and is kept.
const maxSpeakerRunes = 32

// maxBracketRunes bounds a bracketed span that is removed. Stage directions
// and markers are short; an opening bracket with no close within this many
// runes is dropped on its own and the text after it is kept, so an unbalanced
// "(" can never swallow a whole turn.
const maxBracketRunes = 400

// StripForDetection removes from text what should not sway language
// detection, and collapses whitespace to single spaces:
//
//   - literal backslash escapes ("\n", "\t", "\r" as two characters), which
//     the release contains between turns, become line breaks;
//   - a speaker prefix "Name:" / "Name：" at the start of each line (also
//     wrapped in markdown, "**Name:**"), because names are often in another
//     script than the speech ("Michael: 你好");
//   - stage directions and markers in brackets: (...), （...）, [...], 【...】,
//     〔...〕, <...>, including nested ones, e.g. "(smiling)", "（低头）",
//     "[END]", "[끝]";
//   - markdown emphasis and structure characters (* _ # > ` ~ |);
//   - URLs (http://, https://, www.) and the domain part of e-mail
//     addresses and @handles;
//   - digits of any script.
//
// Punctuation is kept (it is not a letter, so detection ignores it). The
// result is for detection only; it is not a faithful rendering of the turn.
func StripForDetection(text string) string {
	var b strings.Builder
	b.Grow(len(text))
	stripInto(&b, text)
	return b.String()
}

// stripInto appends the stripped text to b. Lines are processed one at a
// time so that the speaker prefix rule applies per line.
func stripInto(b *strings.Builder, text string) {
	text = unescapeLiteral(text)
	space := false // a space is pending between two kept tokens
	start := b.Len()
	for len(text) > 0 {
		var line string
		if i, w := lineBreak(text); i >= 0 {
			line, text = text[:i], text[i+w:]
		} else {
			line, text = text, ""
		}
		line = trimSpeaker(line)
		space = stripLine(b, line, space || b.Len() > start)
	}
}

// lineBreak returns the byte offset and width of the first line break in
// text (\n, \r, U+0085, U+2028, U+2029), or -1. A byte loop: strings.IndexAny
// with non-ASCII characters was a tenth of the whole detection time.
func lineBreak(text string) (int, int) {
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\n', '\r':
			return i, 1
		case 0xC2: // U+0085
			if i+1 < len(text) && text[i+1] == 0x85 {
				return i, 2
			}
		case 0xE2: // U+2028, U+2029
			if i+2 < len(text) && text[i+1] == 0x80 && (text[i+2] == 0xA8 || text[i+2] == 0xA9) {
				return i, 3
			}
		}
	}
	return -1, 0
}

// unescapeLiteral turns the two-character sequences `\n`, `\r`, `\t` into
// real whitespace. It returns text unchanged (no allocation) when there is
// no backslash.
func unescapeLiteral(text string) string {
	if strings.IndexByte(text, '\\') < 0 {
		return text
	}
	var b strings.Builder
	b.Grow(len(text))
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c == '\\' && i+1 < len(text) {
			switch text[i+1] {
			case 'n', 'r':
				b.WriteByte('\n')
				i++
				continue
			case 't':
				b.WriteByte(' ')
				i++
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

// trimSpeaker removes a leading "Name:" label from line. A label is a short
// run (≤ maxSpeakerRunes) without sentence punctuation before the first ':'
// or '：'. Markdown around the label ("**Name:**", "- Name:") is tolerated.
func trimSpeaker(line string) string {
	i := 0
	// Leading space and list/emphasis markers.
	for i < len(line) {
		c := line[i]
		if c == ' ' || c == '\t' || c == '*' || c == '_' || c == '-' || c == '#' || c == '>' {
			i++
			continue
		}
		break
	}
	n := 0
	for j := i; j < len(line); {
		r, w := utf8.DecodeRuneInString(line[j:])
		switch r {
		case ':', '：':
			if n == 0 {
				return line
			}
			rest := line[j+w:]
			// "10:30" is a time, not a speaker: a "Name:" is never followed
			// directly by a digit.
			if len(rest) > 0 && rest[0] >= '0' && rest[0] <= '9' {
				return line
			}
			// "See https://..." is a URL scheme, not a label.
			if strings.HasPrefix(rest, "//") {
				return line
			}
			return strings.TrimLeft(rest, "*_ \t")
		case '.', '!', '?', '。', '！', '？', ',', '，', '、', '"', '“', '”', '「', '」':
			// "Dr. Patel:" has a period; allow a period followed by a space
			// inside a short label, but not sentence-final punctuation runs.
			if r == '.' && j+w < len(line) && line[j+w] == ' ' && n <= 4 {
				break
			}
			return line
		}
		n++
		if n > maxSpeakerRunes {
			return line
		}
		j += w
	}
	return line
}

// closer returns the closing bracket for an opening one, or 0.
func closer(r rune) rune {
	switch r {
	case '(':
		return ')'
	case '（':
		return '）'
	case '[':
		return ']'
	case '［':
		return '］'
	case '【':
		return '】'
	case '〔':
		return '〕'
	case '<':
		return '>'
	case '〈':
		return '〉'
	case '《':
		// Book-title marks enclose titles, which are in the text's language;
		// keep them.
		return 0
	}
	return 0
}

// skipBracket returns the byte length of the bracketed span starting at
// s[0] (an opening bracket), honouring nesting of the same bracket kind, or
// -1 when it does not close within maxBracketRunes on this line.
func skipBracket(s string, open, close rune) int {
	depth := 0
	n := 0
	for j := 0; j < len(s); {
		r, w := utf8.DecodeRuneInString(s[j:])
		switch r {
		case open:
			depth++
		case close:
			depth--
			if depth == 0 {
				return j + w
			}
		}
		n++
		if n > maxBracketRunes {
			return -1
		}
		j += w
	}
	return -1
}

// stripLine appends line minus brackets, markdown, URLs and digits to b,
// collapsing whitespace. space says whether a separator is owed before the
// next kept rune; the updated value is returned.
func stripLine(b *strings.Builder, line string, space bool) bool {
	for j := 0; j < len(line); {
		r, w := utf8.DecodeRuneInString(line[j:])
		if c := closer(r); c != 0 {
			if k := skipBracket(line[j:], r, c); k > 0 {
				j += k
				space = true
				continue
			}
			// Unbalanced: drop the bracket itself, keep what follows.
			j += w
			space = true
			continue
		}
		switch {
		case r == ')' || r == '）' || r == ']' || r == '］' || r == '】' || r == '〕' || r == '>' || r == '〉':
			j += w
			space = true
			continue
		case r == '*' || r == '_' || r == '#' || r == '`' || r == '~' || r == '|':
			j += w
			space = true
			continue
		case unicode.IsSpace(r) || r == utf8.RuneError:
			j += w
			space = true
			continue
		case unicode.IsDigit(r):
			j += w
			space = true
			continue
		case isURLStart(line[j:]):
			j += urlLen(line[j:])
			space = true
			continue
		case r == '@' && j+1 < len(line):
			// E-mail address or handle: drop from '@' to the end of the token.
			// The local part before '@' has already been written; keeping it is
			// harmless (one word) and avoids backtracking.
			j += urlLen(line[j:])
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteString(line[j : j+w])
		j += w
	}
	return space
}

func isURLStart(s string) bool {
	if len(s) < 4 {
		return false
	}
	c := s[0] | 0x20
	if c != 'h' && c != 'w' {
		return false
	}
	return hasPrefixFold(s, "http://") || hasPrefixFold(s, "https://") || hasPrefixFold(s, "www.")
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// urlLen is the byte length of the URL-like token at the start of s: up to
// the next whitespace or a character that cannot be part of a URL in prose
// (CJK punctuation, closing brackets, quotes).
func urlLen(s string) int {
	for j := 0; j < len(s); {
		r, w := utf8.DecodeRuneInString(s[j:])
		if unicode.IsSpace(r) || r > 0x2000 || r == '"' || r == '\'' || r == ')' || r == ']' || r == '>' {
			return j
		}
		j += w
	}
	return len(s)
}
