package dialogue

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Hand-written scanners: Parse runs on every record of an import, so the hot
// path avoids regexp and allocations.

// isSpace is unicode.IsSpace (trimming must agree with strings.TrimSpace)
// without its table lookup.
func isSpace(r rune) bool {
	switch {
	case r < 0x80:
		return r == ' ' || (r >= '\t' && r <= '\r')
	case r < 0x1680:
		return r == 0x85 || r == 0xA0
	}
	switch r {
	case 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}

// trim is strings.TrimSpace, without its slow path for text that starts or
// ends with a non-ASCII letter (most of the Chinese and Korean text).
func trim(s string) string {
	i := trimSpaceFwd(s, 0)
	if i == len(s) {
		return ""
	}
	return s[i:trimSpaceBack(s, len(s))]
}

func trimSpaceBack(s string, i int) int {
	for i > 0 {
		c := s[i-1]
		if c == ' ' || (c >= '\t' && c <= '\r') {
			i--
			continue
		}
		if c < 0x80 {
			return i
		}
		r, w := utf8.DecodeLastRuneInString(s[:i])
		if !isSpace(r) {
			return i
		}
		i -= w
	}
	return i
}

func trimSpaceFwd(s string, i int) int {
	for i < len(s) {
		c := s[i]
		if c == ' ' || (c >= '\t' && c <= '\r') {
			i++
			continue
		}
		if c < 0x80 {
			return i
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		if !isSpace(r) {
			return i
		}
		i += w
	}
	return i
}

// isTerm reports whether r ends a sentence or a turn, so that a speaker name
// may follow it on the same line.
func isTerm(r rune) bool {
	switch r {
	case '.', '!', '?', '…', '。', '！', '？', '”', '"', '’', '\'', ')', '）', ']', '】',
		'」', '』', '~', '～', '—', '–', '-', '♪', '*', '»', ':', '：':
		return true
	}
	return r >= 0x1F000 || (r >= 0x2600 && r <= 0x27BF)
}

var titles = [...]string{"Mr", "Mrs", "Ms", "Mx", "Dr", "Prof", "St", "Sr", "Jr", "Mt",
	"Capt", "Gen", "Lt", "Col", "Sgt", "Rev", "Hon", "Fr", "Sen", "Rep", "Gov", "Pres", "Coach", "Mme", "Mlle"}

// isTitleBefore reports whether s ends with an abbreviated title ("Mrs")
// that starts a word, so that a following '.' does not end a sentence.
func isTitleBefore(s string) bool {
	for _, t := range titles {
		if strings.HasSuffix(s, t) {
			i := len(s) - len(t)
			if i == 0 {
				return true
			}
			r, _ := utf8.DecodeLastRuneInString(s[:i])
			if isSpace(r) || !unicode.IsLetter(r) {
				return true
			}
		}
	}
	return false
}

// openAt reports the width of an opening round bracket at s[i], or 0.
func openAt(s string, i int) int {
	if s[i] == '(' {
		return 1
	}
	if s[i] == 0xEF && i+2 < len(s) && s[i+1] == 0xBC && s[i+2] == 0x88 { // （
		return 3
	}
	return 0
}

// closeAt reports the width of a closing round bracket at s[i], or 0.
func closeAt(s string, i int) int {
	if s[i] == ')' {
		return 1
	}
	if s[i] == 0xEF && i+2 < len(s) && s[i+1] == 0xBC && s[i+2] == 0x89 { // ）
		return 3
	}
	return 0
}

// closeEndsAt reports the width of a closing round bracket that ends at s[:i], or 0.
func closeEndsAt(s string, i int) int {
	if i >= 1 && s[i-1] == ')' {
		return 1
	}
	if i >= 3 && s[i-3] == 0xEF && s[i-2] == 0xBC && s[i-1] == 0x89 {
		return 3
	}
	return 0
}

// nextOpen finds the next opening round bracket at or after i.
func nextOpen(s string, i int) int {
	a := strings.IndexByte(s[i:], '(')
	end := len(s)
	if a >= 0 {
		end = i + a
	}
	if b := strings.Index(s[i:end], "（"); b >= 0 {
		return i + b
	}
	if a >= 0 {
		return i + a
	}
	return -1
}

// matchParen returns the index just after the bracket that closes the one
// opening at s[i] (round brackets, ASCII and full-width mixed), or -1.
func matchParen(s string, i int) int {
	depth := 0
	for i < len(s) {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i + 1
			}
		case 0xEF:
			if i+2 < len(s) && s[i+1] == 0xBC {
				if s[i+2] == 0x88 { // （
					depth++
					i += 3
					continue
				}
				if s[i+2] == 0x89 { // ）
					depth--
					i += 3
					if depth == 0 {
						return i
					}
					continue
				}
			}
		}
		i++
	}
	return -1
}

// matchParenBack returns the index of the bracket that opens the group
// closing just before s[:e], or -1.
func matchParenBack(s string, e int) int {
	depth := 0
	i := e
	for i > 0 {
		if w := closeEndsAt(s, i); w > 0 {
			depth++
			i -= w
			continue
		}
		c := s[i-1]
		if c == '(' {
			depth--
			i--
			if depth == 0 {
				return i
			}
			continue
		}
		if i >= 3 && s[i-3] == 0xEF && s[i-2] == 0xBC && s[i-1] == 0x88 {
			depth--
			i -= 3
			if depth == 0 {
				return i
			}
			continue
		}
		i--
	}
	return -1
}

// closePos returns the index just after the bracket that brings depth d
// down to 0 in s, or -1.
func closePos(s string, d int) int {
	for i := 0; i < len(s); i++ {
		if w := openAt(s, i); w > 0 {
			d++
			i += w - 1
		} else if w := closeAt(s, i); w > 0 {
			d--
			i += w - 1
			if d <= 0 {
				return i + 1
			}
		}
	}
	return -1
}

// balanced reports whether the round brackets of s pair up, so that "(" + s
// + ")" is one group.
func balanced(s string) bool {
	d := 0
	for i := 0; i < len(s); i++ {
		if w := openAt(s, i); w > 0 {
			d++
			i += w - 1
		} else if w := closeAt(s, i); w > 0 {
			d--
			i += w - 1
			if d < 0 {
				return false
			}
		}
	}
	return d == 0
}

// parenDepth returns the bracket depth at the end of s, starting from d.
func parenDepth(s string, d int) int {
	for i := 0; i < len(s); i++ {
		if s[i] == '(' {
			d++
		} else if s[i] == ')' {
			d--
		} else if s[i] == 0xEF && i+2 < len(s) && s[i+1] == 0xBC {
			if s[i+2] == 0x88 {
				d++
			} else if s[i+2] == 0x89 {
				d--
			}
		}
	}
	return d
}

// wholeBracket reports whether s is one bracketed group — (…), （…）, […]
// or 【…】, a final '.' or '。' allowed after it — and returns its content.
func wholeBracket(s string) (string, bool) {
	if s == "" {
		return "", false
	}
	body := s
	if strings.HasSuffix(body, ".") {
		body = body[:len(body)-1]
	} else if strings.HasSuffix(body, "。") {
		body = body[:len(body)-len("。")]
	}
	body = strings.TrimRight(body, " ")
	if body == "" {
		return "", false
	}
	if openAt(body, 0) > 0 {
		if e := matchParen(body, 0); e == len(body) {
			w := openAt(body, 0)
			return trim(body[w : e-closeEndsAt(body, e)]), true
		}
		return "", false
	}
	var open, cls string
	switch {
	case body[0] == '[':
		open, cls = "[", "]"
	case strings.HasPrefix(body, "【"):
		open, cls = "【", "】"
	default:
		return "", false
	}
	if !strings.HasSuffix(body, cls) || len(body) < len(open)+len(cls) {
		return "", false
	}
	inner := body[len(open) : len(body)-len(cls)]
	// one group only: "[a] text [b]" is not a bracketed line
	if strings.Contains(inner, cls) {
		return "", false
	}
	return trim(inner), true
}

// opensParen reports whether s starts with a round bracket that the line
// does not close (a narration continued on the next lines, or never closed).
func opensParen(s string) bool {
	return s != "" && openAt(s, 0) > 0 && matchParen(s, 0) < 0
}

// endMarkers are the end-of-dialogue tokens models leave in the text.
var endMarkers = [...]string{"[END]", "【END】", "(END)", "（END）", "<END>", "[끝]", "【끝】", "(끝)", "[结束]", "【结束】", "[完]", "【完】",
	"[End]", "[end]", "<end>", "<End>", "【End】", "【end】", "[ END ]"}

// endKinds reports which kinds of end marker s holds (bit set), so that a
// text's lines need only be checked for the kinds the text holds. Every
// marker ends with a closing bracket, so it looks at those only (found by
// vectorised search) and at a line "[END" cut short.
func endKinds(s string) uint8 {
	var k uint8
	for _, cl := range [...]string{"]", ")", ">", "】", "）"} {
		for from := 0; ; {
			i := strings.Index(s[from:], cl)
			if i < 0 {
				break
			}
			i += from
			k |= tokenBefore(s[:i])
			from = i + len(cl)
		}
	}
	if strings.Contains(s, "[END") {
		k |= 1
	}
	return k
}

// tokenBefore reports the kind of end-marker word that s ends with.
func tokenBefore(s string) uint8 {
	s = strings.TrimRight(s, " ")
	n := len(s)
	if n < 3 {
		return 0
	}
	switch s[n-1] {
	case 'D':
		if s[n-3:] == "END" {
			return 1
		}
	case 'd':
		if s[n-3:] == "End" || s[n-3:] == "end" {
			return 4
		}
	case 0x9D:
		if s[n-3:] == "끝" {
			return 2
		}
	case 0x9F, 0x8C:
		if strings.HasSuffix(s, "结束") || strings.HasSuffix(s, "完") {
			return 8
		}
	}
	return 0
}

// endWord reports whether s, in brackets, would be an end marker.
func endWord(s string) bool {
	switch trim(s) {
	case "END", "End", "end", "끝", "结束", "完":
		return true
	}
	return false
}

// hasEndKinds is hasEndMarker restricted to the kinds of a text.
func hasEndKinds(s string, kinds uint8) bool {
	if kinds == 1 {
		return strings.Contains(s, "END")
	}
	return endKinds(s)&kinds != 0
}

// markerIn reports whether s holds an end marker that removeEndMarkers
// removes.
func markerIn(s string) bool {
	for _, m := range endMarkers {
		if strings.Contains(s, m) {
			return true
		}
	}
	return s == "[END"
}

// removeEndMarkers removes end markers anywhere in s; a line that is just
// "[END" (cut short) counts too.
func removeEndMarkers(s string, bits *uint32, p *parser) string {
	return removeEndMarkersK(s, 0xff, bits, p)
}

func removeEndMarkersK(s string, kinds uint8, bits *uint32, p *parser) string {
	if !hasEndKinds(s, kinds) {
		return s
	}
	orig := s
	// until none is left: what is around a marker removed can make one
	// ("[ END[ END ]]"); each pass shortens s, so this ends
	for again := true; again; {
		again = false
		for _, m := range endMarkers {
			if strings.Contains(s, m) {
				s = strings.ReplaceAll(s, m, " ")
				again = true
			}
		}
	}
	if trim(s) == "[END" {
		s = "" // cut short, or left by removing a whole one ("[END[END]")
	}
	if s != orig {
		*bits |= dEndMarker
		if p != nil { // counted, and traced as a stand-in
			p.nRemoved++
			if p.tr != nil {
				p.tr.removed = append(p.tr.removed, endMarkerTrace)
			}
		}
		s = trim(s)
		if strings.Contains(s, "   ") {
			s = collapseSpaces(s)
		}
	}
	return s
}

func collapseSpaces(s string) string {
	var b strings.Builder
	sp := false
	for _, r := range s {
		if r == ' ' {
			if sp {
				continue
			}
			sp = true
		} else {
			sp = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isRuleRune(r rune) bool {
	switch r {
	case '-', '—', '–', '―', '─', '━', '=', '_', '*', '~', '·', '•', '＝', '－', ' ', '#':
		return true
	}
	return false
}

// isRule reports whether s is a separator: only dashes, rules and the like
// (one em dash or "**" count; a single '-' or '*' does not).
func isRule(s string) bool {
	if s == "" {
		return false
	}
	n, wide := 0, false
	for _, r := range s {
		if !isRuleRune(r) {
			return false
		}
		if r != ' ' {
			n++
			if r >= 0x80 {
				wide = true
			}
		}
	}
	return n >= 3 || (n >= 1 && wide) || s == "**" || s == "--"
}

// onlyJunk reports whether s holds only characters left over from a JSON
// envelope or markup (quotes, braces, brackets, commas).
func onlyJunk(s string) bool {
	if s == "" {
		return true
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"', '\'', '{', '}', '[', ']', ',', ' ', '`', '\\':
		default:
			return false
		}
	}
	return true
}

// isDots reports whether s is only an ellipsis ("...", "…", "……").
func isDots(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r != '.' && r != '…' && r != '·' && r != ' ' && r != '。' {
			return false
		}
	}
	return true
}

// stripHeading removes a leading markdown heading mark ("## ").
func stripHeading(s string, bits *uint32) string {
	if s == "" || s[0] != '#' {
		return s
	}
	i := 0
	for i < len(s) && s[i] == '#' {
		i++
	}
	if i > 6 || (i < len(s) && s[i] != ' ') {
		return s
	}
	*bits |= dMarkdown
	return trim(s[i:])
}

// wrappedBold reports whether s is wrapped in ** ** or __ __ as a whole.
func wrappedBold(s string) (string, bool) {
	if len(s) < 5 {
		return "", false
	}
	for _, d := range [...]string{"**", "__"} {
		if strings.HasPrefix(s, d) && strings.HasSuffix(s, d) {
			inner := s[2 : len(s)-2]
			if !strings.Contains(inner, d) && trim(inner) == inner && inner != "" {
				return inner, true
			}
		}
	}
	return "", false
}

// wrappedEm reports whether s is wrapped in single * * as a whole (a
// markdown-italic narration line).
func wrappedEm(s string) (string, bool) {
	if len(s) < 3 || s[0] != '*' || s[len(s)-1] != '*' || s[1] == '*' || s[len(s)-2] == '*' {
		return "", false
	}
	inner := s[1 : len(s)-1]
	if strings.IndexByte(inner, '*') >= 0 || trim(inner) != inner {
		return "", false
	}
	return inner, true
}

func isDashRune(r rune) bool {
	return r == '—' || r == '–' || r == '―' || r == '─' || r == '━' || r == '-' || r == '~' || r == '='
}

// dashWrap reports whether s is a line marked by dashes — "——第二天——",
// "— (Later that day) —", "--- Later ---", "——当晚，…", "会议结束后——" — and
// returns what is inside. A leading run must be a wide dash or at least two
// ASCII dashes; a trailing run alone must be two or more dashes.
func dashWrap(s string) (string, bool) {
	i, nl, wideL := 0, 0, false
	for i < len(s) {
		r, w := utf8.DecodeRuneInString(s[i:])
		if !isDashRune(r) {
			break
		}
		if r >= 0x80 {
			wideL = true
		}
		nl++
		i += w
	}
	if i == len(s) {
		return "", nl > 0
	}
	j, nt := len(s), 0
	for j > i {
		r, w := utf8.DecodeLastRuneInString(s[:j])
		if !isDashRune(r) {
			break
		}
		nt++
		j -= w
	}
	lead := nl > 0 && (wideL || nl >= 2)
	if nl > 0 && !lead {
		return "", false
	}
	if !lead && nt < 2 {
		return "", false
	}
	if !lead && nt >= 2 {
		// a trailing run of ASCII '-' or '=' alone is too weak ("so--")
		r, _ := utf8.DecodeLastRuneInString(s)
		if r < 0x80 && nt < 3 {
			return "", false
		}
	}
	return trim(s[i:j]), true
}

// HeaderWords name a dialogue in a header line ("Dialogue 2:",
// "Dialogues:", "对话一：", "대화 1:"); matched in any case, and in the
// plural for the Latin ones.
var HeaderWords = []string{"dialogue", "dialog", "conversation", "transcript", "script",
	"对话", "對話", "对白", "對白", "대화문", "대화"}

// HeaderLeads may come before a header word ("A Dialogue:", "The
// conversation:", "Sample dialogue:"); a header with one needs its colon.
var HeaderLeads = []string{"a ", "an ", "the ", "sample ", "example ", "new ", "full ", "final ", "revised ",
	"refined ", "generated ", "here is the ", "here's the ", "here is a ", "here's a ", "our ", "my ", "示例", "예시 "}

// headerLeadsBy and headerWordsBy index HeaderLeads and HeaderWords by
// their first byte, in lower case.
var headerLeadsBy, headerWordsBy = func() (l, w [256][]string) {
	for _, x := range HeaderLeads {
		l[x[0]|0x20] = append(l[x[0]|0x20], x)
	}
	for _, x := range HeaderWords {
		w[x[0]|0x20] = append(w[x[0]|0x20], x)
	}
	return l, w
}()

// hasPrefixFold is strings.HasPrefix, in any case for a Latin prefix.
func hasPrefixFold(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	if prefix[0] >= 0x80 {
		return s[:len(prefix)] == prefix
	}
	return strings.EqualFold(s[:len(prefix)], prefix)
}

// parseHeader reports whether s is a header such as "Dialogue:",
// "Dialogue 2:", "对话一：", "대화 1:" and returns the dialogue number (0 if
// none) and what follows the header's colon on the same line.
func parseHeader(s string) (num int, rest string, ok bool) {
	if s == "" {
		return 0, "", false
	}
	lead := 0
	c0 := s[0] | 0x20
	if len(headerLeadsBy[c0]) == 0 && len(headerWordsBy[c0]) == 0 {
		return 0, "", false
	}
	for _, l := range headerLeadsBy[c0] {
		// cheap tests first: parseHeader runs on every line
		if len(s) > len(l) && s[len(l)-1] == l[len(l)-1] && hasPrefixFold(s, l) {
			lead = len(l)
			break
		}
	}
	if lead == 0 && len(headerWordsBy[c0]) == 0 {
		return 0, "", false
	}
	var hw string
	for _, w := range headerWordsBy[s[lead]|0x20] {
		if len(s)-lead >= len(w) && hasPrefixFold(s[lead:], w) {
			hw = w
			break
		}
	}
	if hw == "" {
		return 0, "", false
	}
	i := lead + len(hw)
	if hw[0] < 0x80 && i < len(s) && (s[i] == 's' || s[i] == 'S') && (i+1 == len(s) || !isLetterByte(s[i+1])) {
		i++ // "Dialogues:"
	}
	if hw[0] < 0x80 && i < len(s) && isLetterByte(s[i]) {
		return 0, "", false // "dialogue is", "Scripture"
	}
	for _, suf := range [...]string{"内容", "내용", "如下", " content", " text"} {
		if strings.HasPrefix(s[i:], suf) {
			i += len(suf)
		}
	}
	i = trimSpaceFwd(s, i)
	if i < len(s) && s[i] == '#' {
		i++
	}
	// number: digits or CJK numerals
	for i < len(s) {
		c := s[i]
		if c >= '0' && c <= '9' {
			num = num*10 + int(c-'0')
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		if n := cjkDigit(r); n > 0 {
			num = num*10 + n
			i += w
			continue
		}
		break
	}
	i = trimSpaceFwd(s, i)
	if i < len(s) && s[i] == ':' {
		i++
	} else if strings.HasPrefix(s[i:], "：") {
		i += len("：")
	} else if i < len(s) || lead > 0 {
		return 0, "", false
	}
	for i < len(s) && (s[i] == '*' || s[i] == '_') {
		i++
	}
	return num, trim(s[i:]), true
}

func cjkDigit(r rune) int {
	switch r {
	case '一':
		return 1
	case '二':
		return 2
	case '三':
		return 3
	case '四':
		return 4
	case '五':
		return 5
	case '六':
		return 6
	case '七':
		return 7
	case '八':
		return 8
	case '九':
		return 9
	}
	return 0
}

func isLetterByte(c byte) bool {
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

// NarrationLabels are the labels of prose lines ("Scene: ...", "Note:
// ...", "规范：...", "상황: ...") in English, Chinese and Korean: what
// follows such a label is narration, never a turn, and the label is
// removed. Matched whole and, for Latin ones, in any case. Read once, when
// the package is initialised (as are HeaderWords and HeaderLeads).
var NarrationLabels = []string{"Scene", "Setting", "Narration", "Narrator", "Stage directions", "Stage direction",
	"Note", "Notes", "Context", "Situation", "Scenario", "Norm", "Social norm", "Background", "Location", "Place",
	"Time", "Title", "Summary", "Description", "Characters", "Participants", "Cast", "Culture", "Category", "Setup",
	"场景", "旁白", "背景", "规范", "社会规范", "情境", "情景", "注", "注意", "备注", "说明", "地点", "时间", "标题",
	"人物", "角色", "文化", "类别", "场合",
	"장면", "상황", "배경", "해설", "지문", "규범", "사회 규범", "설명", "참고", "장소", "시간", "제목", "등장인물", "메모", "문화"}

// narrLatinByLen and narrOther index NarrationLabels (Latin ones by length
// in bytes, matched in any case; the others whole): isNarrLabel runs on
// every speaker line.
var narrLatinByLen, narrOther = func() ([25][]string, map[string]bool) {
	var byLen [25][]string
	other := map[string]bool{}
	for _, l := range NarrationLabels {
		switch {
		case l[0] >= 0x80:
			other[l] = true
		case len(l) < len(byLen):
			byLen[len(l)] = append(byLen[len(l)], l)
		}
	}
	return byLen, other
}()

func isNarrLabel(name string) bool {
	if name == "" || len(name) >= len(narrLatinByLen) {
		return false
	}
	if name[0] >= 0x80 {
		return narrOther[name]
	}
	for _, l := range narrLatinByLen[len(name)] {
		if name[0]|0x20 == l[0]|0x20 && strings.EqualFold(name, l) {
			return true
		}
	}
	return false
}

// stripEmphasis removes markdown emphasis delimiters (**x**, __x__, *x*)
// that open before a word and close after one; "138****8282" and a lone
// '*' stay.
func stripEmphasis(s string) (string, bool) {
	if strings.IndexByte(s, '*') < 0 && !strings.Contains(s, "__") {
		return s, false
	}
	changed := false
	for _, d := range [...]string{"**", "__", "*"} {
		for from := 0; ; {
			i := strings.Index(s[from:], d)
			if i < 0 {
				break
			}
			i += from
			// opening: not part of a longer run, before a non-space, after a
			// non-word rune
			// a delimiter after a backslash is literal, as in markdown:
			// taking it out of "\*r*" would make the escape "\r"
			if !delimOpen(s, i, len(d)) || (i > 0 && s[i-1] == '\\') {
				from = i + len(d)
				continue
			}
			j := i + len(d)
			k := -1
			for j < len(s) {
				x := strings.Index(s[j:], d)
				if x < 0 {
					break
				}
				x += j
				if delimClose(s, x, len(d)) && x > i+len(d) && s[x-1] != '\\' {
					k = x
					break
				}
				j = x + len(d)
			}
			if k < 0 {
				from = i + len(d)
				continue
			}
			s = s[:i] + s[i+len(d):k] + s[k+len(d):]
			changed = true
			from = k - len(d)
			if from < i {
				from = i
			}
		}
	}
	return s, changed
}

func delimOpen(s string, i, n int) bool {
	d := s[i]
	if i > 0 && s[i-1] == d {
		return false
	}
	if i+n >= len(s) || s[i+n] == d || s[i+n] == ' ' {
		return false
	}
	if i > 0 {
		r, _ := utf8.DecodeLastRuneInString(s[:i])
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

func delimClose(s string, i, n int) bool {
	d := s[i]
	if i+n < len(s) && s[i+n] == d {
		return false
	}
	if i == 0 || s[i-1] == d || s[i-1] == ' ' {
		return false
	}
	if i+n < len(s) {
		r, _ := utf8.DecodeRuneInString(s[i+n:])
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

var quotePairs = [...][2]string{{"“", "”"}, {"\"", "\""}, {"‘", "’"}, {"「", "」"}, {"『", "』"}, {"'", "'"}, {"«", "»"}}

// stripQuotes removes quotes that wrap the whole of s ("“…”"), repeatedly,
// when no other quote of the pair is inside.
func stripQuotes(s string) string {
	for len(s) >= 2 {
		done := true
		for _, q := range quotePairs {
			if len(s) > len(q[0])+len(q[1]) && strings.HasPrefix(s, q[0]) && strings.HasSuffix(s, q[1]) {
				inner := s[len(q[0]) : len(s)-len(q[1])]
				if strings.Contains(inner, q[1]) || (q[0] != q[1] && strings.Contains(inner, q[0])) {
					continue
				}
				if q[0] == "'" && !strings.ContainsAny(inner, " ") {
					continue
				}
				s = trim(inner)
				done = false
				break
			}
		}
		if done {
			break
		}
	}
	return s
}

func isQuoteStart(s string) bool {
	if s == "" {
		return false
	}
	switch s[0] {
	case '"':
		return true
	}
	for _, q := range [...]string{"“", "「", "『", "‘"} {
		if strings.HasPrefix(s, q) {
			return true
		}
	}
	return false
}

// validName reports whether name (the part before the colon, role bracket
// removed) can be a speaker. strict is for names found inside a line,
// where every Latin word must be capitalised.
func validName(name string, strict bool) bool {
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
			if isSpace(r) {
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

// spk is a speaker found at the start of a line (or inside one).
type spk struct {
	full     string // name as written, bracket included
	name     string // base name, bracket removed
	paren    string // bracket content before the colon
	hasParen bool
	rest     string // after the colon, trimmed
	deco     uint32 // markdown / quote decoration bits seen around the name
	lead     string // a list number taken off before the name ("1. ", "2) ")
	weak     uint8  // 0: a sure speaker; else the weak form, decided by the whole dialogue
}

// Weak speaker forms: lines that are a turn only when the dialogue as a
// whole says so (see resolveWeak).
const (
	wLoose   uint8 = 1 + iota // "Family member: ...": lower-case words in the name
	wBracket                  // "[Sarah] ...": a bracketed name and no colon
	wDash                     // "Sarah — ...": a name and a dash
)

const maxNameBytes = 160

// parseSpeaker reports whether line starts with "Name:" / "Name (x):" /
// "**Name:**" / "\"Name:\"" and splits it.
func parseSpeaker(line string) (sp spk, ok bool) {
	i := 0
	marks := 0 // emphasis marks opened before the name and not closed before the colon
	// leading decorations
	for i < len(line) {
		c := line[i]
		if (c == '-' || c == '+' || c == '*') && i+1 < len(line) && line[i+1] == ' ' && i == 0 {
			sp.deco |= dMarkdown
			i += 2
			continue
		}
		if c >= '0' && c <= '9' && sp.lead == "" {
			// "1. Sarah:", "2) 小王：" — a list number, not part of the name
			if n := listNumber(line[i:]); n > 0 {
				sp.lead = line[i : i+n]
				i += n
				continue
			}
		}
		if c >= 0xE2 {
			if n := emojiRun(line[i:]); n > 0 {
				i = trimSpaceFwd(line, i+n)
				continue
			}
		}
		if c == '*' || c == '_' {
			sp.deco |= dMarkdown
			marks++
			i++
			continue
		}
		if c == '"' {
			sp.deco |= dJSON
			i++
			continue
		}
		if c == '>' && i+1 < len(line) && line[i+1] == ' ' {
			sp.deco |= dMarkdown
			i += 2
			continue
		}
		if strings.HasPrefix(line[i:], "“") {
			sp.deco |= dJSON
			i += len("“")
			continue
		}
		if strings.HasPrefix(line[i:], "• ") {
			sp.deco |= dMarkdown
			i += len("• ")
			continue
		}
		break
	}
	if i < len(line) && line[i] == '[' && sp.lead == "" {
		// "[00:01:23] Sarah: hi" — a timestamp, not part of the name
		if e := strings.IndexByte(line[i:], ']'); e > 0 && isTimestamp(line[i+1:i+e]) {
			sp.lead = line[:i+e+1]
			i = trimSpaceFwd(line, i+e+1)
		}
	}
	start := i
	if i < len(line) && (line[i] == '[' || strings.HasPrefix(line[i:], "【")) {
		return bracketSpeaker(line, i, sp)
	}
	colon, cw := -1, 0
scan:
	for j := i; j < len(line) && j-start < maxNameBytes; {
		c := line[j]
		switch {
		case c == ':':
			colon, cw = j, 1
			break scan
		case c == '(':
			e := matchParen(line, j)
			if e < 0 {
				return dashSpeaker(line, start, j, sp)
			}
			j = e
			continue
		case c == '!' || c == '?' || c == ';' || c == '"' || c == '[' || c == ']' || c == '\\':
			return dashSpeaker(line, start, j, sp)
		case c == 0xEF && j+2 < len(line) && line[j+1] == 0xBC:
			switch line[j+2] {
			case 0x9A: // ：
				colon, cw = j, 3
				break scan
			case 0x88: // （
				e := matchParen(line, j)
				if e < 0 {
					return dashSpeaker(line, start, j, sp)
				}
				j = e
				continue
			case 0x8C, 0x81, 0x9F, 0x9B: // ， ！ ？ ；
				return dashSpeaker(line, start, j, sp)
			}
			j += 3
			continue
		case c == 0xE3 && j+2 < len(line) && line[j+1] == 0x80 && (line[j+2] == 0x82 || line[j+2] == 0x8C || line[j+2] == 0x90): // 。「【
			return dashSpeaker(line, start, j, sp)
		case c == 0xE2 && j+2 < len(line) && line[j+1] == 0x80 && (line[j+2] == 0xA6 || line[j+2] == 0x9D): // … ”
			if line[j+2] == 0x9D && j+3 < len(line) && (line[j+3] == ':' || strings.HasPrefix(line[j+3:], "：")) {
				j += 3 // “Name”:
				continue
			}
			return dashSpeaker(line, start, j, sp)
		}
		j++
	}
	if colon < 0 {
		return dashSpeaker(line, start, len(line), sp)
	}
	after := colon + cw
	if cw == 1 && after < len(line) {
		c := line[after]
		if (c >= '0' && c <= '9') || c == '/' || c == ':' {
			return sp, false // 10:30, https://
		}
	}
	// name part, trailing decorations removed
	e := trimSpaceBack(line, colon)
	for e > start {
		c := line[e-1]
		if c == '*' || c == '_' {
			sp.deco |= dMarkdown
			marks--
			e--
			continue
		}
		if c == '"' {
			sp.deco |= dJSON
			e--
			continue
		}
		if e-start >= 3 && line[e-3:e] == "”" {
			sp.deco |= dJSON
			e -= 3
			continue
		}
		break
	}
	e = trimSpaceBack(line, e)
	if e <= start {
		return sp, false
	}
	full := line[start:e]
	name := full
	if w := closeEndsAt(line, e); w > 0 {
		o := matchParenBack(line, e)
		if o < start {
			return sp, false
		}
		ow := openAt(line, o)
		paren := trim(line[o+ow : e-w])
		be := trimSpaceBack(line, o)
		stars := false
		for be > start && (line[be-1] == '*' || line[be-1] == '_') {
			be-- // "**Sarah** (smiling):"
			marks--
			stars = true
		}
		if stars {
			be = trimSpaceBack(line, be) // "A *():" — the name is "A"
		}
		base := line[start:max(start, be)]
		if stars {
			full = base + " " + line[o:e]
		}
		if base == "" {
			// "（同学们一起）: 刘老师好" — the bracket is all there is
			full, name = paren, paren
		} else {
			name = base
			sp.paren = paren
			sp.hasParen = paren != ""
			if !sp.hasParen {
				full = base
			}
		}
	}
	if !validName(name, false) {
		if !looseName(name) {
			return sp, false
		}
		sp.weak = wLoose
	}
	sp.full, sp.name = full, name
	// decorations right after the colon: "**Mike:** hi", "\"Ms. Chen:\" 小钱"
	for after < len(line) {
		c := line[after]
		if (c == '*' || c == '_') && marks > 0 {
			sp.deco |= dMarkdown
			marks--
			after++
			continue
		}
		if c == '"' && sp.deco&dJSON != 0 {
			after++
			continue
		}
		if strings.HasPrefix(line[after:], "”") && sp.deco&dJSON != 0 {
			after += len("”")
			continue
		}
		break
	}
	sp.rest = trim(line[after:])
	return sp, true
}

// boundaryBefore reports whether a speaker name may start at s[q]: at the
// start, after two spaces, or after a sentence end ("Paris. Mrs. Bennett:",
// "土了。王军:") but not after a title ("Mr. Smith").
func boundaryBefore(s string, q int) bool {
	// opening quotes and emphasis marks before the name go with it
	for q > 0 {
		c := s[q-1]
		if c == '*' || c == '_' || c == '"' {
			q--
			continue
		}
		if q >= 3 && (s[q-3:q] == "“" || s[q-3:q] == "‘" || s[q-3:q] == "「") {
			q -= 3
			continue
		}
		break
	}
	if q == 0 {
		return true
	}
	i := trimSpaceBack(s, q)
	if i == 0 {
		return true
	}
	if q-i >= 2 {
		return true
	}
	r, w := utf8.DecodeLastRuneInString(s[:i])
	if !isTerm(r) {
		return false
	}
	if r < 0x80 && i == q {
		// "A.B:" — an ASCII mark must be followed by a space ("。王军:"
		// needs none)
		return false
	}
	if r == '.' && isTitleBefore(s[:i-w]) {
		return false
	}
	return true
}

// asciiColonOK reports whether an ASCII colon at s[c] inside a line can
// end a speaker name (not "https://"). A digit after it does not count
// against it here: where a name starts right after the colon, the digit
// may be the next name's, and "10:30" has no name before its colon anyway.
func asciiColonOK(s string, c int) bool {
	if c+1 >= len(s) {
		return true
	}
	n := s[c+1]
	return n != '/' && n != ':'
}

// nextColon finds the next ':' or '：' at or after i; it returns its index
// and width.
func nextColon(s string, i int) (int, int) {
	for ; i < len(s); i++ {
		c := s[i]
		if c == ':' {
			return i, 1
		}
		if c == 0xEF && i+2 < len(s) && s[i+1] == 0xBC && s[i+2] == 0x9A {
			return i, 3
		}
	}
	return -1, 0
}

// nameBefore looks at the text before a colon at s[c]: an optional bracket
// (role or direction) and the name. It returns where the name ends and the
// bracket, or ok=false.
func nameEnd(s string, c, start int) (e int, paren string, hasParen bool, ok bool) {
	e = trimSpaceBack(s, c)
	for e > start && (s[e-1] == '*' || s[e-1] == '"' || s[e-1] == '_') {
		e = trimSpaceBack(s, e-1)
	}
	if w := closeEndsAt(s, e); w > 0 {
		o := matchParenBack(s, e)
		if o < start {
			return 0, "", false, false
		}
		paren = trim(s[o+openAt(s, o) : e-w])
		hasParen = paren != ""
		e = trimSpaceBack(s, o)
	}
	return e, paren, hasParen, e > start
}

// candidateBefore finds a would-be speaker name that ends at e: up to four
// words back to a sentence boundary.
func candidateBefore(s string, e, start int) (int, bool) {
	q := e
	for words := 0; words < 4; words++ {
		j := q
		for j > start {
			r, w := utf8.DecodeLastRuneInString(s[:j])
			if isSpace(r) {
				break
			}
			if isTerm(r) && r != '.' && r != '\'' && r != '’' && r != '-' && r != '*' {
				break
			}
			if r == '.' && j < q && !isTitleBefore(s[:j-w]) {
				// "。" handled above; a '.' inside the word ends a sentence
				// unless the word before it is a title
				break
			}
			j -= w
		}
		if j == q {
			return 0, false
		}
		if j > start {
			r, _ := utf8.DecodeLastRuneInString(s[:j])
			if !isSpace(r) {
				// stopped at a terminator inside the word: "土了。王军";
				// an ASCII one needs a space after it ("A.B:" is no name)
				return j, j < e && r >= 0x80
			}
		}
		if boundaryBefore(s, j) || j <= start {
			return j, true
		}
		q = trimSpaceBack(s, j)
		if q <= start {
			return j, true
		}
	}
	return 0, false
}

// narrativeLine reports whether a line that follows a turn reads as
// narration rather than more speech: Korean narrative present ("...흐른다",
// "...돌아간다", not "...습니다"), Chinese "两人相视一笑…", English
// "The tension melts, and they…".
func narrativeLine(s string) bool {
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
	j := trimSpaceFwd(s, i)
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

// bracketSpeaker reads "[Sarah]: text", "【小美】：text" (a sure speaker) and
// "[Sarah] text" (wBracket: a turn only if the dialogue says so); line[i]
// opens the bracket.
func bracketSpeaker(line string, i int, sp spk) (spk, bool) {
	cls, ow := "]", 1
	if line[i] != '[' {
		cls, ow = "】", len("【")
	}
	e := strings.Index(line[i+ow:], cls)
	if e < 0 {
		return sp, false
	}
	e += i + ow
	name := trim(line[i+ow : e])
	after := trimSpaceFwd(line, e+len(cls))
	if m := after + len(line[after:]) - len(strings.TrimLeft(line[after:], "*_")); m > after && colonAt(line, m) {
		sp.deco |= dMarkdown // "[Sarah]**:**"
		after = m
	}
	colon := colonAt(line, after) && !(line[after] == ':' && after+1 < len(line) && (line[after+1] >= '0' && line[after+1] <= '9' || line[after+1] == '/'))
	if colon {
		if line[after] == ':' {
			after++
		} else {
			after += len("：")
		}
		if !validName(name, false) {
			if !looseName(name) {
				return sp, false
			}
			sp.weak = wLoose
		}
	} else {
		if !validName(name, true) && !looseName(name) {
			return sp, false
		}
		sp.weak = wBracket
	}
	if endWord(name) || isNarrLabel(name) {
		return sp, false
	}
	sp.rest = trim(line[after:])
	if sp.weak == wBracket && sp.rest == "" {
		return sp, false
	}
	sp.full, sp.name = name, name
	return sp, true
}

// dashes that may stand between a name and its text ("Sarah — Hi").
var nameDashes = [...]string{" — ", " – ", " -- ", " - ", "——", " —", "—"}

// dashSpeaker reads "Sarah — text" (wDash: a turn only if the dialogue says
// so), the name starting at line[start] and the dash before line[lim].
func dashSpeaker(line string, start, lim int, sp spk) (spk, bool) {
	lim = min(lim, start+maxNameBytes/2)
	best, bw := -1, 0
	for _, d := range nameDashes {
		if k := strings.Index(line[start:lim], d); k > 0 && (best < 0 || start+k < best) {
			best, bw = start+k, len(d)
		}
	}
	if best < 0 {
		return sp, false
	}
	name := trim(line[start:best])
	for len(name) > 0 && (name[len(name)-1] == '*' || name[len(name)-1] == '_') {
		name = trim(name[:len(name)-1])
		sp.deco |= dMarkdown
	}
	rest := trim(line[best+bw:])
	if rest == "" || name == "" || isDashRune(firstRune(rest)) || !validName(name, true) && !looseName(name) {
		return sp, false
	}
	sp.full, sp.name, sp.rest, sp.weak = name, name, rest, wDash
	return sp, true
}

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
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

func hasProseWord(name string) bool {
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
