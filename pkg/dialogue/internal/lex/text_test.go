package lex

import (
	"testing"
	"unicode"
)

func TestIsSpace(t *testing.T) {
	for r := rune(0); r < 0x110000; r++ {
		if IsSpace(r) != unicode.IsSpace(r) {
			t.Fatalf("IsSpace(%U) = %v", r, IsSpace(r))
		}
	}
}
