// Package stats computes ngstats' corpus report in one streaming pass:
// counts, turn and length distributions, language consistency per culture,
// defects listed by id, and label distributions. pkg/audit's Audit (a
// pipeline.Stage) does the per-record work that can run on every core —
// language detection above all — and Collector (a pipeline.Sink) folds the audited records into
// a Report in input order, in memory bounded by the corpus' distinct keys,
// not by its size (see Collector).
//
// The files by concern: the Report and its parts (report.go), the
// Collector that folds records into it (collect.go), and the figures it
// keeps: labels and their agreement (labels.go, oneclass.go), reviewers'
// labels (review.go), near-duplicates (neardup.go, set.go), distinct-n
// (distinct.go), length distributions (hist.go, tokens.go), the LLM calls
// and labelling panels (models.go), the --by groups (persona.go), the
// --fail-on thresholds (failon.go), and the dialogues the HTML report
// shows in full (browse.go). The evaluation figures are packages of their
// own, fed by the Collector as it folds each record: pactstats (PACT),
// simstats (simulation), and evalmath, their statistics. The report's
// text, JSON, Markdown and HTML forms, and a dataset card's summary, are
// filters/stats/render's: it reads a Report, and nothing here renders.
package stats

import (
	"github.com/ngkit/ngkit/filters/stats/pactstats"
	"github.com/ngkit/ngkit/filters/stats/simstats"
)

// Version is the version of the report's JSON layout. It changes when a key
// is renamed or removed, not when one is added.
const Version = 1

// Report is the whole result. Its JSON keys are stable: scripts may rely on
// them. Slices are sorted (by key, or by count where a list is a ranking) so
// that the same input always gives the same report.
type Report struct {
	Version int `json:"version"`
	// Records read; Dialogues of them have at least one turn; Turns in all.
	Records   int64 `json:"records"`
	Dialogues int64 `json:"dialogues"`
	Turns     int64 `json:"turns"`
	// DemoRecords were made by the built-in demo model (record.IsDemo).
	DemoRecords int64 `json:"demo_records,omitempty"`

	Counts Counts `json:"counts"`

	TurnsPerDialogue    Summary     `json:"turns_per_dialogue"`
	SpeakersPerDialogue Summary     `json:"speakers_per_dialogue"`
	SameSpeaker         SameSpeaker `json:"same_speaker"`
	// Lengths per detected turn language, most turns first.
	Lengths []LangLengths `json:"lengths"`
	// Language consistency per culture, by culture name.
	Language []LangConsistency `json:"language"`
	// Defects by name; only classes that occur. RecordsWithDefects have
	// at least one.
	Defects            []Defect `json:"defects"`
	RecordsWithDefects int64    `json:"records_with_defects"`
	// NearDuplicates are the clusters behind the near_duplicate_* defects.
	NearDuplicates *NearDuplicates `json:"near_duplicates"`
	// Labels, when any record carries labels or quality scores.
	Labels *Labels `json:"labels,omitempty"`
	// Panel, when records were labelled by a panel of models.
	Panel *Panel `json:"panel,omitempty"`
	// Calls total the LLM calls of the records' gen per stage, role and
	// endpoint.
	Calls []GenCost `json:"calls,omitempty"`
	// Review, when records carry reviewers' labels or verdicts.
	Review *Review `json:"review,omitempty"`
	// Pact, when records carry PACT results (ngpact).
	Pact *pactstats.Report `json:"pact,omitempty"`
	// Sim, when records are simulated episodes (ngsim).
	Sim *simstats.Report `json:"sim,omitempty"`
	// Browser holds whole dialogues for the HTML report (Collector.Browse).
	Browser *Browser `json:"-"`
	// ByPersona is the report of each persona attribute value (--by).
	ByPersona []PersonaGroup `json:"by_persona,omitempty"`
	// FailOn holds the --fail-on thresholds and whether each was exceeded.
	FailOn []Threshold `json:"fail_on,omitempty"`
}

// Count is the size of one group of records.
type Count struct {
	Key       string `json:"key"`
	Records   int64  `json:"records"`
	Dialogues int64  `json:"dialogues"`
	Turns     int64  `json:"turns"`
}

// Counts group the records by culture, dialogue type, category, and
// culture x type ("american/adherence"). An absent field counts as "".
type Counts struct {
	ByCulture     []Count `json:"by_culture"`
	ByType        []Count `json:"by_type"`
	ByCategory    []Count `json:"by_category"`
	ByCultureType []Count `json:"by_culture_type"`
}

// Summary describes a distribution of non-negative integers. Median and
// P95 are exact for values below 4096 and within 1/64 of the value above
// (see hist); Mean, Min and Max are always exact.
type Summary struct {
	N      int64   `json:"n"`
	Mean   float64 `json:"mean"`
	Median float64 `json:"median"`
	P95    float64 `json:"p95"`
	Min    int64   `json:"min"`
	Max    int64   `json:"max"`
	// Hist is a histogram for charts: at most ~30 bins of equal width
	// covering Min..Max, each [Lo, Hi] inclusive.
	Hist []Bin `json:"hist"`
}

// Bin is one histogram bin: Count values in [Lo, Hi].
type Bin struct {
	Lo    int64 `json:"lo"`
	Hi    int64 `json:"hi"`
	Count int64 `json:"count"`
}

// SameSpeaker counts consecutive turns by the same speaker.
type SameSpeaker struct {
	// Pairs of adjacent turns with the same speaker, over all dialogues.
	Pairs int64 `json:"pairs"`
	// Dialogues with at least one such pair.
	Dialogues int64 `json:"dialogues"`
}

// LangLengths are the per-turn lengths of the turns detected in one
// language ("und" when undetermined). Chars counts Unicode code points that
// are not white space; Tokens counts white-space separated tokens, except
// that every Han, kana and CJK symbol character is a token of its own
// (Chinese and Japanese are written without spaces). Distinct-n is the
// number of distinct n-grams of those tokens (lower-cased, punctuation
// removed) over the total: exact while the distinct set stays under
// DistinctExactLimit, then a HyperLogLog estimate (Approx = true).
type LangLengths struct {
	Lang      string  `json:"lang"`
	Turns     int64   `json:"turns"`
	Chars     Summary `json:"chars"`
	Tokens    Summary `json:"tokens"`
	Distinct1 float64 `json:"distinct_1"`
	Distinct2 float64 `json:"distinct_2"`
	Approx    bool    `json:"approx,omitempty"`
}

// LangConsistency is the language check of one culture's dialogues.
type LangConsistency struct {
	Culture  string `json:"culture"`
	Expected string `json:"expected"` // BCP-47 primary tag, "" when unknown
	Records  int64  `json:"records"`  // dialogues checked
	Turns    int64  `json:"turns"`
	// Confident turns are those the detector decided with confidence;
	// the others ("OK", "嗯", names only) count neither way.
	Confident int64 `json:"confident"`
	Matching  int64 `json:"matching"`
	// Share = Matching / Confident.
	Share float64 `json:"share"`
	// RecordsBelow are the dialogues whose share is under the --min-lang-share
	// threshold (reported as the wrong_language defect).
	RecordsBelow int64      `json:"records_below"`
	Mismatches   []Mismatch `json:"mismatches"`
}

// Mismatch is one kind of language mismatch: confident turns detected in
// Detected instead of the expected language, most frequent first.
type Mismatch struct {
	Detected string    `json:"detected"`
	Turns    int64     `json:"turns"`
	Examples []Example `json:"examples"`
}

// Example points at one turn.
type Example struct {
	ID   string `json:"id"`
	Turn int    `json:"turn"` // index into turns
	Text string `json:"text"` // shortened to ~120 characters
}

// Defect is one defect class: how many records have it, their share of
// all records, and the ids of the first of them (up to --ids; More says
// how many ids were left out).
type Defect struct {
	Name  string   `json:"name"`
	Kind  string   `json:"kind"` // "format", "content", "language", "duplicate", "length", "label"
	Help  string   `json:"help"` // one line: what it means
	Count int64    `json:"count"`
	Rate  float64  `json:"rate"`
	IDs   []string `json:"ids"`
	More  int64    `json:"more,omitempty"`
}

// Labels summarise turn labels and dialogue quality scores.
type Labels struct {
	// Dist holds, per task (norm, intent, emotion, stage, safety) and per
	// culture/type group ("" key = all records), label -> turns.
	Dist []LabelDist `json:"dist"`
	// Quality holds the mean dialogue-level judge scores per group.
	Quality []QualityMeans `json:"quality,omitempty"`
	// IntentByStage is the intent distribution of the turns of each V2R
	// stage (Group = the stage: the turn's stage label, else the stage the
	// generator gave it).
	IntentByStage []LabelDist `json:"intent_by_stage,omitempty"`
	// Agreement describes, per task, the turns labelled several times
	// (nglabel --samples, or a dataset's annotators: the *_dist labels).
	Agreement []TaskAgreement `json:"agreement,omitempty"`
	// Pairwise are the win rates of the records' pairwise judgements
	// against a baseline (nglabel --pairwise), per criterion and group.
	Pairwise []PairwiseRate `json:"pairwise,omitempty"`
	// OneClass counts, per model and task (norm, intent), the dialogues
	// whose every turn it gave one label (OneClassWarnings).
	OneClass []OneClass `json:"one_class,omitempty"`
}

// TaskAgreement is the agreement between the labellings of one task.
type TaskAgreement struct {
	Task string `json:"task"`
	// Turns with a distribution from at least two labellings.
	Turns int64 `json:"turns"`
	// Samples is the mean number of labellings per turn (from
	// labels_meta.samples, else inferred from the shares; a unanimous
	// turn takes the number last inferred, at first 3, ProsocialDialog's).
	Samples float64 `json:"samples"`
	// Agreement is the mean share of the majority label; Entropy the mean
	// entropy of the distributions, in bits (0 = unanimous).
	Agreement float64 `json:"agreement"`
	Entropy   float64 `json:"entropy"`
	// Kappa is Fleiss' kappa over all these turns; null when undefined
	// (every vote for one label).
	Kappa *float64 `json:"kappa"`
}

// PairwiseRate counts the outcomes of one pairwise criterion
// (naturalness, norm) in one group ("all" or a culture), from the
// records' side, with the win rate (wins / judgements) and its 95%
// Wilson confidence interval.
type PairwiseRate struct {
	Criterion string  `json:"criterion"`
	Group     string  `json:"group"`
	N         int64   `json:"n"`
	Win       int64   `json:"win"`
	Tie       int64   `json:"tie"`
	Loss      int64   `json:"loss"`
	WinRate   float64 `json:"win_rate"`
	Low       float64 `json:"low"`
	High      float64 `json:"high"`
}

// LabelDist is the distribution of one label task in one group.
type LabelDist struct {
	Task   string           `json:"task"`
	Group  string           `json:"group"` // "all" or "culture/type"
	Turns  int64            `json:"turns"` // labelled turns
	Counts map[string]int64 `json:"counts"`
}

// QualityMeans are mean 1-5 scores of one group (0 when none was scored).
type QualityMeans struct {
	Group       string  `json:"group"`
	N           int64   `json:"n"`
	Consistency float64 `json:"consistency"`
	Naturalness float64 `json:"naturalness"`
	Relevance   float64 `json:"relevance"`
	Coherence   float64 `json:"coherence"`
	Emotion     float64 `json:"emotion"`
	Norm        float64 `json:"norm"`
	// Fit is the seed fit (nglabel's quality judge, ngv2r --check-fit);
	// absent when no dialogue of the group has one.
	Fit float64 `json:"fit,omitempty"`
}

// Threshold is one --fail-on rule: the run fails when the defect's rate is
// above Max.
type Threshold struct {
	Defect   string  `json:"defect"`
	Max      float64 `json:"max"`
	Rate     float64 `json:"rate"`
	Exceeded bool    `json:"exceeded"`
}
