package sim

import (
	"golang.org/x/text/language"
	"golang.org/x/text/language/display"
)

// languageName is a language's English name ("Thai" for th), or the tag.
func languageName(tag string) string {
	t, err := language.Parse(tag)
	if err != nil {
		return tag
	}
	if n := display.English.Languages().Name(t); n != "" && n != "Unknown language" {
		return n
	}
	return tag
}
