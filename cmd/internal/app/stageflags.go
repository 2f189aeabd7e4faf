package app

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/prompt"
	"github.com/spf13/pflag"
)

// Cultures is --culture-file, which every program that writes in a
// culture's register takes (ngseed, ngrefine, ngv2r, nglabel), and the one culture
// lookup they share: a profile given by --culture-file, else
// normbank.Profile (built in, or NAME.yaml in $NG_CULTURES_DIR).
type Cultures struct {
	files []string
	given map[string]*normbank.Culture
}

// Register adds --culture-file to fs.
func (c *Cultures) Register(fs *pflag.FlagSet) {
	fs.StringArrayVar(&c.files, "culture-file", nil, "read a culture profile from `FILE` (YAML or JSON; repeatable)")
}

// Load reads the --culture-file profiles. Its error is one line.
func (c *Cultures) Load() error {
	c.given = map[string]*normbank.Culture{}
	for _, f := range c.files {
		cu, err := normbank.LoadProfile(f)
		if err != nil {
			// A profile's problems come one per line; usage errors are one line.
			return fmt.Errorf("--culture-file: %s", strings.ReplaceAll(err.Error(), "\n", "; "))
		}
		c.given[cu.Name] = cu
	}
	return nil
}

// Given are the names of the --culture-file profiles, sorted (after Load).
func (c *Cultures) Given() []string {
	return slices.Sorted(maps.Keys(c.given))
}

// Lookup finds a culture's profile: given by --culture-file, or from
// normbank.Profile.
func (c *Cultures) Lookup(name string) (*normbank.Culture, error) {
	name = strings.ToLower(strings.TrimSpace(name))
	if cu := c.given[name]; cu != nil {
		return cu, nil
	}
	return normbank.Profile(name)
}

// Prompts is --prompts, which every LLM program takes: a directory whose
// templates override the built-in pack file by file.
type Prompts struct{ dir string }

// Register adds --prompts to fs; templates names the program's templates
// for the help ("v2r/dialogue[.culture].tmpl").
func (p *Prompts) Register(fs *pflag.FlagSet, templates string) {
	fs.StringVar(&p.dir, "prompts", "", "override the built-in prompt templates with the files of `DIR` ("+templates+")")
}

// Open opens the pack: the built-in one, overridden by --prompts.
func (p *Prompts) Open() (*prompt.Pack, error) { return prompt.Open(p.dir) }
