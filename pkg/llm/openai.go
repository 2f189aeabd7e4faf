package llm

// OpenAIBaseURL is the endpoint used when only an OpenAI key is set.
const (
	OpenAIBaseURL = "https://" + openAIHost + "/v1"
	openAIHost    = "api.openai.com"
)
