package llmtest

import "os"

// RealServer is the base URL of a real llama.cpp llama-server, which
// scripts/realserver.sh starts from ../shared/llm (a tiny random-weight
// model, --parallel 4) and names in NGKIT_REALSERVER_URL (the API key it
// was started with, if any, is in NGKIT_REALSERVER_KEY). Without one, skip
// (a test's t.Skip) is called: the real-server tests of pkg/llm and its
// packages run only under that script.
func RealServer(skip func(...any)) string {
	u := os.Getenv("NGKIT_REALSERVER_URL")
	if u == "" {
		skip("no real server: scripts/realserver.sh runs this test against llama-server from ../shared/llm (NGKIT_REALSERVER_URL)")
	}
	return u
}
