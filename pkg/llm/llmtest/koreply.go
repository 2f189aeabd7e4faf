package llmtest

import "encoding/json"

// KoreanReply is a fake model's reply for the tests of the client and the
// framework: a Korean sentence about the scenario (the first user message,
// also when the model is asked again), as JSON with its language.
func KoreanReply(req *ChatRequest) string {
	scenario := ""
	for _, m := range req.Messages {
		if m.Role == "user" {
			scenario = m.Text()
			break
		}
	}
	b, _ := json.Marshal(map[string]string{"text": "안녕하세요, " + scenario + "에 대해 이야기해요.", "lang": "ko"})
	return string(b)
}
