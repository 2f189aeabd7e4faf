package lex

import (
	"strings"
	"unicode/utf8"
)

// StripHeading removes a leading markdown heading mark ("## ") and reports
// whether there was one.
func StripHeading(s string) (string, bool) {
	if s == "" || s[0] != '#' {
		return s, false
	}
	i := 0
	for i < len(s) && s[i] == '#' {
		i++
	}
	if i > 6 || (i < len(s) && s[i] != ' ') {
		return s, false
	}
	return Trim(s[i:]), true
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

// ParseHeader reports whether s is a header such as "Dialogue:",
// "Dialogue 2:", "对话一：", "대화 1:" and returns the dialogue number (0 if
// none) and what follows the header's colon on the same line.
func ParseHeader(s string) (num int, rest string, ok bool) {
	if s == "" {
		return 0, "", false
	}
	lead := 0
	c0 := s[0] | 0x20
	if len(headerLeadsBy[c0]) == 0 && len(headerWordsBy[c0]) == 0 {
		return 0, "", false
	}
	for _, l := range headerLeadsBy[c0] {
		// cheap tests first: ParseHeader runs on every line
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
	if hw[0] < 0x80 && i < len(s) && (s[i] == 's' || s[i] == 'S') && (i+1 == len(s) || !IsLetterByte(s[i+1])) {
		i++ // "Dialogues:"
	}
	if hw[0] < 0x80 && i < len(s) && IsLetterByte(s[i]) {
		return 0, "", false // "dialogue is", "Scripture"
	}
	for _, suf := range [...]string{"内容", "내용", "如下", " content", " text"} {
		if strings.HasPrefix(s[i:], suf) {
			i += len(suf)
		}
	}
	i = TrimSpaceFwd(s, i)
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
	i = TrimSpaceFwd(s, i)
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
	return num, Trim(s[i:]), true
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

func IsLetterByte(c byte) bool {
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
// in bytes, matched in any case; the others whole): IsNarrLabel runs on
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

func IsNarrLabel(name string) bool {
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
