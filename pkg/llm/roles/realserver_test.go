package roles

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/llm/llmtest"
)

// realServer is the base URL of the real llama-server of
// scripts/realserver.sh (llmtest.RealServer); the test is skipped without
// one.
func realServer(t *testing.T) string {
	return llmtest.RealServer(t.Skip)
}

// realConfig is a client of it, with the key it was started with
// (NGKIT_REALSERVER_KEY), if any.
func realConfig(u string) llm.Config {
	return llm.Config{BaseURL: u, Model: "babel-tiny", APIKey: llm.NewSecret(os.Getenv("NGKIT_REALSERVER_KEY")), Stage: "realserver", Concurrency: 4, MaxRetries: 2,
		Timeout: 5 * time.Minute, Backoff: 10 * time.Millisecond, Sampling: llm.Sampling{MaxTokens: 1500}}
}

// Model roles on one real server: two aliases of the same llama-server
// and model with different settings (one greedy with one slot, one
// sampling hot with two slots; both json_schema: the random model writes
// JSON only under a grammar) serve two roles; every call names its role and alias, each
// alias keeps its own window, and the same request through the two
// aliases is two cache entries, not one.
func TestRealServerRoles(t *testing.T) {
	u := realServer(t)
	dir := t.TempDir()
	models := dir + "/models.yaml"
	key := ""
	if os.Getenv("NGKIT_REALSERVER_KEY") != "" {
		key = "    api_key_env: NGKIT_REALSERVER_KEY\n"
	}
	text := "endpoints:\n  cold:\n    base_url: " + u + "\n    model: babel-tiny\n" + key +
		"    temperature: 0\n    seed: 1\n    max_tokens: 300\n    concurrency: 1\n    response_format: json_schema\n" +
		"  hot:\n    base_url: " + u + "\n    model: babel-tiny\n" + key +
		"    temperature: 1.5\n    top_p: 0.9\n    seed: 2\n    max_tokens: 300\n    concurrency: 2\n"
	if err := os.WriteFile(models, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	base := realConfig(u)
	base.CacheDir = dir + "/cache"
	m, err := Open(Settings{Models: models, Assign: []Assignment{{Role: "writer", Aliases: []string{"hot"}}, {Role: "judge", Aliases: []string{"cold"}}}}, "realserver",
		[]Role{{Name: Writer}, {Name: Judge}}, base, nil, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	req := func(i int) llm.Request {
		return llm.Request{ID: strconv.Itoa(i), Call: "echo", Schema: "echo", Messages: []llm.Message{llm.System("Reply in JSON."), llm.User("Say something, " + strconv.Itoa(i))}}
	}
	var wg sync.WaitGroup
	for i := range 2 {
		for _, role := range []string{Writer, Judge} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				resp, err := m.Caller(role).Call(context.Background(), req(i))
				if err != nil {
					t.Errorf("%s %d: %v", role, i, err)
					return
				}
				want := map[string]string{Writer: "hot", Judge: "cold"}[role]
				if resp.Gen.Role != role || resp.Gen.Endpoint != want || resp.Gen.CacheHit || resp.Gen.ModelAnswered == "" {
					t.Errorf("%s %d: gen %+v", role, i, resp.Gen)
				}
			}()
		}
	}
	wg.Wait()
	// Again: every reply from its own alias's cache entry.
	for _, role := range []string{Writer, Judge} {
		resp, err := m.Caller(role).Call(context.Background(), req(0))
		if err != nil || !resp.Gen.CacheHit {
			t.Fatalf("%s again: %v %+v", role, err, resp)
		}
	}
	u2 := m.Usage()
	if len(u2.Endpoints) != 2 || u2.Endpoints[0].Alias != "hot" || u2.Endpoints[0].Concurrency != 2 || u2.Endpoints[1].Concurrency != 1 ||
		u2.Endpoints[0].Total.Requests < 2 || u2.Endpoints[1].Total.Requests < 2 || u2.Total.CacheHits != 2 {
		b, _ := json.Marshal(u2)
		t.Fatalf("usage %s", b)
	}
	var buf bytes.Buffer
	if err := u2.Write("", &buf, false, false); err != nil {
		t.Fatal(err)
	}
	t.Log(buf.String())
}
