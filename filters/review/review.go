// Package review sends dialogues to native-speaker review and reads the
// verdicts back: Label Studio tasks and Argilla 2 records in the tools'
// documented JSON formats (ngcat --to labelstudio / argilla), and their
// exports back into turns' labels_human and the record's review (ngcat
// --from labelstudio / argilla).
package review

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf16"

	"github.com/ngkit/ngkit/pkg/recio"
	"github.com/ngkit/ngkit/pkg/record"
)

// Review tools.
const (
	ToolLabelStudio = "labelstudio"
	ToolArgilla     = "argilla"
)

// DefaultReviewTasks are the turn labels sent for review: nglabel's
// default tasks (record.LabelTasks' Default).
func DefaultReviewTasks() []string { return record.DefaultLabelTasks() }

// ParseReviewTasks checks a --review-tasks list.
// RubricTask is the review task of simulated episodes (ngsim): the
// reviewers score the judge's rubric, assistance, cultural and language
// (1-5), with the judge's scores as the prediction; ngstats compares
// the two.
const RubricTask = "rubric"

// RubricScores are the rubric's scores, as the Label Studio Rating
// controls are named.
var RubricScores = []string{"assistance", "cultural", "language"}

func ParseReviewTasks(spec string) ([]string, error) {
	var out []string
	for _, t := range strings.Split(spec, ",") {
		t = strings.TrimSpace(t)
		if record.LabelSet(t) == nil && t != RubricTask {
			return nil, fmt.Errorf("--review-tasks: unknown task %q (want some of %s, or %s)", t, strings.Join(record.LabelTaskNames(), ", "), RubricTask)
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out, nil
}

// turnText is a turn as reviewers see it: the stage direction in
// parentheses before the text, as in the NormGenesis release.
func turnText(t record.Turn) string {
	if t.Action == "" {
		return t.Text
	}
	if t.Text == "" {
		return "(" + t.Action + ")"
	}
	return "(" + t.Action + ") " + t.Text
}

// utf16Len is a string's length as JavaScript counts it: Label Studio's
// offsets are in UTF-16 code units.
func utf16Len(s string) int { return len(utf16.Encode([]rune(s))) }

// labelModel names who made a record's turn labels, for the review tool.
func labelModel(rec *record.Record) string {
	if rec.LabelsMeta != nil && rec.LabelsMeta.Model != "" {
		return "nglabel " + rec.LabelsMeta.Model
	}
	return "nglabel"
}

// ArraySink writes rows as one JSON array (the import format of Label
// Studio and of Argilla's records file), one row per line, streaming.
type ArraySink[T any] struct {
	out  *recio.Output
	w    io.Writer
	n    int
	conv func(*record.Record) []T
}

// NewArraySink writes the rows conv makes of each record to out.
func NewArraySink[T any](out *recio.Output, conv func(*record.Record) []T) *ArraySink[T] {
	return &ArraySink[T]{out: out, w: out.Writer(), conv: conv}
}

// Write implements pipeline.Sink.
func (s *ArraySink[T]) Write(r *record.Record) error {
	for _, row := range s.conv(r) {
		b, err := json.Marshal(row)
		if err != nil {
			return err
		}
		sep := ",\n"
		if s.n == 0 {
			sep = "[\n"
		}
		s.n++
		if _, err := io.WriteString(s.w, sep); err != nil {
			return err
		}
		if _, err := s.w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// Close implements pipeline.Sink: it closes the array and commits the file.
func (s *ArraySink[T]) Close() error {
	end := "\n]\n"
	if s.n == 0 {
		end = "[]\n"
	}
	if _, err := io.WriteString(s.w, end); err != nil {
		s.out.Abort()
		return err
	}
	return s.out.Commit()
}

// Abort implements pipeline.Sink.
func (s *ArraySink[T]) Abort() { s.out.Abort() }
