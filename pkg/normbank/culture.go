package normbank

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/ngkit/ngkit/pkg/lang"
	"github.com/ngkit/ngkit/pkg/record"
	"go.yaml.in/yaml/v3"
)

//go:embed cultures/*.yaml
var cultureFiles embed.FS

// Culture is a culture profile: what the generation stages need to know
// to write about and in a culture. It is read from a YAML (or JSON) file;
// the field names below are the file's keys.
type Culture struct {
	// Name is the culture's key: lower case ASCII letters, digits and '-',
	// as in records' culture field and --culture.
	Name string `yaml:"name" json:"name"`
	// DisplayName is how prompts name the culture ("Korean"); Name when empty.
	DisplayName string `yaml:"display_name,omitempty" json:"display_name,omitempty"`
	// Lang is the BCP-47 tag of the dialogue language.
	Lang string `yaml:"lang" json:"lang"`
	// OtherLangs are further languages the culture's dialogues may be
	// written in (Singapore: zh, ms and ta beside en). Generation asks for
	// Lang; the language checks accept any of Langs().
	OtherLangs []string `yaml:"other_langs,omitempty" json:"other_langs,omitempty"`
	// ScenarioLang is the language scenarios and situations are written in.
	ScenarioLang string `yaml:"scenario_lang" json:"scenario_lang"`
	// NormLang is the language the culture's built-in norms are written
	// in, for information (the Chinese norms of the release are English).
	NormLang string `yaml:"norm_lang,omitempty" json:"norm_lang,omitempty"`
	// Names are common given and family names, for naming characters.
	Names Names `yaml:"names" json:"names"`
	// Titles are titles, kinship terms and address forms of the culture.
	Titles []string `yaml:"titles" json:"titles"`
	// Honorifics is short guidance on honorifics and forms of address.
	Honorifics string `yaml:"honorifics" json:"honorifics"`
	// Distance is short guidance on hierarchy and relational distance.
	Distance string `yaml:"relational_distance" json:"relational_distance"`
	// Subgroups are identities within the culture that CultureConverse
	// episodes are written for (ngseed --types episode --subgroups
	// catalogue), and ngstats counts the episodes of each.
	Subgroups []string `yaml:"subgroups,omitempty" json:"subgroups,omitempty"`

	// Source is where the profile was read from: a file name, or
	// "builtin:NAME.yaml".
	Source string `yaml:"-" json:"-"`
}

// Names are the culture's common names.
type Names struct {
	// Order is how a full name is written: "given-family" or "family-given".
	Order  string   `yaml:"order" json:"order"`
	Given  []string `yaml:"given" json:"given"`
	Family []string `yaml:"family" json:"family"`
}

// Name orders of Names.Order.
const (
	GivenFamily = "given-family"
	FamilyGiven = "family-given"
)

// profileExts are the file name extensions of profile files, in the order
// a culture directory is searched.
var profileExts = []string{".yaml", ".yml", ".json"}

// ErrUnknownCulture is returned (wrapped) for a culture without a profile.
var ErrUnknownCulture = errors.New("unknown culture")

// BuiltinCultures lists the names of the built-in culture profiles, sorted.
func BuiltinCultures() []string {
	ents, err := fs.ReadDir(cultureFiles, "cultures")
	if err != nil {
		panic("normbank: embedded cultures: " + err.Error())
	}
	var out []string
	for _, e := range ents {
		out = append(out, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	sort.Strings(out)
	return out
}

// BuiltinProfile returns the built-in profile of a culture.
func BuiltinProfile(name string) (*Culture, error) {
	name = strings.ToLower(strings.TrimSpace(name))
	if !record.ValidCultureName(name) {
		return nil, fmt.Errorf("culture %q: not a valid culture name (lower-case letters, digits and '-')", name)
	}
	b, err := cultureFiles.ReadFile(path.Join("cultures", name+".yaml"))
	if err != nil {
		return nil, fmt.Errorf("%w %q: the built-in cultures are %s", ErrUnknownCulture, name, strings.Join(BuiltinCultures(), ", "))
	}
	return ParseProfile("builtin:"+name+".yaml", b)
}

// UserCultureDir is where Profile looks for user profiles before the
// built-in ones: $NG_CULTURES_DIR, else <user config dir>/ngkit/cultures
// (~/.config/ngkit/cultures on Linux); "" when neither can be found.
func UserCultureDir() string {
	if d := os.Getenv("NG_CULTURES_DIR"); d != "" {
		return d
	}
	d, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "ngkit", "cultures")
}

// SharedProfile is Profile read once per culture and user culture folder,
// for code that looks a culture up for every record (the audit, the card's
// languages): reading a profile parses YAML. The profile is shared: do not
// change it.
func SharedProfile(name string) (*Culture, error) {
	key := UserCultureDir() + "\x00" + strings.ToLower(strings.TrimSpace(name))
	if v, ok := sharedProfiles.Load(key); ok {
		e := v.(profileEntry)
		return e.c, e.err
	}
	c, err := Profile(name)
	sharedProfiles.Store(key, profileEntry{c, err})
	return c, err
}

type profileEntry struct {
	c   *Culture
	err error
}

var sharedProfiles sync.Map // UserCultureDir + NUL + name -> profileEntry

// Profile returns the profile of the named culture: from NAME.yaml,
// NAME.yml or NAME.json in UserCultureDir when such a file exists (so a
// user can add a culture, or override a built-in one), else the built-in
// profile.
func Profile(name string) (*Culture, error) {
	name = strings.ToLower(strings.TrimSpace(name))
	if !record.ValidCultureName(name) {
		return nil, fmt.Errorf("culture %q: not a valid culture name (lower-case letters, digits and '-')", name)
	}
	dir := UserCultureDir()
	if dir != "" {
		for _, ext := range profileExts {
			p := filepath.Join(dir, name+ext)
			if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
				continue
			} else if err != nil {
				return nil, fmt.Errorf("%s: %w", p, bareError(err))
			}
			c, err := LoadProfile(p)
			if err != nil {
				return nil, err
			}
			if c.Name != name {
				return nil, fmt.Errorf("%s: name is %q, want %q as the file name says", p, c.Name, name)
			}
			return c, nil
		}
	}
	c, err := BuiltinProfile(name)
	if dir != "" && errors.Is(err, ErrUnknownCulture) {
		return nil, fmt.Errorf("%w; add one as %s or give --culture-file FILE", err, filepath.Join(dir, name+".yaml"))
	}
	return c, err
}

// LoadProfile reads and validates a culture profile file (YAML or JSON).
func LoadProfile(file string) (*Culture, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, bareError(err))
	}
	return ParseProfile(file, b)
}

// bareError drops the operation and path of an *fs.PathError, which the
// caller's message names already.
func bareError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// ParseProfile parses and validates a culture profile; name is the file
// name used in errors. Unknown keys are errors (a misspelt key would
// otherwise be ignored in silence).
func ParseProfile(name string, data []byte) (c *Culture, err error) {
	defer func() {
		// The YAML decoder is third-party code fed user input: a panic
		// in it must become an error naming the file, not a crash.
		if p := recover(); p != nil {
			c, err = nil, fmt.Errorf("%s: cannot parse the profile: %v", name, p)
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	c = new(Culture)
	if err := dec.Decode(c); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: empty profile", name)
		}
		return nil, fmt.Errorf("%s: %s", name, yamlMessage(err))
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: more than one YAML document; a profile is one", name)
	}
	c.Source = name
	if err := c.Validate(); err != nil {
		// one problem per line, each naming the file
		return nil, errors.New(name + ": " + strings.ReplaceAll(err.Error(), "\n", "\n"+name+": "))
	}
	return c, nil
}

// yamlMessage shortens the YAML decoder's errors ("yaml: unmarshal errors:
// line 3: field foo not found in type normbank.Culture") for users.
func yamlMessage(err error) string {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		msgs := make([]string, len(te.Errors))
		for i, m := range te.Errors {
			m = strings.Replace(m, "not found in type normbank.Culture", "is not a profile key", 1)
			m = strings.Replace(m, "not found in type normbank.Names", "is not a key of names", 1)
			msgs[i] = m
		}
		return strings.Join(msgs, "; ")
	}
	return strings.TrimPrefix(err.Error(), "yaml: ")
}

// Validate checks that a profile is complete: a valid name, dialogue and
// scenario languages that pkg/lang can detect, a name order, at least two
// given names and one family name, at least one title, and both guidance
// texts. It reports every problem at once, one per line.
func (c *Culture) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	switch {
	case c.Name == "":
		bad("name is missing")
	case !record.ValidCultureName(c.Name):
		bad("name %q: want lower-case letters, digits and '-', starting with a letter (at most 32)", c.Name)
	}
	checkLang := func(key, tag string, required bool) {
		if tag == "" {
			if required {
				bad("%s is missing (a BCP-47 language tag such as en, zh, zh-Hant, ko, th)", key)
			}
			return
		}
		if lang.Normalize(tag) == "" {
			bad("%s %q is not a BCP-47 language tag (such as en, zh, ko)", key, tag)
			return
		}
		// A one-language detector loads no model: this only asks pkg/lang
		// whether it can tell the language at all.
		if _, err := lang.New(tag); err != nil {
			bad("%s %q: %s", key, tag, strings.TrimPrefix(err.Error(), "lang: "))
		}
	}
	checkLang("lang", c.Lang, true)
	for i, l := range c.OtherLangs {
		checkLang(fmt.Sprintf("other_langs[%d]", i), l, true)
	}
	checkLang("scenario_lang", c.ScenarioLang, true)
	checkLang("norm_lang", c.NormLang, false)
	switch c.Names.Order {
	case GivenFamily, FamilyGiven:
	case "":
		bad("names.order is missing (%s or %s)", GivenFamily, FamilyGiven)
	default:
		bad("names.order %q: want %s or %s", c.Names.Order, GivenFamily, FamilyGiven)
	}
	checkList := func(key string, list []string, min int) {
		n := 0
		for i, s := range list {
			if strings.TrimSpace(s) == "" {
				bad("%s[%d] is empty", key, i)
				continue
			}
			n++
		}
		if n < min {
			bad("%s: want at least %d, got %d", key, min, n)
		}
	}
	checkList("names.given", c.Names.Given, 2) // a dialogue has two speakers
	checkList("names.family", c.Names.Family, 1)
	checkList("titles", c.Titles, 1)
	if strings.TrimSpace(c.Honorifics) == "" {
		bad("honorifics is missing (short guidance on honorifics and forms of address)")
	}
	if strings.TrimSpace(c.Distance) == "" {
		bad("relational_distance is missing (short guidance on hierarchy and closeness)")
	}
	return errors.Join(errs...)
}

// Langs are the languages the culture's dialogues may be in, normalized
// (lang.Normalize) and without repeats: Lang first, then OtherLangs.
func (c *Culture) Langs() []string {
	out := make([]string, 0, 1+len(c.OtherLangs))
	for _, l := range append([]string{c.Lang}, c.OtherLangs...) {
		if l = lang.Normalize(l); l != "" && !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return out
}

// Display is the culture's display name, or its name.
func (c *Culture) Display() string {
	if c.DisplayName != "" {
		return c.DisplayName
	}
	return c.Name
}
