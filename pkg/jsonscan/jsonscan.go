// Package jsonscan is the one scanner of JSON text that knows where its
// strings are, so that bracket matching and repairs never look inside them
// (a reply's "{" in a quoted line, an escaped quote). The streaming reader of
// JSON values (filters/imports) and the reply extractor (pkg/llm) use it. It
// imports nothing of ngkit.
package jsonscan

// Strings follows a JSON text byte by byte and tells which bytes stand
// outside its strings. The zero value starts outside.
type Strings struct{ in, esc bool }

// Outside reports whether c, the next byte of the text, stands outside a
// string: the quote that opens a string counts as outside, the one that
// closes it as inside.
func (s *Strings) Outside(c byte) bool {
	if s.in {
		switch {
		case s.esc:
			s.esc = false
		case c == '\\':
			s.esc = true
		case c == '"':
			s.in = false
		}
		return false
	}
	if c == '"' {
		s.in = true
	}
	return true
}

// MatchClose returns the index of the bracket closing the one at s[i] ('{'
// or '['), or -1: the pairs must match ("[}" closes nothing) and strings are
// skipped.
func MatchClose(s string, i int) int {
	var stack []byte
	var str Strings
	for j := i; j < len(s); j++ {
		c := s[j]
		if !str.Outside(c) {
			continue
		}
		switch c {
		case '{':
			stack = append(stack, '}')
		case '[':
			stack = append(stack, ']')
		case '}', ']':
			if len(stack) == 0 || stack[len(stack)-1] != c {
				return -1
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return j
			}
		}
	}
	return -1
}
