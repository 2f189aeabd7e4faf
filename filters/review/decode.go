package review

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ngkit/ngkit/pkg/record"
)

// lsExportTask is a task of a Label Studio JSON export
// (labelstud.io/guide/export: the data as imported, the annotations;
// drafts are under "drafts", which is not read: they do not count).
type lsExportTask struct {
	ID          json.RawMessage `json:"id"`
	Data        json.RawMessage `json:"data"`
	Annotations []lsAnnotation  `json:"annotations"`
}

// lsAnnotation is one annotator's submitted (or skipped) annotation.
type lsAnnotation struct {
	WasCancelled bool                `json:"was_cancelled"`
	CompletedBy  json.RawMessage     `json:"completed_by"` // a user id, or an object with an id
	CreatedAt    string              `json:"created_at"`
	UpdatedAt    string              `json:"updated_at"`
	Result       []LabelStudioResult `json:"result"`
}

// paragraphIndex reads a region's start or end: a string ("2", as the
// editor writes them) or a number (as older exports and hand-made files
// have them).
func paragraphIndex(raw json.RawMessage) (int, error) {
	if len(raw) == 0 {
		return 0, errors.New("no paragraph index (start, end)")
	}
	s := string(raw)
	var q string
	if json.Unmarshal(raw, &q) == nil {
		s = q
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("paragraph index %s is not a paragraph number", raw)
	}
	return n, nil
}

// turnTask is a label's place: a turn and a task.
type turnTask struct {
	turn int
	task string
}

// annotator names who made an annotation: completed_by (a number, a
// string, or an object with "id" or "email"); "" when there is none.
func (a *lsAnnotation) annotator() string {
	var v any
	if json.Unmarshal(a.CompletedBy, &v) != nil {
		return ""
	}
	switch v := v.(type) {
	case float64, string:
		return fmt.Sprint(v)
	case map[string]any:
		for _, k := range []string{"id", "email"} {
			if x, ok := v[k]; ok && x != nil {
				return fmt.Sprint(x)
			}
		}
	}
	return ""
}

// when is an annotation's last change (updated_at, else created_at);
// zero when it has neither or they do not parse.
func (a *lsAnnotation) when() time.Time {
	for _, s := range []string{a.UpdatedAt, a.CreatedAt} {
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return t
		}
	}
	return time.Time{}
}

// latestPerAnnotator keeps one annotation per annotator, the newest by
// updated_at (a later one in the list on equal or missing times), in the
// order of each annotator's first annotation: Label Studio counts
// distinct annotators, and a user who annotated again changed their mind.
// Annotations without an annotator each count.
// again names each annotator who annotated more than once, once per
// extra annotation.
func latestPerAnnotator(as []lsAnnotation) (out []*lsAnnotation, again []string) {
	at := map[string]int{}
	for i := range as {
		a := &as[i]
		who := a.annotator()
		j, seen := at[who]
		switch {
		case who == "" || !seen:
			at[who] = len(out)
			out = append(out, a)
			continue
		case !a.when().Before(out[j].when()):
			out[j] = a
		}
		again = append(again, who)
	}
	return out, again
}

// byReviewer says whether a region is the reviewer's own: drawn by hand
// (origin manual) or a prediction they changed (prediction-changed).
func byReviewer(r *LabelStudioResult) bool {
	return r.Origin == "manual" || r.Origin == "prediction-changed"
}

// DecodeLabelStudio turns one task of a Label Studio export into the
// record it was made of (data.ngkit_record, from ngcat --to labelstudio;
// else a record rebuilt from data.dialogue and the context), with each
// reviewer's ParagraphLabels regions as the turns' labels_human (the
// majority over reviewers), and the verdict and comments as its review.
// Each annotator counts once, with their newest annotation; a skipped
// (cancelled) one does not count. Within one annotation the reviewer's own
// region on a turn wins over a predicted one left beside it, and of two
// alike the later one wins. On an error the record, when it could be
// read, comes back too (for the errors file).
func DecodeLabelStudio(raw []byte) (*record.Record, error) { return decodeLabelStudio(raw, &Tally{}) }

func decodeLabelStudio(raw []byte, tally *Tally) (*record.Record, error) {
	var t lsExportTask
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, err
	}
	tally.Tasks++
	var id any
	if json.Unmarshal(t.ID, &id) == nil && id != nil {
		tally.task = record.PrintableLine(fmt.Sprint(id))
	}
	rec, err := lsTaskRecord(t)
	if err != nil {
		return nil, err
	}
	rv := lsReview{labels: map[int]map[string]*votes{}, verdict: &votes{}}
	latest, again := latestPerAnnotator(t.Annotations)
	tally.again = again
	for _, a := range latest {
		if a.WasCancelled {
			continue
		}
		if err := rv.add(a, rec); err != nil {
			return rec, err
		}
	}
	if rv.reviewers > 0 {
		tally.Reviewed++
	}
	if err := apply(rec, ToolLabelStudio, rv.labels, rv.verdict, rv.comments, rv.reviewers); err != nil {
		return rec, fmt.Errorf("record %s: %w", rec.ID, err)
	}
	return rec, rv.applyRatings(rec)
}

// lsTaskRecord is the record a Label Studio task was made of: its
// data.ngkit_record, else one rebuilt from data.dialogue and the context.
func lsTaskRecord(t lsExportTask) (*record.Record, error) {
	if len(t.Data) == 0 {
		return nil, errors.New(`a Label Studio task has "data"`)
	}
	var d struct {
		LabelStudioData
		Record *record.Record `json:"ngkit_record"`
	}
	if err := json.Unmarshal(t.Data, &d); err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	if d.Record != nil {
		return d.Record, nil
	}
	if len(d.Dialogue) == 0 {
		return nil, errors.New("data has neither ngkit_record nor dialogue: not a task of ngcat --to labelstudio")
	}
	rec := &record.Record{ID: d.NgkitID, Culture: d.Culture, DialogueType: d.DialogueType, Category: d.Category,
		Norm: d.Norm, Scenario: d.Scenario, Situation: d.Situation}
	for i, p := range d.Dialogue {
		action, text := splitAction(p.Text)
		rec.Turns = append(rec.Turns, record.Turn{Index: i, Speaker: p.Author, Action: action, Text: text})
	}
	return rec, nil
}

// lsReview gathers the reviewers' annotations of one task: the votes per
// turn and task, the verdicts, the comments and the rubric ratings.
type lsReview struct {
	labels             map[int]map[string]*votes
	verdict            *votes
	comments           []string
	reviewers          int
	ratingSum, ratingN [3]float64 // RubricScores
}

// lsPick is a reviewer's label of a turn, and whether the reviewer drew it
// (not a prediction left as it was).
type lsPick struct {
	label    string
	reviewer bool
}

// add folds one reviewer's annotation in: one label per turn and task (the
// reviewer's own region over a prediction, the later of two alike).
func (rv *lsReview) add(a *lsAnnotation, rec *record.Record) error {
	rv.reviewers++
	mine := map[turnTask]lsPick{} // this reviewer's label per turn and task
	var order []turnTask          // in the order first labelled
	var said string
	for ri := range a.Result {
		r := &a.Result[ri]
		switch r.Type {
		case "paragraphlabels":
			if record.LabelSet(r.FromName) == nil || len(r.Value.ParagraphLabels) == 0 {
				continue // another control of the user's config
			}
			var err error
			if order, err = rv.region(r, rec, mine, order); err != nil {
				return err
			}
		case "rating":
			i := slices.Index(RubricScores, r.FromName)
			if i < 0 || r.Value.Rating == nil {
				continue // another control of the user's config
			}
			if v := *r.Value.Rating; v < 1 || v > 5 {
				return fmt.Errorf("rating %s %d: want 1 to 5", r.FromName, v)
			}
			rv.ratingSum[i] += float64(*r.Value.Rating)
			rv.ratingN[i]++
		case "choices":
			if r.FromName == "verdict" && len(r.Value.Choices) > 0 {
				c := r.Value.Choices[0]
				if c != record.VerdictAccept && c != record.VerdictReject {
					return fmt.Errorf("verdict %q: want accept or reject", c)
				}
				said = c
			}
		case "textarea":
			var texts []string
			if json.Unmarshal(r.Value.Text, &texts) == nil {
				for _, s := range texts {
					if s = strings.TrimSpace(s); s != "" {
						rv.comments = append(rv.comments, s)
					}
				}
			}
		}
	}
	for _, k := range order {
		if rv.labels[k.turn] == nil {
			rv.labels[k.turn] = map[string]*votes{}
		}
		v := rv.labels[k.turn][k.task]
		if v == nil {
			v = &votes{}
			rv.labels[k.turn][k.task] = v
		}
		v.add(mine[k].label)
	}
	if said != "" {
		rv.verdict.add(said)
	}
	return nil
}

// region puts a ParagraphLabels region's label on each turn it covers.
func (rv *lsReview) region(r *LabelStudioResult, rec *record.Record, mine map[turnTask]lsPick, order []turnTask) ([]turnTask, error) {
	start, err := paragraphIndex(r.Value.Start)
	if err != nil {
		return order, fmt.Errorf("region %q: %w", r.ID, err)
	}
	end, err := paragraphIndex(r.Value.End)
	if err != nil {
		return order, fmt.Errorf("region %q: %w", r.ID, err)
	}
	if end < start || end >= len(rec.Turns) {
		return order, fmt.Errorf("a region over turns %d-%d, but the dialogue has %d turns (was the task's data edited after it was annotated?)", start, end, len(rec.Turns))
	}
	p := lsPick{r.Value.ParagraphLabels[0], byReviewer(r)}
	for i := start; i <= end; i++ {
		k := turnTask{i, r.FromName}
		old, ok := mine[k]
		if !ok {
			order = append(order, k)
		}
		if !ok || p.reviewer || !old.reviewer {
			mine[k] = p
		}
	}
	return order, nil
}

// applyRatings sets a simulated episode's human rubric scores: the mean
// of the reviewers' ratings of each.
func (rv *lsReview) applyRatings(rec *record.Record) error {
	if rv.ratingN == [3]float64{} {
		return nil
	}
	if rec.Sim == nil {
		return fmt.Errorf("record %s: rubric ratings for a record that is not a simulated episode", rec.ID)
	}
	h := &record.SimHuman{Reviewers: rv.reviewers}
	for i, f := range []**float64{&h.Assistance, &h.Cultural, &h.Language} {
		if rv.ratingN[i] > 0 {
			m := rv.ratingSum[i] / rv.ratingN[i]
			*f = &m
		}
	}
	rec.Sim.Human = h
	return nil
}

// DecodeArgilla turns one record of an Argilla 2 export made from ngcat
// --to argilla back into a dialogue record: id, context and turns from the
// fields and metadata, the model's labels from the suggestions, the
// reviewers' submitted answers to the per-turn questions (norm_3, ...) as
// labels_human (the majority over reviewers), and the verdict and comment
// questions as its review. It reads the flat form (to_list(flatten=True),
// to_datasets(): "norm_3.responses", ".responses.users",
// ".responses.status"), where drafts and discarded answers are left out,
// and the nested form (to_list(flatten=False), to_json: rg.Record.to_dict()),
// which has no status, so that every answer counts. The rest of the
// original record stays in the corpus: join on id to get it back.
func DecodeArgilla(raw []byte) (*record.Record, error) { return decodeArgilla(raw, &Tally{}) }

func decodeArgilla(raw []byte, tally *Tally) (*record.Record, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, err
	}
	var a ArgillaRecord
	if f, ok := top["fields"]; ok && len(f) > 0 && f[0] == '{' {
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, err
		}
	} else if err := a.unflatten(top); err != nil {
		return nil, err
	}
	if a.ID == "" || len(a.Fields.Dialogue) == 0 {
		return nil, errors.New("an Argilla record of ngcat --to argilla has an id and a dialogue field")
	}
	rec, err := argillaDialogue(&a)
	if err != nil {
		return rec, err
	}
	if err := argillaSuggestions(&a, rec, tally); err != nil {
		return rec, err
	}
	rv, err := argillaResponses(&a, tally)
	if err != nil {
		return rec, err
	}
	if err := apply(rec, ToolArgilla, rv.labels, rv.verdict, rv.comments, rv.reviewers); err != nil {
		return rec, fmt.Errorf("record %s: %w", a.ID, err)
	}
	return rec, nil
}

// argillaDialogue is the record's id, context and turns, from the fields
// and metadata of ngcat --to argilla.
func argillaDialogue(a *ArgillaRecord) (*record.Record, error) {
	meta := func(k string) string { s, _ := a.Metadata[k].(string); return s }
	rec := &record.Record{ID: a.ID, Culture: meta("culture"), DialogueType: meta("dialogue_type"), Category: meta("category"),
		NormID: meta("norm_id"), Norm: a.Fields.Norm, Scenario: a.Fields.Scenario, Situation: a.Fields.Situation}
	speakers := metaStrings(a.Metadata["speakers"])
	for i, m := range a.Fields.Dialogue {
		speaker, content := m.Role, m.Content
		if k := roleIndex(m.Role); speakers != nil && k >= 0 && k < len(speakers) {
			// ngcat's roles: A, B, ... for the speakers in the metadata, the
			// content "Name: text".
			speaker = speakers[k]
			rest, ok := strings.CutPrefix(content, speaker+":")
			if !ok {
				return rec, fmt.Errorf("record %s: turn %d: the message does not start with its speaker %q (were the record's fields edited?)", record.PrintableLine(a.ID), i, speaker)
			}
			content = strings.TrimPrefix(rest, " ")
		}
		action, text := splitAction(content)
		rec.Turns = append(rec.Turns, record.Turn{Index: i, Speaker: speaker, Action: action, Text: text})
	}
	return rec, nil
}

// argillaSuggestions puts the model's labels, the record's suggestions,
// back on its turns.
func argillaSuggestions(a *ArgillaRecord, rec *record.Record, tally *Tally) error {
	sq := make([]string, 0, len(a.Suggestions))
	for q := range a.Suggestions {
		sq = append(sq, q)
	}
	slices.Sort(sq) // the same error on every run
	for _, q := range sq {
		s := a.Suggestions[q]
		task, i, ok := ParseArgillaQuestion(q)
		if _, num := s.Value.(float64); num && ok {
			// to_datasets() casts a label question's suggestions to class
			// numbers whose names the file does not keep.
			tally.indexed = true
			continue
		}
		v, _ := s.Value.(string)
		if !ok || v == "" {
			continue
		}
		if i >= len(rec.Turns) {
			// ngcat --to argilla suggests labels for the dialogue's turns only.
			return fmt.Errorf("record %s: a suggestion for turn %d, but the dialogue has %d turns (were the record's fields edited?)", record.PrintableLine(a.ID), i, len(rec.Turns))
		}
		t := &rec.Turns[i]
		if t.Labels == nil {
			t.Labels = &record.Labels{}
		}
		t.Labels.Set(task, v)
	}
	return nil
}

// argillaReview is what the reviewers answered: votes per turn and task,
// verdicts, comments, and how many reviewers submitted.
type argillaReview struct {
	labels    map[int]map[string]*votes
	verdict   *votes
	comments  []string
	reviewers int
}

// argillaResponses reads the reviewers' submitted answers; drafts,
// discarded answers and the flat form's answers without a status are
// counted in the tally and left out.
func argillaResponses(a *ArgillaRecord, tally *Tally) (argillaReview, error) {
	rv := argillaReview{labels: map[int]map[string]*votes{}, verdict: &votes{}}
	users := map[string]bool{}
	left := map[[2]string]bool{} // users' responses left out, by user and status
	qs := make([]string, 0, len(a.Responses))
	for q := range a.Responses {
		qs = append(qs, q)
	}
	slices.Sort(qs) // the same comments order on every run
	statuses := false
	for _, q := range qs {
		for _, r := range a.Responses[q] {
			tally.Answers++
			if r.Status != nil {
				statuses = true
				if *r.Status != "submitted" {
					left[[2]string{r.UserID, *r.Status}] = true
					continue
				}
			} else if a.flat {
				left[[2]string{r.UserID, ""}] = true
				continue
			}
			users[r.UserID] = true
			if err := rv.add(q, r.Value, a.ID); err != nil {
				return rv, err
			}
		}
	}
	for k := range left {
		switch k[1] {
		case "draft":
			tally.Draft++
		case "discarded":
			tally.Discarded++
		default:
			tally.NoStatus++
		}
	}
	tally.nested = !a.flat && !statuses && len(qs) > 0
	rv.reviewers = len(users)
	return rv, nil
}

// add counts one submitted answer to question q.
func (rv *argillaReview) add(q string, value any, id string) error {
	v, _ := value.(string)
	switch {
	case q == "verdict":
		if v != record.VerdictAccept && v != record.VerdictReject {
			return fmt.Errorf("record %s: verdict %q: want accept or reject", id, v)
		}
		rv.verdict.add(v)
	case q == "comment":
		if v = strings.TrimSpace(v); v != "" {
			rv.comments = append(rv.comments, v)
		}
	default:
		task, i, ok := ParseArgillaQuestion(q)
		if !ok || v == "" {
			return nil
		}
		if rv.labels[i] == nil {
			rv.labels[i] = map[string]*votes{}
		}
		if rv.labels[i][task] == nil {
			rv.labels[i][task] = &votes{}
		}
		rv.labels[i][task].add(v)
	}
	return nil
}

// metaStrings reads a metadata value that is a list of strings.
func metaStrings(v any) []string {
	l, ok := v.([]any)
	if !ok {
		return nil
	}
	out := make([]string, len(l))
	for i, x := range l {
		if out[i], ok = x.(string); !ok {
			return nil
		}
	}
	return out
}
