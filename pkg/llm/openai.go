package llm

import (
	"net/url"
	"strings"

	"github.com/ngkit/ngkit/pkg/llm/usage"
)

// OpenAIBaseURL is the endpoint used when only an OpenAI key is set.
const (
	OpenAIBaseURL = "https://" + openAIHost + "/v1"
	openAIHost    = usage.OpenAIHost
)

// OpenAIKeyAllowed reports whether OPENAI_API_KEY may be sent to baseURL:
// only to the OpenAI API itself (https://api.openai.com) or to the
// endpoint the user paired with that key, $OPENAI_BASE_URL (openaiBase).
// Any other server (a --base-url or NG_BASE_URL, perhaps a third party's)
// gets NG_API_KEY or an explicitly named variable, never the OpenAI key.
func OpenAIKeyAllowed(baseURL, openaiBase string) bool {
	trim := func(s string) string { return strings.TrimRight(strings.TrimSpace(s), "/") }
	if openaiBase != "" && trim(baseURL) == trim(openaiBase) {
		return true
	}
	u, err := url.Parse(baseURL)
	return err == nil && u.Scheme == "https" && u.User == nil && u.Hostname() == openAIHost && (u.Port() == "" || u.Port() == "443")
}

// withheldNote is appended to a 401 when Config.KeyWithheld says a key
// was set but not sent to this server.
func withheldNote(v string) string {
	return "no key sent: " + v + " goes only to " + openAIHost + " or $OPENAI_BASE_URL; set NG_API_KEY (or --api-key-env VAR, or api_key_env in a models file) for this server"
}
