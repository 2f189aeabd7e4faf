package record

import (
	"fmt"
	"regexp"
	"strings"
)

// cultureName is the rule for a culture's name, shared by records and the
// culture profiles (pkg/normbank): lower-case letters, digits and '-',
// starting with a letter, at most 32. A name is used to look up profiles
// and prompt templates (turns.<culture>.tmpl), so it can hold no '/', '.'
// or control character.
var cultureName = regexp.MustCompile(`^[a-z][a-z0-9-]{0,31}$`)

// ValidCultureName reports whether name, as it is (already lower-cased
// and trimmed), follows the culture name rule.
func ValidCultureName(name string) bool { return cultureName.MatchString(name) }

// CheckCulture checks a record's culture: empty, or a culture name once
// lower-cased and trimmed (as the profile lookup reads it: "Korean" is
// korean). Records are checked where they enter a run, before any lookup.
func CheckCulture(culture string) error {
	if culture == "" || ValidCultureName(strings.ToLower(strings.TrimSpace(culture))) {
		return nil
	}
	return fmt.Errorf("culture %q is not a culture name (lower-case letters, digits and '-', starting with a letter, at most 32)", culture)
}
