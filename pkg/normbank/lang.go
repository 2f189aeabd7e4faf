package normbank

import (
	"strings"
	"sync"
)

// CultureLang returns the dialogue language (the profile's BCP-47 tag:
// "en", "zh", "ko") of a built-in culture, "" for a culture without a
// built-in profile. The importers, ngstats' audit and nglabel take a
// culture's language from here, so that a profile added to cultures/ is
// known to all of them.
func CultureLang(culture string) string {
	return builtinLangs()[strings.ToLower(strings.TrimSpace(culture))]
}

var builtinLangs = sync.OnceValue(func() map[string]string {
	m := make(map[string]string)
	for _, name := range BuiltinCultures() {
		c, err := BuiltinProfile(name)
		if err != nil {
			panic("normbank: built-in culture " + name + ": " + err.Error())
		}
		m[name] = c.Lang
	}
	return m
})
