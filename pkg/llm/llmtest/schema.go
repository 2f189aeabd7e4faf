package llmtest

import "encoding/json"

// SchemaName is the name of the reply schema the request asks for: the
// response_format's, or the title of the schema given in the prompt. The
// fake models of every stage answer by it.
func (r *ChatRequest) SchemaName() string {
	if rf := r.ResponseFormat; rf != nil && rf.JSONSchema != nil && rf.JSONSchema.Name != "" {
		return rf.JSONSchema.Name
	}
	var s struct{ Title string }
	json.Unmarshal(r.Schema(), &s)
	return s.Title
}
