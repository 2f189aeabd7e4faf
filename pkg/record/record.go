// Package record holds the one record type that flows through every ngkit
// program (DEVELOPING.md, "The record"), its turns and labels, stable ids
// and validation.
//
// Field names are snake_case and identical in JSONL, Parquet and Arrow: the
// json and parquet tags below are the single source of the column names, and
// schemas/record.schema.json is checked against them by a test.
package record

import "encoding/json"

// Dialogue types.
const (
	TypeAdherence = "adherence"
	TypeViolation = "violation"
	TypeV2R       = "v2r"
)

// The turn bounds of a dialogue by default: NormGenesis dialogues have 5
// to 15 turns. ngv2r asks for and checks them (--min-turns, --max-turns),
// ngstats reports dialogues outside them (its flags of the same names),
// and the fake models answer within them.
const (
	DefaultMinTurns = 5
	DefaultMaxTurns = 15
)

// Record is one unit of work: a norm, a seed, a dialogue or a labelled
// dialogue, depending on how far down the pipeline it is. All fields but ID
// are optional. Fields a stage does not own pass through unchanged; input
// fields that no stage owns are kept in Extra.
type Record struct {
	ID           string      `json:"id" parquet:"id"`
	ParentID     string      `json:"parent_id,omitempty" parquet:"parent_id,optional"`
	Culture      string      `json:"culture,omitempty" parquet:"culture,optional"`
	Lang         string      `json:"lang,omitempty" parquet:"lang,optional"`
	Category     string      `json:"category,omitempty" parquet:"category,optional"`
	NormID       string      `json:"norm_id,omitempty" parquet:"norm_id,optional"`
	Norm         string      `json:"norm,omitempty" parquet:"norm,optional"`
	DialogueType string      `json:"dialogue_type,omitempty" parquet:"dialogue_type,optional"`
	Scenario     string      `json:"scenario,omitempty" parquet:"scenario,optional"`
	Situation    string      `json:"situation,omitempty" parquet:"situation,optional"`
	Refinement   *Refinement `json:"refinement,omitempty" parquet:"refinement,optional"`
	Turns        []Turn      `json:"turns,omitempty" parquet:"turns,optional,list"`
	Narration    []string    `json:"narration,omitempty" parquet:"narration,optional,list"`
	// NarrationAt[i] is where Narration[i] stands: the number of turns
	// before it (0 before the first turn, len(Turns) after the last).
	// Absent, the narration goes after the last turn (NarrationPos).
	NarrationAt []int       `json:"narration_at,omitempty" parquet:"narration_at,optional,list"`
	LabelsMeta  *LabelsMeta `json:"labels_meta,omitempty" parquet:"labels_meta,optional"`
	Quality     *Quality    `json:"quality,omitempty" parquet:"quality,optional"`
	Checks      *Checks     `json:"checks,omitempty" parquet:"checks,optional"`
	Review      *Review     `json:"review,omitempty" parquet:"review,optional"`
	Gen         []Gen       `json:"gen,omitempty" parquet:"gen,optional,list"`

	// Persona are the attributes of who is talking or acting (age band,
	// gender, relationship, hierarchy, setting; pkg/persona), by name.
	Persona map[string]string `json:"persona,omitempty" parquet:"persona,optional"`
	// VariantOf is the id of the record whose counterfactual variant this
	// is (--vary): variants of one record share it and differ only in the
	// varied persona attributes.
	VariantOf string `json:"variant_of,omitempty" parquet:"variant_of,optional"`

	// PactItem and Pact are a PACT trade-off item and its results per
	// model under test and question framing (ngpact; eval.go).
	PactItem *PactItem    `json:"pact_item,omitempty" parquet:"pact_item,optional"`
	Pact     []PactResult `json:"pact,omitempty" parquet:"pact,optional,list"`
	// Episode and Sim are a CultureConverse episode spec and the result of
	// simulating it against one assistant (ngsim; eval.go).
	Episode *Episode `json:"episode,omitempty" parquet:"episode,optional"`
	Sim     *Sim     `json:"sim,omitempty" parquet:"sim,optional"`

	// Extra holds input fields that no stage owns, by name, as raw JSON.
	// In JSONL they are written back as top-level fields; in Parquet and
	// Arrow they travel as one JSON-object string column named "extra".
	Extra map[string]json.RawMessage `json:"-" parquet:"-"`

	// ExtraJSON is Extra encoded as a JSON object, for columnar formats only.
	// recio fills it before writing and decodes it after reading.
	ExtraJSON string `json:"-" parquet:"extra,optional"`
}

// Turn is one speaker turn of a dialogue.
type Turn struct {
	Index   int    `json:"index" parquet:"index"`
	Speaker string `json:"speaker" parquet:"speaker"`
	Action  string `json:"action,omitempty" parquet:"action,optional"`
	Text    string `json:"text" parquet:"text"`
	Lang    string `json:"lang,omitempty" parquet:"lang,optional"`
	// Stage is the V2R stage of the turn: context, violation, recognition,
	// repair or resolution.
	Stage  string  `json:"stage,omitempty" parquet:"stage,optional"`
	Labels *Labels `json:"labels,omitempty" parquet:"labels,optional"`
	// LabelsHuman are the labels native-speaker reviewers gave the turn in
	// a review tool (ngcat --from labelstudio / argilla), to compare with
	// the model's Labels.
	LabelsHuman *Labels `json:"labels_human,omitempty" parquet:"labels_human,optional"`
}

// Labels are the turn-level labels written by nglabel. When several samples
// were drawn, the *Dist fields hold the share of each label.
type Labels struct {
	Norm        string             `json:"norm,omitempty" parquet:"norm,optional"`
	Intent      string             `json:"intent,omitempty" parquet:"intent,optional"`
	Emotion     string             `json:"emotion,omitempty" parquet:"emotion,optional"`
	Stage       string             `json:"stage,omitempty" parquet:"stage,optional"`
	Safety      string             `json:"safety,omitempty" parquet:"safety,optional"`
	Rots        []string           `json:"rots,omitempty" parquet:"rots,optional,list"`
	Explanation string             `json:"explanation,omitempty" parquet:"explanation,optional"`
	NormDist    map[string]float64 `json:"norm_dist,omitempty" parquet:"norm_dist,optional"`
	IntentDist  map[string]float64 `json:"intent_dist,omitempty" parquet:"intent_dist,optional"`
	EmotionDist map[string]float64 `json:"emotion_dist,omitempty" parquet:"emotion_dist,optional"`
	StageDist   map[string]float64 `json:"stage_dist,omitempty" parquet:"stage_dist,optional"`
	SafetyDist  map[string]float64 `json:"safety_dist,omitempty" parquet:"safety_dist,optional"`
	// Agreement is the share of the majority label over samples (1 = unanimous).
	Agreement float64 `json:"agreement,omitempty" parquet:"agreement,optional"`
	// ByModel holds, with a panel of labelling models, each labeller's own
	// label of the turn (its majority over its samples), in panel order.
	ByModel []ModelLabels `json:"by_model,omitempty" parquet:"by_model,optional,list"`
}

// ModelLabels are one labeller's labels of a turn (nglabel --labellers).
type ModelLabels struct {
	// Labeller is the endpoint alias of the labelling model.
	Labeller string `json:"labeller" parquet:"labeller"`
	Norm     string `json:"norm,omitempty" parquet:"norm,optional"`
	Intent   string `json:"intent,omitempty" parquet:"intent,optional"`
	Emotion  string `json:"emotion,omitempty" parquet:"emotion,optional"`
	Stage    string `json:"stage,omitempty" parquet:"stage,optional"`
	Safety   string `json:"safety,omitempty" parquet:"safety,optional"`
}

// Refinement records what ngrefine did to a seed.
type Refinement struct {
	Rounds      int      `json:"rounds" parquet:"rounds"`
	Before      *Scores  `json:"before,omitempty" parquet:"before,optional"`
	After       *Scores  `json:"after,omitempty" parquet:"after,optional"`
	ExemplarIDs []string `json:"exemplar_ids,omitempty" parquet:"exemplar_ids,optional,list"`
	Accepted    bool     `json:"accepted" parquet:"accepted"`
	Critique    string   `json:"critique,omitempty" parquet:"critique,optional"`
}

// Scores are the refinement judge's 1-5 scores (0 = not scored).
type Scores struct {
	TaskRelevance        float64 `json:"task_relevance,omitempty" parquet:"task_relevance,optional"`
	LinguisticQuality    float64 `json:"linguistic_quality,omitempty" parquet:"linguistic_quality,optional"`
	SemanticPreservation float64 `json:"semantic_preservation,omitempty" parquet:"semantic_preservation,optional"`
}

// LabelsMeta describes how the labels of a record were produced.
type LabelsMeta struct {
	Model     string   `json:"model,omitempty" parquet:"model,optional"`
	Tasks     []string `json:"tasks,omitempty" parquet:"tasks,optional,list"`
	Samples   int      `json:"samples,omitempty" parquet:"samples,optional"`
	Agreement float64  `json:"agreement,omitempty" parquet:"agreement,optional"`
	Kappa     float64  `json:"kappa,omitempty" parquet:"kappa,optional"`
	// Panel names the labelling models asked (endpoint aliases), with
	// --labellers; Failed those of them that gave no labels, and why.
	Panel  []string       `json:"panel,omitempty" parquet:"panel,optional,list"`
	Failed []PanelFailure `json:"failed_labellers,omitempty" parquet:"failed_labellers,optional,list"`
	// FleissKappa and KrippendorffAlpha (nominal) are the agreement of the
	// labellers that answered, over the record's turns, averaged over the
	// tasks where they are defined (null: none is, e.g. every label the
	// same); CohenKappa is the agreement of each pair of them.
	FleissKappa       *float64        `json:"fleiss_kappa,omitempty" parquet:"fleiss_kappa,optional"`
	KrippendorffAlpha *float64        `json:"krippendorff_alpha,omitempty" parquet:"krippendorff_alpha,optional"`
	CohenKappa        []PairAgreement `json:"cohen_kappa,omitempty" parquet:"cohen_kappa,optional,list"`
}

// PanelFailure is a labeller of the panel that gave no labels.
type PanelFailure struct {
	Labeller string `json:"labeller" parquet:"labeller"`
	Error    string `json:"error" parquet:"error"`
}

// PairAgreement is Cohen's kappa of two labellers over the record's turns,
// averaged over the tasks where it is defined (Kappa null: none is).
type PairAgreement struct {
	A     string   `json:"a" parquet:"a"`
	B     string   `json:"b" parquet:"b"`
	Kappa *float64 `json:"kappa,omitempty" parquet:"kappa,optional"`
}

// Quality holds the dialogue-level judge scores, 1-5 (0 = not scored).
// Norm: 1 fully violated, 2 partially violated, 3 violated then resolved,
// 4 partially adhered, 5 fully adhered. Fit is how well the dialogue
// realises its seed (scenario, situation, norm and dialogue type): scored
// by nglabel's quality judge and by ngv2r --check-fit, its reason in
// Explanations["fit"].
type Quality struct {
	Consistency  int               `json:"consistency,omitempty" parquet:"consistency,optional"`
	Naturalness  int               `json:"naturalness,omitempty" parquet:"naturalness,optional"`
	Relevance    int               `json:"relevance,omitempty" parquet:"relevance,optional"`
	Coherence    int               `json:"coherence,omitempty" parquet:"coherence,optional"`
	Emotion      int               `json:"emotion,omitempty" parquet:"emotion,optional"`
	Norm         int               `json:"norm,omitempty" parquet:"norm,optional"`
	Fit          int               `json:"fit,omitempty" parquet:"fit,optional"`
	Explanations map[string]string `json:"explanations,omitempty" parquet:"explanations,optional"`
}

// Checks are the results of validations any stage may run.
type Checks struct {
	// LangExpected is the language the dialogue should be in.
	LangExpected string `json:"lang_expected,omitempty" parquet:"lang_expected,optional"`
	// LangOK is nil when not checked.
	LangOK *bool `json:"lang_ok,omitempty" parquet:"lang_ok,optional"`
	// LangShare is the share of turns detected in LangExpected.
	LangShare float64 `json:"lang_share,omitempty" parquet:"lang_share,optional"`
	// Defects are short machine-readable defect names (see Defect* constants).
	Defects []string `json:"defects,omitempty" parquet:"defects,optional,list"`
	// Unplaced are input lines a parser could not place, kept verbatim.
	Unplaced []string `json:"unplaced,omitempty" parquet:"unplaced,optional,list"`
	// Removed counts the pieces of the source text an importer took out as
	// format markers, headers, separators, list numbers or leaked
	// reasoning (the defects name the kinds).
	Removed int `json:"removed,omitempty" parquet:"removed,optional"`
}

// Review is what reviewers said of a whole dialogue in a review tool.
type Review struct {
	// Tool is the review tool: labelstudio or argilla.
	Tool string `json:"tool" parquet:"tool"`
	// Verdict is the reviewers' majority, accept or reject (a tie
	// rejects); "" when no reviewer gave one.
	Verdict string `json:"verdict,omitempty" parquet:"verdict,optional"`
	// Reviewers is how many reviewers answered.
	Reviewers int `json:"reviewers,omitempty" parquet:"reviewers,optional"`
	// Comments are the reviewers' free-text comments.
	Comments []string `json:"comments,omitempty" parquet:"comments,optional,list"`
}

// Review verdicts.
const (
	VerdictAccept = "accept"
	VerdictReject = "reject"
)

// DemoModel is the model name of ngkit's built-in demo model (--model
// demo): canned release text, not a model. A record any of whose calls it
// answered is demo data (IsDemo), which ngstats and the dataset card say.
const DemoModel = "demo"

// IsDemo tells whether the built-in demo model answered any of the
// record's calls.
func IsDemo(r *Record) bool {
	for _, g := range r.Gen {
		if g.Model == DemoModel {
			return true
		}
	}
	return false
}

// Gen is the provenance of one LLM call that contributed to a record.
type Gen struct {
	Stage string `json:"stage" parquet:"stage"`
	// Role is the program's model role (writer, rewriter, judge, labeller,
	// pairwise) and Endpoint the alias of the endpoint that served it
	// ("default": the one of the flags and environment).
	Role     string `json:"role,omitempty" parquet:"role,optional"`
	Endpoint string `json:"endpoint,omitempty" parquet:"endpoint,optional"`
	Call     string `json:"call,omitempty" parquet:"call,optional"`
	Model    string `json:"model,omitempty" parquet:"model,optional"` // as requested
	// ModelAnswered is the model the server said answered, when it says.
	ModelAnswered string  `json:"model_answered,omitempty" parquet:"model_answered,optional"`
	PromptPack    string  `json:"prompt_pack,omitempty" parquet:"prompt_pack,optional"`
	TokensIn      int     `json:"tokens_in,omitempty" parquet:"tokens_in,optional"`
	TokensOut     int     `json:"tokens_out,omitempty" parquet:"tokens_out,optional"`
	CacheHit      bool    `json:"cache_hit,omitempty" parquet:"cache_hit,optional"`
	Retries       int     `json:"retries,omitempty" parquet:"retries,optional"`
	Seconds       float64 `json:"seconds,omitempty" parquet:"seconds,optional"`
	// CostUSD is the call's estimated cost at its endpoint's price (0: not
	// priced, or answered from the cache).
	CostUSD float64 `json:"cost_usd,omitempty" parquet:"cost_usd,optional"`
	// TokensCached are the prompt tokens of TokensIn the provider served
	// from its prompt cache (usage.prompt_tokens_details.cached_tokens),
	// and CachedSavedUSD what that took off the cost.
	TokensCached   int     `json:"tokens_cached,omitempty" parquet:"tokens_cached,optional"`
	CachedSavedUSD float64 `json:"cached_saved_usd,omitempty" parquet:"cached_saved_usd,optional"`
}

// Defect names written to Checks.Defects.
const (
	DefectFailedGeneration = "failed_generation" // the generator reported a failure
	DefectEmptyDialogue    = "empty_dialogue"    // no turns at all
	DefectEndMarker        = "end_marker"        // [END] / [끝] left in the text
	DefectSeparator        = "separator"         // --- or —— separators
	DefectHeader           = "header"            // "Dialogue:" style headers
	DefectLiteralNewline   = "literal_newline"   // "\n" as two characters instead of a newline
	DefectMarkdown         = "markdown"          // **emphasis** and similar
	DefectReasoning        = "leaked_reasoning"  // model reasoning in the text
	DefectMultiDialogue    = "multiple_dialogues"
	DefectUnplaced         = "unplaced_lines" // lines the parser could not place
	DefectSingleLine       = "single_line"    // whole dialogue on one line

	// Written by nglabel: the norm labels contradict the dialogue type.
	DefectLabelViolationInAdherence = "label_violation_in_adherence" // an adherence dialogue with a turn labelled violated
	DefectLabelNoViolation          = "label_no_violation"           // a violation or V2R dialogue with no turn labelled violated
	DefectLabelUnresolved           = "label_v2r_unresolved"         // a V2R violation not followed by recognition and an adhered repair
	// Written by ngv2r --check-fit --keep-unfit: the judge scored the
	// dialogue's fit to its seed under --min-fit (quality.fit).
	DefectUnfitSeed = "unfit_seed"
)

// AddDefect appends d to the record's defects once.
func (r *Record) AddDefect(d string) {
	if r.Checks == nil {
		r.Checks = &Checks{}
	}
	for _, x := range r.Checks.Defects {
		if x == d {
			return
		}
	}
	r.Checks.Defects = append(r.Checks.Defects, d)
}

// NarrationPos returns where narration line i stands: the number of turns
// before it. A record without narration_at (written before positions were
// kept, or by ngv2r's JSON mode, whose reply gives none) has its narration
// after the last turn, where dialogue text rendering puts lines of unknown
// place; a position out of range is clamped to the turns. Every view and
// export places narration through here.
func (r *Record) NarrationPos(i int) int {
	if i < len(r.NarrationAt) {
		return min(max(r.NarrationAt[i], 0), len(r.Turns))
	}
	return len(r.Turns)
}
