package lang

import (
	"golang.org/x/text/language"
	"golang.org/x/text/language/display"
)

// Name is the English name of a language tag ("ko" -> "Korean", "th" ->
// "Thai"), for prompts and messages; the tag itself when it has no name.
func Name(tag string) string {
	t, err := language.Parse(tag)
	if err != nil {
		return tag
	}
	if n := display.English.Languages().Name(t); n != "" && n != "Unknown language" {
		return n
	}
	return tag
}
