package app

import (
	"errors"
	"fmt"

	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/llm/roles"
	"github.com/ngkit/ngkit/pkg/llm/usage"
	"github.com/ngkit/ngkit/pkg/persona"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/prompt"
	"github.com/spf13/pflag"
)

// Options are a program's own flags (restic's shape): Register adds them
// to the flag set, Check refuses the values that cannot make a run. Run
// calls Check after the flags are parsed, before anything is loaded.
type Options interface {
	Register(fs *pflag.FlagSet)
	Check() error
}

// AddOptions registers a program's options (at this point of --help) and
// has Run check them.
func (p *Program) AddOptions(opts ...Options) {
	for _, o := range opts {
		o.Register(p.Flags)
		p.options = append(p.options, o)
	}
}

// WithCultures gives a program --culture-file (here in --help); Run loads
// the profiles before the build (Build.Cultures).
func (p *Program) WithCultures() {
	p.cultures = &Cultures{}
	p.cultures.Register(p.Flags)
}

// WithPrompts gives a program --prompts; templates names its templates
// for --help. Run opens the pack before the build (Build.Pack).
func (p *Program) WithPrompts(templates string) {
	p.prompts = &Prompts{}
	p.prompts.Register(p.Flags, templates)
}

// WithPersonas gives a program --personas and --vary; Run reads them
// before the build (Build.Personas).
func (p *Program) WithPersonas() {
	p.personas = &Personas{}
	p.personas.Register(p.Flags)
}

// Build is what a program's build func is handed: the arguments and
// everything the shared flags name, loaded and checked. A build returns
// the run (RunSpec); for an LLM program its Stage calls the models.
type Build struct {
	Env  Env
	Args []string
	// Models are the roles' endpoints (an LLM program with roles).
	Models *roles.Models
	// Client is the one endpoint of an LLM program without roles.
	Client *llm.Client
	// Cultures are the --culture-file profiles and the lookup (WithCultures).
	Cultures *Cultures
	// Pack is the prompt pack, --prompts over the built-in one (WithPrompts).
	Pack *prompt.Pack
	// Personas samples --personas and --vary (WithPersonas); nil when
	// neither is given.
	Personas *persona.Sampler
	resume   bool
}

// WithPersonas makes stage give each input record its persona and
// variants first (personaStage), for a program that receives records
// (ngrefine, ngv2r); stage itself without --personas or --vary. --vary
// with --resume is refused: the output holds the variants' ids, not the
// input record's, so a resumed run could not tell which inputs are done.
func (b *Build) WithPersonas(stage pipeline.Stage) (pipeline.Stage, error) {
	s := b.Personas
	if !s.Active() {
		return stage, nil
	}
	if s.Varies() && b.resume {
		return nil, fmt.Errorf("--vary with --resume: the output holds the variants' ids, not the input records'; rerun without --resume")
	}
	return &personaStage{Sampler: s, Inner: stage}, nil
}

// Run is every program's run: it parses the flags and checks the
// options, opens the models (an LLM program; a program without a model
// has no endpoints), loads --culture-file, --prompts and the personas,
// then hands them to build and runs what it returns over the inputs
// (Execute; with --batch or --estimate, their runs). Its error is an
// *ExitError: bad usage is exit 2 (see Execute).
func (p *Program) Run(env Env, build func(*Build) (RunSpec, error)) error {
	args, err := p.Parse(env)
	if err != nil {
		return err
	}
	for _, o := range p.options {
		if err := o.Check(); err != nil {
			return p.usage(err)
		}
	}
	b := &Build{Env: env, Args: args, resume: p.IO.Resume}
	m := &endpoints{} // none, unless the program calls models
	if p.llm {
		if r := p.IO.MaxErrorRate; r < 0 || r > 1 {
			return p.Usagef("--max-error-rate %g: want a share of records from 0 to 1 (1: never stop)", r)
		}
		if m, err = p.openModels(env); err != nil {
			return p.Usagef("%v", err)
		}
		b.Models, b.Client = m.models, m.client
		if !p.Flags.Changed("workers") {
			p.IO.Workers = m.workers()
		}
		if err := p.checkInputs(args); err != nil {
			m.abort()
			return err
		}
	}
	if err := p.load(b); err != nil {
		m.abort()
		return p.usage(err)
	}
	spec, err := build(b)
	if err != nil {
		m.abort()
		return p.usage(err)
	}
	if spec.Inputs == nil {
		spec.Inputs = args
	}
	if p.llm {
		if err := checkPriced(m.budget, m.clients); err != nil {
			m.abort()
			if spec.Source != nil {
				spec.Source.Close()
			}
			return p.Usagef("%v", err)
		}
		spec.Stage = deferredStage{spec.Stage, m.primary, p.LLM.Batch.On}
		spec.Budget = m.budget
		if m.models != nil {
			spec.Activity = m.models.Activity
		} else {
			spec.Activity = m.client.Activity
		}
	}
	// The program's own end (what an import left out), then the models'
	// summary: both before the line that ends the run, never after it.
	finished, finish := false, spec.Finish
	spec.Finish = func() error {
		finished = true
		var err error
		if finish != nil {
			err = finish()
		}
		return errors.Join(err, m.close())
	}
	err = p.execute(env, spec, m.clients)
	if !finished { // a usage error before the run: nothing to commit
		m.abort()
	}
	if err != nil || spec.After == nil {
		return err
	}
	return spec.After()
}

// usage is err as a usage error, unless it is an *ExitError already.
func (p *Program) usage(err error) error {
	var e *ExitError
	if errors.As(err, &e) {
		return err
	}
	return p.Usagef("%v", err)
}

// load reads what the shared flags name, into b.
func (p *Program) load(b *Build) error {
	if p.cultures != nil {
		if err := p.cultures.Load(); err != nil {
			return err
		}
		b.Cultures = p.cultures
	}
	if p.prompts != nil {
		pack, err := p.prompts.Open()
		if err != nil {
			return err
		}
		b.Pack = pack
	}
	if p.personas != nil {
		s, err := p.personas.Sampler(p.LLM.Seed)
		if err != nil {
			return err
		}
		b.Personas = s
	}
	return nil
}

// endpoints are an LLM program's open clients: its roles' (Models) or,
// for a program without roles, one; a program without a model has none,
// and nothing to abort or close.
type endpoints struct {
	models  *roles.Models
	client  *llm.Client
	clients map[string]*llm.Client
	primary *llm.Client // counts the records deferred to --emit-requests
	budget  *usage.Budget
}

func (e *endpoints) workers() int {
	if e.models != nil {
		return e.models.Workers()
	}
	return e.client.Workers()
}

func (e *endpoints) abort() {
	switch {
	case e.models != nil:
		e.models.Abort()
	case e.client != nil:
		e.client.Abort()
	}
}

func (e *endpoints) close() error {
	switch {
	case e.models != nil:
		return e.models.Close()
	case e.client != nil:
		return e.client.Close()
	}
	return nil
}

// openModels makes the clients from the LLM flags, the environment and,
// for a program with roles, the models file and the role flags.
func (p *Program) openModels(env Env) (*endpoints, error) {
	p.LLM.Demo = env.Demo
	if len(p.roles) == 0 {
		cfg, err := p.LLM.Config(env.Var)
		if err != nil {
			return nil, err
		}
		cfg.Stage, cfg.Stderr, cfg.Quiet = p.Name, env.Stderr, p.IO.Quiet
		c, err := llm.New(cfg)
		if err != nil {
			return nil, err
		}
		return &endpoints{client: c, clients: map[string]*llm.Client{llm.DefaultAlias: c}, primary: c, budget: cfg.Budget}, nil
	}
	base, endpointErr, err := p.LLM.sharedConfig(env.Var)
	if err != nil {
		return nil, err
	}
	base.Stage, base.Stderr, base.Quiet = p.Name, env.Stderr, p.IO.Quiet
	rs, err := p.Roles.Settings(p.Name)
	if err != nil {
		return nil, err
	}
	models, err := roles.Open(rs, p.Name, p.roles, base, endpointErr, env.Var)
	if err != nil {
		return nil, err
	}
	// With several endpoints there is no --emit-requests file (OpenModels
	// refuses it): the primary client counts the deferred records.
	return &endpoints{models: models, clients: models.Clients(), primary: models.Primary(), budget: base.Budget}, nil
}

// Stage is a build that makes only the stage, run over the input files.
func Stage(build func(*Build) (pipeline.Stage, error)) func(*Build) (RunSpec, error) {
	return func(b *Build) (RunSpec, error) {
		st, err := build(b)
		return RunSpec{Stage: st}, err
	}
}
