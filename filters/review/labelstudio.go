package review

import (
	"encoding/json"
	"fmt"
	"html"
	"slices"
	"strconv"
	"strings"

	"github.com/ngkit/ngkit/pkg/record"
)

// LabelStudioTask is one Label Studio task in its JSON import format
// (labelstud.io/guide/tasks, /guide/predictions): the data the labeling
// config shows, and the model's labels as a prediction that reviewers
// start from.
type LabelStudioTask struct {
	Data        LabelStudioData         `json:"data"`
	Predictions []LabelStudioPrediction `json:"predictions,omitempty"`
}

// LabelStudioData is a task's data: the dialogue for a Paragraphs tag
// (layout dialogue: author and text), the context, and the whole ngkit
// record, which Label Studio keeps untouched and exports back.
type LabelStudioData struct {
	Dialogue     []LabelStudioTurn `json:"dialogue"`
	Culture      string            `json:"culture"`
	DialogueType string            `json:"dialogue_type"`
	Category     string            `json:"category"`
	Norm         string            `json:"norm"`
	Scenario     string            `json:"scenario"`
	Situation    string            `json:"situation"`
	NgkitID      string            `json:"ngkit_id"`
	Record       *record.Record    `json:"ngkit_record"`
}

// LabelStudioTurn is one paragraph of the Paragraphs tag.
type LabelStudioTurn struct {
	Author string `json:"author"`
	Text   string `json:"text"`
}

// LabelStudioPrediction is a pre-annotation.
type LabelStudioPrediction struct {
	ModelVersion string              `json:"model_version"`
	Result       []LabelStudioResult `json:"result"`
}

// LabelStudioResult is one region or answer of an annotation or
// prediction (labelstud.io/guide/task_format).
type LabelStudioResult struct {
	ID       string           `json:"id,omitempty"`
	FromName string           `json:"from_name"`
	ToName   string           `json:"to_name"`
	Type     string           `json:"type"`
	Value    LabelStudioValue `json:"value"`
	// Origin, in exports: prediction, prediction-changed or manual.
	Origin string `json:"origin,omitempty"`
}

// LabelStudioValue holds what a result says: a ParagraphLabels region
// (start and end paragraph, offsets in UTF-16 units, labels), Choices or
// a TextArea.
type LabelStudioValue struct {
	Start           json.RawMessage `json:"start,omitempty"` // the paragraph index as a string ("2"); read as a number too
	End             json.RawMessage `json:"end,omitempty"`
	StartOffset     *int            `json:"startOffset,omitempty"`
	EndOffset       *int            `json:"endOffset,omitempty"`
	Text            json.RawMessage `json:"text,omitempty"` // region text, or the TextArea's list of texts
	ParagraphLabels []string        `json:"paragraphlabels,omitempty"`
	Choices         []string        `json:"choices,omitempty"`
	Rating          *int            `json:"rating,omitempty"`
}

// LabelStudio makes one review task of a dialogue; records without turns
// make none.
func LabelStudio(tasks []string) func(*record.Record) []LabelStudioTask {
	return func(rec *record.Record) []LabelStudioTask {
		if len(rec.Turns) == 0 {
			return nil
		}
		t := LabelStudioTask{Data: LabelStudioData{
			Culture: rec.Culture, DialogueType: rec.DialogueType, Category: rec.Category,
			Norm: rec.Norm, Scenario: rec.Scenario, Situation: rec.Situation, NgkitID: rec.ID, Record: rec,
		}}
		var results []LabelStudioResult
		for i, turn := range rec.Turns {
			text := turnText(turn)
			t.Data.Dialogue = append(t.Data.Dialogue, LabelStudioTurn{Author: turn.Speaker, Text: text})
			for _, task := range tasks {
				l := turn.Labels.Get(task)
				if l == "" {
					continue
				}
				// A string: the editor's ParagraphsRegion types start and end
				// as strings and takes no numeric region as a paragraph one.
				idx := json.RawMessage(strconv.Quote(strconv.Itoa(i)))
				zero, end := 0, utf16Len(text)
				txt, _ := json.Marshal(text)
				results = append(results, LabelStudioResult{
					ID: fmt.Sprintf("t%d_%s", i, task), FromName: task, ToName: "dialogue", Type: "paragraphlabels",
					Value: LabelStudioValue{Start: idx, End: idx, StartOffset: &zero, EndOffset: &end, Text: txt, ParagraphLabels: []string{l}},
				})
			}
		}
		if slices.Contains(tasks, RubricTask) && rec.Sim != nil && rec.Sim.Judge != nil {
			j := rec.Sim.Judge
			for i, v := range []int{j.Assistance, j.Cultural, j.Language} {
				if v >= 1 && v <= 5 {
					v := v
					results = append(results, LabelStudioResult{ID: "judge_" + RubricScores[i], FromName: RubricScores[i], ToName: "dialogue",
						Type: "rating", Value: LabelStudioValue{Rating: &v}})
				}
			}
		}
		if len(results) > 0 {
			t.Predictions = []LabelStudioPrediction{{ModelVersion: labelModel(rec), Result: results}}
		}
		return []LabelStudioTask{t}
	}
}

// LabelStudioConfig is the labeling config (XML) the tasks are made for:
// the context, the dialogue as paragraphs, one ParagraphLabels per task,
// the verdict and a comment.
func LabelStudioConfig(tasks []string) string {
	var b strings.Builder
	b.WriteString(`<View>
  <Header value="$culture · $dialogue_type · $category"/>
  <Text name="norm_text" value="$norm"/>
  <Text name="situation_text" value="$situation"/>
  <Paragraphs name="dialogue" value="$dialogue" layout="dialogue" nameKey="author" textKey="text"/>
`)
	for _, task := range tasks {
		if task == RubricTask {
			b.WriteString("  <Header value=\"Rate the assistant (1-5): assistance, cultural appropriateness, language\"/>\n")
			for _, s := range RubricScores {
				fmt.Fprintf(&b, "  <Header value=\"%s\"/>\n  <Rating name=\"%s\" toName=\"dialogue\" maxRating=\"5\" required=\"true\"/>\n", s, s)
			}
			continue
		}
		fmt.Fprintf(&b, "  <Header value=\"%s (select a turn, then its label)\"/>\n  <ParagraphLabels name=\"%s\" toName=\"dialogue\">\n", task, task)
		for _, l := range record.LabelSet(task) {
			fmt.Fprintf(&b, "    <Label value=\"%s\"/>\n", html.EscapeString(l))
		}
		b.WriteString("  </ParagraphLabels>\n")
	}
	b.WriteString(`  <Header value="Is this dialogue culturally right and natural?"/>
  <Choices name="verdict" toName="dialogue" choice="single" required="true">
    <Choice value="accept"/>
    <Choice value="reject"/>
  </Choices>
  <TextArea name="comment" toName="dialogue" placeholder="Why (optional)"/>
</View>
`)
	return b.String()
}
