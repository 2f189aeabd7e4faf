package record

import "strconv"

// TurnRow is one turn with its dialogue's keys, flat, for analytics
// (`ngcat --explode turns`): one row per turn, no nesting but the rots list.
type TurnRow struct {
	ID           string   `json:"id" parquet:"id"` // record id + "/" + turn index
	RecordID     string   `json:"record_id" parquet:"record_id"`
	Culture      string   `json:"culture,omitempty" parquet:"culture,optional"`
	Lang         string   `json:"lang,omitempty" parquet:"lang,optional"`
	Category     string   `json:"category,omitempty" parquet:"category,optional"`
	NormID       string   `json:"norm_id,omitempty" parquet:"norm_id,optional"`
	DialogueType string   `json:"dialogue_type,omitempty" parquet:"dialogue_type,optional"`
	TurnIndex    int      `json:"turn_index" parquet:"turn_index"`
	Turns        int      `json:"turns" parquet:"turns"` // turns in the dialogue
	Speaker      string   `json:"speaker" parquet:"speaker"`
	Action       string   `json:"action,omitempty" parquet:"action,optional"`
	Text         string   `json:"text" parquet:"text"`
	TurnLang     string   `json:"turn_lang,omitempty" parquet:"turn_lang,optional"`
	Stage        string   `json:"stage,omitempty" parquet:"stage,optional"`
	Norm         string   `json:"label_norm,omitempty" parquet:"label_norm,optional"`
	Intent       string   `json:"label_intent,omitempty" parquet:"label_intent,optional"`
	Emotion      string   `json:"label_emotion,omitempty" parquet:"label_emotion,optional"`
	LabelStage   string   `json:"label_stage,omitempty" parquet:"label_stage,optional"`
	Safety       string   `json:"label_safety,omitempty" parquet:"label_safety,optional"`
	Rots         []string `json:"rots,omitempty" parquet:"rots,optional,list"`
	Agreement    float64  `json:"agreement,omitempty" parquet:"agreement,optional"`
}

// Explode returns one TurnRow per turn of r.
func Explode(r *Record) []TurnRow {
	rows := make([]TurnRow, len(r.Turns))
	for i, t := range r.Turns {
		row := TurnRow{
			ID: r.ID + "/" + strconv.Itoa(t.Index), RecordID: r.ID, Culture: r.Culture, Lang: r.Lang,
			Category: r.Category, NormID: r.NormID, DialogueType: r.DialogueType,
			TurnIndex: t.Index, Turns: len(r.Turns), Speaker: t.Speaker, Action: t.Action,
			Text: t.Text, TurnLang: t.Lang, Stage: t.Stage,
		}
		if l := t.Labels; l != nil {
			for _, task := range LabelTasks {
				if task.Column != nil {
					*task.Column(&row) = *task.Field(l)
				}
			}
			row.Rots, row.Agreement = l.Rots, l.Agreement
		}
		rows[i] = row
	}
	return rows
}
