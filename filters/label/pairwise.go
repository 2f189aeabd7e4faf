package label

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/ngkit/ngkit/pkg/recio"
	"github.com/ngkit/ngkit/pkg/record"
)

// PairwiseKey is the extra field that holds a record's pairwise judgement
// against its baseline dialogue (--pairwise FILE); ngstats reads it.
const PairwiseKey = "pairwise"

// Pairwise is the judgement of one pair: the record's dialogue against the
// baseline's, per criterion "win", "tie" or "loss" from the record's side.
type Pairwise struct {
	// Against is the id of the baseline record, By how it was matched
	// ("id" or "norm").
	Against string `json:"against"`
	By      string `json:"by"`
	// First says which dialogue was shown first, as A: "record" or
	// "baseline" (drawn per pair from the two ids, to cancel position bias).
	First        string            `json:"first"`
	Naturalness  string            `json:"naturalness"`
	Norm         string            `json:"norm"`
	Explanations map[string]string `json:"explanations,omitempty"`
}

// Outcomes of a pairwise criterion, from the record's side.
const (
	Win  = "win"
	Tie  = "tie"
	Loss = "loss"
)

// Match modes of --pairwise-match.
const (
	MatchAuto = "auto" // by id, else by norm and dialogue type
	MatchID   = "id"
	MatchNorm = "norm"
)

// Baseline holds the dialogues of --pairwise FILE, indexed for matching.
type Baseline struct {
	match  string
	byID   map[string]*record.Record
	byNorm map[string][]*record.Record
	n      int
}

// LoadBaseline reads the baseline dialogues (any format ngkit reads);
// records without turns are skipped.
func LoadBaseline(path, match string) (*Baseline, error) {
	switch match {
	case "", MatchAuto:
		match = MatchAuto
	case MatchID, MatchNorm:
	default:
		return nil, fmt.Errorf("--pairwise-match %q: want auto, id or norm", match)
	}
	r, err := recio.Open(path, recio.OpenOptions{})
	if err != nil {
		return nil, fmt.Errorf("--pairwise: %w", err)
	}
	defer r.Close()
	b := NewBaseline(match)
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("--pairwise: %w", err)
		}
		b.Add(rec)
	}
	if b.n == 0 {
		return nil, fmt.Errorf("--pairwise %s: no dialogues (records with turns)", path)
	}
	return b, nil
}

// NewBaseline returns an empty baseline (tests and programs that build it
// from memory).
func NewBaseline(match string) *Baseline {
	if match == "" {
		match = MatchAuto
	}
	return &Baseline{match: match, byID: map[string]*record.Record{}, byNorm: map[string][]*record.Record{}}
}

// Add indexes one baseline record.
func (b *Baseline) Add(rec *record.Record) {
	if len(rec.Turns) == 0 {
		return
	}
	if rec.ID == "" {
		rec.ID = record.ContentID(rec)
	}
	b.n++
	b.byID[rec.ID] = rec
	if k := normKey(rec); k != "" {
		b.byNorm[k] = append(b.byNorm[k], rec)
	}
}

// Len is the number of baseline dialogues.
func (b *Baseline) Len() int { return b.n }

// normKey matches dialogues of the same dialogue type and norm: the norm
// id when there is one, else the norm's text with case, spacing and
// punctuation ignored.
func normKey(rec *record.Record) string {
	norm := rec.NormID
	if norm == "" {
		norm = strings.Join(strings.FieldsFunc(strings.ToLower(rec.Norm), func(r rune) bool {
			return unicode.IsSpace(r) || unicode.IsPunct(r)
		}), " ")
	}
	if norm == "" {
		return ""
	}
	return rec.DialogueType + "\x1f" + norm
}

// Find returns the baseline dialogue to compare rec with and how it was
// matched; nil when none. Of several baseline dialogues of the same norm
// and type (and culture, where both say), one is picked by a hash of
// rec's id: the same on every run, spread evenly over the candidates.
func (b *Baseline) Find(rec *record.Record) (*record.Record, string) {
	if b.match != MatchNorm {
		if o := b.byID[rec.ID]; o != nil {
			return o, MatchID
		}
		if b.match == MatchID {
			return nil, ""
		}
	}
	k := normKey(rec)
	if k == "" {
		return nil, ""
	}
	var cands []*record.Record
	for _, o := range b.byNorm[k] {
		if o.Culture == "" || rec.Culture == "" || o.Culture == rec.Culture {
			cands = append(cands, o)
		}
	}
	if len(cands) == 0 {
		return nil, ""
	}
	// Norm ids of records without an id field are content hashes; the
	// record's own id always exists here (the runner gives one).
	return cands[record.Bucket(rec.ID, len(cands))], MatchNorm
}

// recordFirst decides, per pair, whether the record's dialogue is shown
// as A: a hash of both ids, so each pair's order is fixed across runs and
// about half the pairs show the record first.
func recordFirst(id, against string) bool {
	return record.Unit(id+"\x1f"+against) < 0.5
}

// outcome turns the judge's "A"/"B"/"tie" into the record's win, tie or loss.
func outcome(winner string, first bool) string {
	switch {
	case winner == "tie":
		return Tie
	case (winner == "A") == first:
		return Win
	}
	return Loss
}
