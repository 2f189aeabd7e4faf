// Package sim is ngsim's stage, the CultureConverse episode loop: a
// simulated user (the user role) with a goal and hidden cultural
// constraints talks to an assistant under test (the assistant role, called
// as a deployed assistant is: plain chat messages, its own system prompt,
// no reply schema) until the goal is met or the turns run out; then a
// judge (the judge role) scores the episode on fixed rubrics and gives an
// outcome per hidden constraint.
//
// One work item is one episode, a spec against one assistant (Expand
// makes them from the spec records), so --resume and the errors file deal
// in episodes. An episode's turns run in order; episodes run concurrently
// on the runner's workers, each with at most one call in flight.
package sim

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/ngkit/ngkit/pkg/episode"
	"github.com/ngkit/ngkit/pkg/lang"
	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/persona"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/prompt"
	"github.com/ngkit/ngkit/pkg/record"
)

// Defaults of the options.
const (
	DefaultMaxTurns    = 8
	DefaultTurnRetries = 1
)

// The speakers of an episode's turns.
const (
	SpeakerUser      = "user"
	SpeakerAssistant = "assistant"
)

// Assistant is one assistant under test: an endpoint alias and its caller.
type Assistant struct {
	Alias  string
	Caller llm.Caller
}

// Options configure the stage.
type Options struct {
	// User is the simulator, Judge the judge.
	User, Judge llm.Caller
	// Assistants are the assistants under test, by alias.
	Assistants []Assistant
	// Mode is episode.ModeBenchmark (the assistant gets only the
	// conversation) or episode.ModeGold (its system prompt also holds the
	// hidden constraints).
	Mode string
	// MaxTurns bounds the user-assistant exchanges of an episode.
	MaxTurns int
	// AssistantSystem is the assistant's system prompt; "" for the pack's
	// sim/assistant.
	AssistantSystem string
	// TurnRetries is how many times more a call that failed for good (the
	// client's retries spent) is made again before the episode fails; the
	// conversation so far is kept.
	TurnRetries int
	// NoJudge skips the judge (episodes without scores).
	NoJudge bool
	// Pack is the prompt pack (prompt.Builtin() when nil).
	Pack *prompt.Pack
	// Profile finds a culture's profile; normbank.Profile when nil.
	Profile func(name string) (*normbank.Culture, error)
}

// Stage runs episodes. It is safe for concurrent use.
type Stage struct {
	opt        Options
	assistants map[string]llm.Caller

	mu           sync.Mutex
	cultures     map[string]*cultureEntry
	replySchemas map[string]replySchemas // by the constraints' ids and reveal modes
}

type cultureEntry struct {
	once sync.Once
	c    *normbank.Culture
	err  error
}

// New checks the options and makes the stage.
func New(opt Options) (*Stage, error) {
	if opt.User == nil || (opt.Judge == nil && !opt.NoJudge) || len(opt.Assistants) == 0 {
		return nil, errors.New("sim: the user, assistant and judge roles need a model each")
	}
	switch opt.Mode {
	case "":
		opt.Mode = episode.ModeBenchmark
	case episode.ModeBenchmark, episode.ModeGold:
	default:
		return nil, fmt.Errorf("--mode %q: want benchmark or gold", opt.Mode)
	}
	if opt.MaxTurns == 0 {
		opt.MaxTurns = DefaultMaxTurns
	}
	if opt.MaxTurns < 1 {
		return nil, fmt.Errorf("--max-turns %d: want at least 1", opt.MaxTurns)
	}
	if opt.TurnRetries < 0 {
		return nil, fmt.Errorf("--turn-retries %d: cannot be negative", opt.TurnRetries)
	}
	if opt.Pack == nil {
		opt.Pack = prompt.Builtin()
	}
	if opt.Profile == nil {
		opt.Profile = normbank.Profile
	}
	s := &Stage{opt: opt, assistants: map[string]llm.Caller{}, cultures: map[string]*cultureEntry{}, replySchemas: map[string]replySchemas{}}
	for _, a := range opt.Assistants {
		if _, dup := s.assistants[a.Alias]; dup {
			return nil, fmt.Errorf("--assistants: %s is listed twice", a.Alias)
		}
		s.assistants[a.Alias] = a.Caller
	}
	return s, nil
}

// Name implements pipeline.Stage.
func (s *Stage) Name() string { return "ngsim" }

// EpisodeID is the id of the episode of spec specID against assistant
// alias in mode.
func EpisodeID(specID, alias, mode string) string {
	return record.NewID(specID, "sim", alias, mode)
}

// profile is a culture's profile, looked up once; nil (no error) for a
// culture without one: the spec's own lang then decides.
func (s *Stage) profile(name string) *normbank.Culture {
	s.mu.Lock()
	e := s.cultures[name]
	if e == nil {
		e = &cultureEntry{}
		s.cultures[name] = e
	}
	s.mu.Unlock()
	e.once.Do(func() { e.c, e.err = s.opt.Profile(name) })
	if e.err != nil {
		return nil
	}
	return e.c
}

// episodeRun is one episode in progress.
type episodeRun struct {
	out  *record.Record
	ep   *record.Episode
	data promptData
	det  *lang.Detector
	want string // the user's language
	// schemas are the reply schemas, with the episode's constraint ids
	// (episodeSchemas).
	schemas replySchemas
}

// Process implements pipeline.Stage: one work item (a spec and an
// assistant, from Expand) in, the episode record out. An episode that
// cannot finish fails with its partial transcript (pipeline.RecordError).
func (s *Stage) Process(ctx context.Context, in *record.Record) ([]*record.Record, error) {
	if in.Sim == nil || in.Episode == nil {
		return nil, errors.New("not an episode work item (give ngsim episode specs: records with an episode field)")
	}
	asst, ok := s.assistants[in.Sim.Assistant]
	if !ok {
		return nil, fmt.Errorf("no assistant %q in this run", in.Sim.Assistant)
	}
	r, err := s.start(in)
	if err != nil {
		return nil, err
	}
	if err := s.loop(ctx, r, asst); err != nil {
		return nil, &pipeline.RecordError{Record: r.out, Err: err}
	}
	if !s.opt.NoJudge {
		if err := s.judge(ctx, r); err != nil {
			return nil, &pipeline.RecordError{Record: r.out, Err: err}
		}
	}
	return []*record.Record{r.out}, nil
}

// start makes the episode record and its first turn, the spec's opening.
func (s *Stage) start(in *record.Record) (*episodeRun, error) {
	out := *in
	out.Sim = &record.Sim{Assistant: in.Sim.Assistant, Mode: s.opt.Mode}
	out.Turns, out.Gen = nil, slices.Clone(in.Gen)
	c := s.profile(in.Culture)
	want := in.Lang
	if want == "" && c != nil {
		want = c.Lang
	}
	if want == "" {
		return nil, fmt.Errorf("the spec has no lang, and culture %q has no profile to take it from", in.Culture)
	}
	want = lang.Normalize(want)
	out.Lang = want
	det, err := lang.For(want)
	if err != nil {
		return nil, fmt.Errorf("lang %q: %w", in.Lang, err)
	}
	r := &episodeRun{out: &out, ep: in.Episode, det: det, want: want}
	if r.schemas, err = s.schemas(in.Episode.Constraints); err != nil {
		return nil, err
	}
	r.data = newPromptData(&out, c, s.opt.MaxTurns)
	r.add(SpeakerUser, in.Episode.Opening)
	return r, nil
}

// add appends a turn, with its detected language.
func (r *episodeRun) add(speaker, text string) {
	t := record.Turn{Index: len(r.out.Turns), Speaker: speaker, Text: text}
	if d := r.det.Detect(text); d.Confidence >= lang.MinConfidence {
		t.Lang = d.Lang
	}
	r.out.Turns = append(r.out.Turns, t)
}

// loop runs the exchanges: the assistant answers, then the simulator
// writes the next user message, until the goal is met or MaxTurns.
func (s *Stage) loop(ctx context.Context, r *episodeRun, asst llm.Caller) error {
	system, err := s.assistantSystem(r)
	if err != nil {
		return err
	}
	var revealed []string
	for turn := 1; ; turn++ {
		msgs := []llm.Message{llm.System(system)}
		for _, t := range r.out.Turns {
			if t.Speaker == SpeakerUser {
				msgs = append(msgs, llm.User(t.Text))
			} else {
				msgs = append(msgs, llm.Assistant(t.Text))
			}
		}
		resp, err := s.call(ctx, asst, llm.Request{ID: r.out.ID, Call: "assistant." + strconv.Itoa(turn),
			Messages: msgs, PromptPack: s.opt.Pack.Version()})
		if err != nil {
			return fmt.Errorf("turn %d, assistant: %w", turn, err)
		}
		r.out.Gen = append(r.out.Gen, resp.Gen)
		r.add(SpeakerAssistant, strings.TrimSpace(resp.Text))
		if turn >= s.opt.MaxTurns {
			r.out.Sim.End = episode.EndMaxTurns
			break
		}
		reply, gen, err := s.user(ctx, r, turn+1)
		if err != nil {
			return fmt.Errorf("turn %d, user: %w", turn+1, err)
		}
		r.out.Gen = append(r.out.Gen, gen)
		for _, id := range reply.Revealed {
			if !slices.Contains(revealed, id) {
				revealed = append(revealed, id)
			}
		}
		r.out.Sim.Revealed = revealed
		r.add(SpeakerUser, reply.Message)
		if reply.GoalMet {
			r.out.Sim.End = episode.EndGoalMet
			break
		}
	}
	// In the spec's order, whatever order the simulator named them in.
	slices.SortFunc(revealed, func(a, b string) int { return r.index(a) - r.index(b) })
	r.out.Sim.Revealed = revealed
	return nil
}

// index is the position of constraint id in the spec.
func (r *episodeRun) index(id string) int {
	return slices.IndexFunc(r.ep.Constraints, func(c record.Constraint) bool { return c.ID == id })
}

// assistantSystem is the assistant's system prompt: --assistant-system or
// the pack's, and in gold mode the constraints after it.
func (s *Stage) assistantSystem(r *episodeRun) (string, error) {
	system := s.opt.AssistantSystem
	if system == "" {
		p, err := s.opt.Pack.Render("sim", "assistant", r.out.Culture, r.data)
		if err != nil {
			return "", err
		}
		system = p.System
	}
	if s.opt.Mode == episode.ModeGold {
		p, err := s.opt.Pack.Render("sim", "gold", r.out.Culture, r.data)
		if err != nil {
			return "", err
		}
		system = strings.TrimSpace(system) + "\n\n" + p.System
	}
	return strings.TrimSpace(system), nil
}

// userReply is the simulator's structured reply (schema sim_user).
type userReply struct {
	Message  string   `json:"message"`
	GoalMet  bool     `json:"goal_met"`
	Revealed []string `json:"revealed"`
}

// user asks the simulator for the user's next message; a message in the
// wrong language, or that copies a hidden constraint, is asked again.
func (s *Stage) user(ctx context.Context, r *episodeRun, turn int) (userReply, record.Gen, error) {
	data := r.data
	data.Turns, data.Turn = r.out.Turns, turn
	p, err := s.opt.Pack.Render("sim", "user", r.out.Culture, data)
	if err != nil {
		return userReply{}, record.Gen{}, err
	}
	check := func(resp *llm.Response) (any, error) {
		v, err := ParseUserReply(resp.JSON)
		if err != nil {
			return nil, err
		}
		return v, r.checkUser(&v)
	}
	resp, err := s.call(ctx, s.opt.User, llm.Request{ID: r.out.ID, Call: "user." + strconv.Itoa(turn), ReplySchema: r.schemas.user,
		Messages: []llm.Message{llm.System(p.System), llm.User(p.User)}, PromptPack: s.opt.Pack.Version(), Check: check})
	if err != nil {
		return userReply{}, record.Gen{}, err
	}
	v, _ := resp.Checked.(userReply)
	return v, resp.Gen, nil
}

// checkUser judges a simulator reply: in the user's language (a message
// confidently in another one fails; one too short to tell passes), no
// hidden constraint copied, revealed naming only the spec's constraints
// and none of those never to be revealed.
func (r *episodeRun) checkUser(v *userReply) error {
	if d := r.det.Detect(v.Message); d.Lang != r.want && d.Confidence >= lang.MinConfidence {
		got := d.Lang
		if got == "" {
			got = "no language of the candidates"
		}
		return fmt.Errorf("the message is in %s, it must be in %s (%s)", got, r.data.Language, r.want)
	}
	for _, c := range r.ep.Constraints {
		if episode.Leaks(v.Message, c.Text) {
			return fmt.Errorf("the message copies the wording of hidden constraint %s; reveal it only as its reveal mode (%s) allows, in your own words", c.ID, c.Reveal)
		}
	}
	for _, id := range v.Revealed {
		i := r.index(id)
		switch {
		case i < 0:
			return fmt.Errorf("revealed names %q, which is not a constraint id (ids: %s)", id, r.ids())
		case r.ep.Constraints[i].Reveal == episode.RevealNever:
			return fmt.Errorf("revealed names %s, a constraint never to be revealed: keep it hidden", id)
		}
	}
	return nil
}

func (r *episodeRun) ids() string {
	var ids []string
	for _, c := range r.ep.Constraints {
		ids = append(ids, c.ID)
	}
	return strings.Join(ids, ", ")
}

// call makes one call, and again up to TurnRetries times when it failed
// for good: the request, hence the conversation so far, is the same.
func (s *Stage) call(ctx context.Context, c llm.Caller, req llm.Request) (*llm.Response, error) {
	var err error
	for attempt := 0; attempt <= s.opt.TurnRetries; attempt++ {
		var resp *llm.Response
		if resp, err = c.Call(ctx, req); err == nil {
			return resp, nil
		}
		if ctx.Err() != nil || errors.Is(err, llm.ErrDeferred) {
			break
		}
	}
	return nil, err
}

// promptData is what the sim prompt templates (pkg/prompt/packs/sim) and
// seed/episode are rendered with.
type promptData struct {
	// Culture is the culture's display name; Language and Lang the
	// user's language ("Thai", "th").
	Culture, Language, Lang string
	Subgroup, Domain, Goal  string
	// Persona is who the user is, one attribute a line.
	Persona     []string
	Constraints []record.Constraint
	// Turns are the conversation so far; Turn is the number of the
	// exchange to come, MaxTurns the bound.
	Turns          []record.Turn
	Turn, MaxTurns int
}

func newPromptData(rec *record.Record, c *normbank.Culture, maxTurns int) promptData {
	culture := rec.Culture
	if c != nil {
		culture = c.Display()
	}
	ep := rec.Episode
	return promptData{
		Culture: culture, Language: lang.Name(rec.Lang), Lang: rec.Lang,
		Subgroup: ep.Subgroup, Domain: strings.ReplaceAll(ep.Domain, "_", " "), Goal: ep.Goal,
		Persona: persona.Lines(rec.Persona), Constraints: ep.Constraints, MaxTurns: maxTurns,
	}
}
