package record

// The evaluation records: PACT trade-off items and their results per model
// under test (ngpact), and CultureConverse episode specs and their
// simulated episodes (ngsim). They are fields of Record, so items and
// episodes stream, resume and convert like every other record.

// PactItem is a PACT trade-off item: in Record.Scenario (in Record.Culture,
// for the actor described by Record.Persona) a cultural expectation and a
// personal preference conflict. Record.NormID and Record.Norm name the norm
// the item was made from, when it was.
//
// The PACT dataset card's fields: scenario_id, the actor's and the
// receiver's country, age and gender, and metadata_source are the fields
// below of those names; its scenario is Record.Scenario, its
// cultural_expectation and personal_preference are Expectation and
// Preference, and its choice_a (the culture-following option) and
// choice_b are FollowOption and AllowOption. The actor's attributes may
// also be in Record.Persona (age, gender: ngseed's items); these fields
// win.
type PactItem struct {
	ScenarioID string `json:"scenario_id,omitempty" parquet:"scenario_id,optional"`
	Actor      string `json:"actor" parquet:"actor"`
	Receiver   string `json:"receiver,omitempty" parquet:"receiver,optional"`
	// The actor's and the receiver's country (the receiver's is the local
	// context of the scenario), age band and gender.
	ActorCountry    string `json:"actor_country,omitempty" parquet:"actor_country,optional"`
	ReceiverCountry string `json:"receiver_country,omitempty" parquet:"receiver_country,optional"`
	ActorAge        string `json:"actor_age,omitempty" parquet:"actor_age,optional"`
	ActorGender     string `json:"actor_gender,omitempty" parquet:"actor_gender,optional"`
	ReceiverAge     string `json:"receiver_age,omitempty" parquet:"receiver_age,optional"`
	ReceiverGender  string `json:"receiver_gender,omitempty" parquet:"receiver_gender,optional"`
	// MetadataSource is where the item came from (the card's
	// metadata_source: the cultural knowledge base of its norm).
	MetadataSource string `json:"metadata_source,omitempty" parquet:"metadata_source,optional"`
	// PersonaCountry and PersonaDemo are whom the model under test is
	// asked to answer as: a respondent of that country and demographic
	// group (the PACT authors' persona-prompted run, their prediction
	// files' persona_country and persona_demo, matched to the human
	// study's respondent_country and respondent_demo). Not the actor's
	// attributes (those are Record.Persona and the actor_* fields). An
	// item with either is of the persona-prompted run, which ngstats
	// keeps apart from the persona-free one.
	PersonaCountry string `json:"persona_country,omitempty" parquet:"persona_country,optional"`
	PersonaDemo    string `json:"persona_demo,omitempty" parquet:"persona_demo,optional"`
	Expectation    string `json:"expectation" parquet:"expectation"`
	Preference     string `json:"preference" parquet:"preference"`
	// FollowOption and AllowOption are the two options, worded neutrally:
	// the actor follows the cultural expectation, or the preference is
	// allowed.
	FollowOption string `json:"follow_option" parquet:"follow_option"`
	AllowOption  string `json:"allow_option" parquet:"allow_option"`
	// Human is the human answer distribution, for imported items that
	// carry one.
	Human *HumanShare `json:"human,omitempty" parquet:"human,optional"`
}

// HumanAnswer is one respondent's answers to an item: Personal and Norm
// are PactFollow, PactAllow or "" (not asked or no answer).
type HumanAnswer struct {
	Respondent string `json:"respondent" parquet:"respondent"`
	Country    string `json:"country,omitempty" parquet:"country,optional"`
	// Demo, Age and Gender are the respondent's demographic group (the
	// study's respondent_demo), age band and gender, as the file has them.
	Demo     string `json:"demo,omitempty" parquet:"demo,optional"`
	Age      string `json:"age,omitempty" parquet:"age,optional"`
	Gender   string `json:"gender,omitempty" parquet:"gender,optional"`
	Personal string `json:"personal,omitempty" parquet:"personal,optional"`
	Norm     string `json:"norm,omitempty" parquet:"norm,optional"`
}

// HumanShare is a human answer distribution over the two options.
type HumanShare struct {
	FollowCulture float64 `json:"follow_culture" parquet:"follow_culture"`
	N             int     `json:"n,omitempty" parquet:"n,optional"`
	// Personal and Norm are the follow shares per framing, when the study
	// asked both (the PACT study does); ngstats compares each framing's
	// results with its own, FollowCulture otherwise.
	Personal *float64 `json:"personal,omitempty" parquet:"personal,optional"`
	Norm     *float64 `json:"norm,omitempty" parquet:"norm,optional"`
	// Answers are the study's answers one by one: each respondent's
	// choice in each framing, with the respondent's country.
	Answers []HumanAnswer `json:"answers,omitempty" parquet:"answers,optional,list"`
}

// The PACT options and question framings. The paper's two framings are
// personal and norm, worded as its authors ask them; choice is ngkit's
// own, a normative question.
const (
	PactFollow = "follow_culture"
	PactAllow  = "allow_preference"

	PactPersonal = "personal" // "What would you personally do if you were the actor?"
	PactNorm     = "norm"     // "What would most people in this situation consider appropriate?"
	PactChoice   = "choice"   // "What should {actor} do?"
)

// PactQuestions are every question framing, the one list of them (the
// record schema's enum is checked against it).
var PactQuestions = []string{PactPersonal, PactNorm, PactChoice}

// PactDefaultQuestions are the framings ngpact asks by default: the
// paper's.
var PactDefaultQuestions = []string{PactPersonal, PactNorm}

// PactResult is one model's answer distribution for one question framing.
type PactResult struct {
	Model    string `json:"model" parquet:"model"`
	Question string `json:"question" parquet:"question"` // PactPersonal, PactNorm or PactChoice
	Method   string `json:"method" parquet:"method"`     // "logprobs" or "sample"
	// PFollow is the probability of PactFollow; nil when no sample was
	// valid.
	PFollow *float64 `json:"p_follow,omitempty" parquet:"p_follow,optional"`
	// Samples is how many samples were asked (method sample) and Valid how
	// many named an option; with logprobs both are 1 when the call gave
	// the option tokens' log-probabilities.
	Samples int `json:"samples" parquet:"samples"`
	Valid   int `json:"valid" parquet:"valid"`
	// Majority is PactFollow, PactAllow or "tie"; Entropy is in bits.
	Majority string   `json:"majority,omitempty" parquet:"majority,optional"`
	Entropy  *float64 `json:"entropy,omitempty" parquet:"entropy,optional"`
	Error    string   `json:"error,omitempty" parquet:"error,optional"`
	// Base: the model was asked as a base model, in plain text through
	// the text-completions API (ngpact, api completions), so that a base
	// model and its instruct model can be compared on the same items.
	Base bool `json:"base,omitempty" parquet:"base,optional"`
}

// Episode is a CultureConverse episode spec: a simulated user of
// Record.Culture, writing in Record.Lang, with the subgroup identity and
// Record.Persona, seeks practical help toward Goal; the assistant must infer
// the hidden Constraints.
type Episode struct {
	Subgroup    string       `json:"subgroup" parquet:"subgroup"`
	Domain      string       `json:"domain" parquet:"domain"`
	Goal        string       `json:"goal" parquet:"goal"`
	Constraints []Constraint `json:"constraints" parquet:"constraints,list"`
	Opening     string       `json:"opening" parquet:"opening"`
}

// Constraint is one hidden cultural constraint of an episode.
type Constraint struct {
	ID     string `json:"id" parquet:"id"`
	Text   string `json:"text" parquet:"text"`
	NormID string `json:"norm_id,omitempty" parquet:"norm_id,optional"`
	// Reveal says how the simulator may reveal it: "implicit" (hints
	// only), "explicit" (stated when relevant) or "never".
	Reveal string `json:"reveal,omitempty" parquet:"reveal,optional"`
}

// The constraint outcomes the judge gives.
const (
	OutcomeInferred    = "inferred_and_respected"
	OutcomeRespected   = "respected_without_asking"
	OutcomeViolated    = "violated"
	OutcomeUnaddressed = "not_addressed"
)

// Sim is the result of one simulated episode against one assistant; the
// transcript is Record.Turns (speakers "user" and "assistant").
type Sim struct {
	Assistant string `json:"assistant" parquet:"assistant"`
	Mode      string `json:"mode" parquet:"mode"` // "benchmark" or "gold"
	// End is "goal_met" or "max_turns".
	End string `json:"end" parquet:"end"`
	// Revealed lists the ids of the constraints the simulator said it had
	// revealed by the end.
	Revealed []string  `json:"revealed,omitempty" parquet:"revealed,optional,list"`
	Judge    *SimJudge `json:"judge,omitempty" parquet:"judge,optional"`
	// Human are human reviewers' scores of the same rubric (ngcat --to
	// labelstudio --review-tasks rubric, and back), to check the judge.
	Human *SimHuman `json:"human,omitempty" parquet:"human,optional"`
}

// SimHuman is the mean of the reviewers' 1-5 rubric scores of an
// episode; a score no reviewer gave is nil.
type SimHuman struct {
	Assistance *float64 `json:"assistance,omitempty" parquet:"assistance,optional"`
	Cultural   *float64 `json:"cultural,omitempty" parquet:"cultural,optional"`
	Language   *float64 `json:"language,omitempty" parquet:"language,optional"`
	Reviewers  int      `json:"reviewers" parquet:"reviewers"`
}

// SimJudge is the judge's verdict on an episode: 1-5 rubric scores with
// rationales and an outcome per hidden constraint.
type SimJudge struct {
	Assistance          int                 `json:"assistance" parquet:"assistance"`
	AssistanceRationale string              `json:"assistance_rationale,omitempty" parquet:"assistance_rationale,optional"`
	Cultural            int                 `json:"cultural" parquet:"cultural"`
	CulturalRationale   string              `json:"cultural_rationale,omitempty" parquet:"cultural_rationale,optional"`
	Language            int                 `json:"language" parquet:"language"`
	LanguageRationale   string              `json:"language_rationale,omitempty" parquet:"language_rationale,optional"`
	Constraints         []ConstraintOutcome `json:"constraints,omitempty" parquet:"constraints,optional,list"`
}

// ConstraintOutcome is the judge's outcome for one hidden constraint.
type ConstraintOutcome struct {
	ID        string `json:"id" parquet:"id"`
	Outcome   string `json:"outcome" parquet:"outcome"`
	Rationale string `json:"rationale,omitempty" parquet:"rationale,optional"`
}
