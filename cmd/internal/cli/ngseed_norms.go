package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ngkit/ngkit/cmd/internal/app"
	"github.com/ngkit/ngkit/filters/seed"
	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/prompt"
	"github.com/ngkit/ngkit/pkg/record"
	"github.com/spf13/pflag"
)

// makeNorms is ngseed --make-norms: norms for a new culture,
// from its profile, instead of seeds.
type makeNorms struct {
	on          bool
	perCategory int
}

// Register adds --make-norms and --norms-per-category to fs (app.Options).
func (m *makeNorms) Register(fs *pflag.FlagSet) {
	fs.BoolVar(&m.on, "make-norms", false, "write norms for the culture (--culture or the --culture-file's) instead of seeds: see New culture")
	fs.IntVar(&m.perCategory, "norms-per-category", seed.DefaultNormsPerCategory, "with --make-norms: norms per category, `N`")
}

// Check has nothing to refuse before the run: seed.NewNormMaker checks
// the counts, with --max-topups.
func (m *makeNorms) Check() error { return nil }

// culture is the culture to write norms for: --culture, else the one
// --culture-file profile.
func (m *makeNorms) culture(cultures *app.Cultures, name string) (string, error) {
	if name != "" {
		c, err := cultures.Lookup(name)
		if err != nil {
			return "", fmt.Errorf("--culture: %w", err)
		}
		return c.Name, nil
	}
	given := cultures.Given()
	if len(given) != 1 {
		return "", errors.New("--make-norms: name the culture with --culture NAME or give its profile with one --culture-file FILE")
	}
	return given[0], nil
}

// source is the categories to write norms for, one record each.
func (m *makeNorms) source(cultures *app.Cultures, name string, categories []string, args []string, normsFile string) (pipeline.Source, error) {
	if len(args) > 0 || normsFile != "" {
		return nil, errors.New("--make-norms reads no norms: give no FILE arguments and no --norms")
	}
	culture, err := m.culture(cultures, name)
	if err != nil {
		return nil, err
	}
	if len(categories) == 0 {
		categories = record.Categories
	}
	for _, c := range categories {
		if strings.TrimSpace(c) == "" {
			return nil, errors.New("--categories: an empty category")
		}
	}
	return seed.CategorySource(culture, categories), nil
}

func (m *makeNorms) stage(c llm.Caller, pack *prompt.Pack, topUps int, cultures *app.Cultures) (pipeline.Stage, error) {
	return seed.NewNormMaker(c, seed.NormOptions{Pack: pack, PerCategory: m.perCategory, MaxTopUps: topUps, Profile: cultures.Lookup})
}
