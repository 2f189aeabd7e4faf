package cli

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/ngkit/ngkit/filters/seed"
	"github.com/ngkit/ngkit/pkg/episode"
	"github.com/ngkit/ngkit/pkg/llm/roles"
	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/persona"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/prompt"
	"github.com/spf13/pflag"
)

// episodeFlags are ngseed's flags for --types episode (CultureConverse
// episode specs).
type episodeFlags struct {
	domains   []string
	perDomain int
	subgroups []string
	norms     []normbank.Norm
}

// Register adds the episode flags to fs (app.Options).
func (f *episodeFlags) Register(fs *pflag.FlagSet) {
	fs.StringSliceVar(&f.domains, "domains", episode.Domains, "with --types episode: the `DOMAINS` of the episodes, comma-separated (the seven of CultureConverse, or your own)")
	fs.IntVar(&f.perDomain, "per-domain", 1, "with --types episode: specs per domain (and per subgroup), `N`")
	fs.StringSliceVar(&f.subgroups, "subgroups", nil, "with --types episode: the users' subgroup identities, `LIST`; \"catalogue\": the culture profile's subgroups (default: the writer chooses)")
	fs.Lookup("domains").DefValue = strings.Join(episode.Domains, ",")
}

// Check has nothing to refuse before the run: the episode flags are
// checked with the arguments and the culture (source).
func (f *episodeFlags) Check() error { return nil }

// isEpisode says whether --types asks for episode specs; they are made
// alone, not beside dialogue seeds.
func isEpisode(types []string) (bool, error) {
	has := false
	for _, t := range types {
		if strings.EqualFold(strings.TrimSpace(t), seed.TypeEpisode) {
			has = true
		}
	}
	if has && len(types) > 1 {
		return true, errors.New("--types episode makes episode specs for ngsim: give it alone, not with dialogue types")
	}
	return has, nil
}

// source checks the episode flags and makes the slots.
func (f *episodeFlags) source(args []string, culture string, lookup func(string) (*normbank.Culture, error)) (pipeline.Source, error) {
	switch {
	case len(args) > 0:
		return nil, errors.New("--types episode reads no FILE arguments: give the culture with --culture and its norms, if not built in, with --norms FILE")
	case culture == "":
		return nil, errors.New("--types episode needs --culture NAME (one culture a run)")
	case f.perDomain < 1:
		return nil, fmt.Errorf("--per-domain %d: want at least 1", f.perDomain)
	}
	c, err := lookup(culture)
	if err != nil {
		return nil, fmt.Errorf("--culture: %w", err)
	}
	var domains []string
	for _, d := range f.domains {
		d = strings.ToLower(strings.TrimSpace(d))
		if d != "" && !slices.Contains(domains, d) {
			domains = append(domains, d)
		}
	}
	if len(domains) == 0 {
		return nil, errors.New("--domains: no domain")
	}
	var subgroups []string
	for _, s := range f.subgroups {
		s = strings.TrimSpace(s)
		switch {
		case s == "":
		case s == subgroupCatalogue:
			if len(c.Subgroups) == 0 {
				return nil, fmt.Errorf("--subgroups catalogue: culture %s has no subgroup catalogue (give the subgroups by name, or add subgroups: to its profile)", c.Name)
			}
			for _, sg := range c.Subgroups {
				if !slices.Contains(subgroups, sg) {
					subgroups = append(subgroups, sg)
				}
			}
		case !slices.Contains(subgroups, s):
			subgroups = append(subgroups, s)
		}
	}
	return seed.EpisodeSlots(c.Name, domains, f.perDomain, subgroups), nil
}

// subgroupCatalogue is the --subgroups value that stands for the culture
// profile's catalogue.
const subgroupCatalogue = "catalogue"

// stage makes the episode stage. The norms the constraints rest on are
// the built-in ones of the culture, or --norms FILE's; a culture with none
// (the newer profiles) is said once, and its constraints rest on the
// profile.
func (f *episodeFlags) stage(m *roles.Models, pack *prompt.Pack, lookup func(string) (*normbank.Culture, error), sampler *persona.Sampler,
	args []string, culture, normsFile string, categories []string, stderr io.Writer) (pipeline.Stage, error) {
	if _, err := f.source(args, culture, lookup); err != nil {
		return nil, err // the same checks as the source's, before the note below
	}
	c, err := lookup(culture)
	if err != nil {
		return nil, fmt.Errorf("--culture: %w", err)
	}
	all := normbank.BuiltinNorms()
	if normsFile != "" {
		if all, err = normbank.LoadNorms(normsFile); err != nil {
			return nil, fmt.Errorf("--norms: %w", err)
		}
	}
	for _, n := range all {
		if n.Culture == c.Name && (len(categories) == 0 || slices.Contains(categories, n.Category)) {
			f.norms = append(f.norms, n)
		}
	}
	if len(f.norms) == 0 {
		fmt.Fprintf(stderr, "ngseed: no %s norms (built in: %s; or --norms FILE): the episodes' constraints rest on the %s profile alone, with no norm_id\n",
			c.Name, strings.Join(normbank.NormCultures(), ", "), c.Name)
	}
	return seed.NewEpisodes(m.Caller(roles.Writer), seed.EpisodeOptions{Pack: pack, Profile: lookup, Norms: f.norms, Personas: sampler})
}
