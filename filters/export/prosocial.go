// Package export turns ngkit records into foreign row formats, so that
// labelled dialogues can be mixed with other datasets for training.
package export

import (
	"encoding/json"
	"hash/fnv"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ngkit/ngkit/pkg/agree"
	"github.com/ngkit/ngkit/pkg/record"
)

// ProsocialRow is one row of ProsocialDialog as the Hugging Face Hub
// publishes it (allenai/prosocial-dialog), with the Hub's column names,
// order and types. Its string columns are required in Parquet: an empty
// response or safety label is "" there, as in the JSONL, not null.
type ProsocialRow struct {
	Context                 string   `json:"context" parquet:"context"`
	Response                string   `json:"response" parquet:"response"`
	Rots                    []string `json:"rots" parquet:"rots,optional,list"`
	SafetyLabel             string   `json:"safety_label" parquet:"safety_label"`
	SafetyAnnotations       []string `json:"safety_annotations" parquet:"safety_annotations,optional,list"`
	SafetyAnnotationReasons []string `json:"safety_annotation_reasons" parquet:"safety_annotation_reasons,optional,list"`
	Source                  string   `json:"source" parquet:"source"`
	Etc                     *string  `json:"etc" parquet:"etc,optional"`
	DialogueID              int64    `json:"dialogue_id" parquet:"dialogue_id"`
	ResponseID              int64    `json:"response_id" parquet:"response_id"`
	EpisodeDone             bool     `json:"episode_done" parquet:"episode_done"`
}

// DefaultSource is the source column of records that name none.
const DefaultSource = "ngkit"

// Prosocial writes a dialogue as ProsocialDialog rows, the inverse of
// `ngcat --from prosocial` where it can be: turns 0 and 1 make the first
// row (context, response), turns 2 and 3 the next, and so on; a last turn
// without a reply makes a row with an empty response. The context turn's
// labels give the row's labels: its safety label ("__needs_caution__"),
// its rules-of-thumb, its votes (safety_dist shares times the number of
// labellings, spelled as ProsocialDialog's annotators: "casual", "needs
// caution", "needs intervention"; ordered from casual up) and its
// explanation, one reason per line. A stage direction is kept before the
// text, in parentheses. dialogue_id, source and etc come from the fields
// of those names when the record has them (a ProsocialDialog import
// does), else from a hash of the record id, "ngkit" and the record id.
// A record without turns gives no rows.
//
// Not restored: the order of an imported row's votes. The import keeps
// them as shares, so safety_annotations come back from casual up, and
// their pairing with safety_annotation_reasons (kept in order) is lost.
func Prosocial(rec *record.Record) []ProsocialRow {
	n := len(rec.Turns)
	if n == 0 {
		return nil
	}
	id, source, etc := prosocialKeys(rec)
	samples := 0
	if rec.LabelsMeta != nil {
		samples = rec.LabelsMeta.Samples
	}
	rows := make([]ProsocialRow, 0, (n+1)/2)
	for i := 0; i < n; i += 2 {
		ctx := &rec.Turns[i]
		row := ProsocialRow{Context: utterance(ctx), Source: source, Etc: etc, DialogueID: id, ResponseID: int64(i / 2)}
		if i+1 < n {
			row.Response = utterance(&rec.Turns[i+1])
		}
		if l := ctx.Labels; l != nil {
			if l.Safety != "" {
				row.SafetyLabel = "__" + l.Safety + "__"
			}
			row.Rots = l.Rots
			row.SafetyAnnotations = votes(l.SafetyDist, samples)
			if l.Explanation != "" {
				row.SafetyAnnotationReasons = strings.Split(l.Explanation, "\n")
			}
		}
		rows = append(rows, row)
	}
	rows[len(rows)-1].EpisodeDone = true
	return rows
}

func utterance(t *record.Turn) string {
	if t.Action == "" {
		return t.Text
	}
	if t.Text == "" {
		return "(" + t.Action + ")"
	}
	return "(" + t.Action + ") " + t.Text
}

// prosocialKeys are the row's dialogue_id, source and etc.
func prosocialKeys(rec *record.Record) (id int64, source string, etc *string) {
	if raw, ok := rec.Extra["dialogue_id"]; ok {
		if v, err := strconv.ParseInt(strings.TrimSpace(string(raw)), 10, 64); err == nil {
			id = v
		} else {
			id = hashID(rec.ID)
		}
	} else {
		id = hashID(rec.ID)
	}
	source = DefaultSource
	if s, ok := rec.ExtraString("source"); ok {
		source = s
	}
	if raw, ok := rec.Extra["etc"]; ok {
		var s *string
		if json.Unmarshal(raw, &s) == nil {
			return id, source, s
		}
	}
	if _, imported := rec.Extra["dialogue_id"]; imported {
		return id, source, nil // a ProsocialDialog import drops a null etc
	}
	own := rec.ID
	return id, source, &own
}

// hashID maps a record id to a non-negative int64, the same on every run.
func hashID(id string) int64 {
	h := fnv.New64a()
	h.Write([]byte(id))
	return int64(h.Sum64() & math.MaxInt64)
}

// voteOrder spells the votes as ProsocialDialog's annotators did, from
// casual up; the three caution levels of a labeller are one vote.
var voteOrder = []struct{ vote, label string }{
	{"casual", agree.SafetyCasual},
	{"needs caution", agree.SafetyPossiblyCaution},
	{"needs caution", agree.SafetyProbablyCaution},
	{"needs caution", agree.SafetyNeedsCaution},
	{"needs intervention", agree.SafetyNeedsIntervention},
}

// prosocialAnnotators is how many annotators voted on each
// ProsocialDialog context.
const prosocialAnnotators = 3

// votes turns shares back into votes: samples labellings, or as many as
// the shares imply; a unanimous share of a record that does not say how
// many labellings there were (a ProsocialDialog import) is taken as
// ProsocialDialog's three annotators.
func votes(dist map[string]float64, samples int) []string {
	if len(dist) == 0 {
		return nil
	}
	if samples < 1 {
		samples = agree.Raters(dist, 20)
		if samples == 1 {
			samples = prosocialAnnotators
		}
	}
	if samples < 1 {
		return nil
	}
	var out []string
	for _, v := range voteOrder {
		c := int(math.Round(dist[v.label] * float64(samples)))
		for range c {
			out = append(out, v.vote)
		}
	}
	return slices.Clip(out)
}
