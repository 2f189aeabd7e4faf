package llm

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"
)

// A refused connection to an endpoint that has never answered in this
// process fails the call at once, without retries (was --max-retries
// backoffs: 48 s by default); once the endpoint has answered, a refused
// connection is retried as before (a server that restarts).
func TestRefusedBeforeAnyAnswerIsNotRetried(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	cfg := Config{BaseURL: "http://" + addr + "/v1", Backoff: time.Second, RetryAfterCap: time.Minute, MaxRetries: 6, Timeout: 5 * time.Second}
	c := testClient(t, cfg)
	start := time.Now()
	_, err = c.Call(context.Background(), Request{Call: "c", Messages: []Message{User("x")}})
	if err == nil || !strings.Contains(err.Error(), "connection refused at http://"+addr+"/v1: no server is listening there") || time.Since(start) > 900*time.Millisecond {
		t.Fatalf("after %s: %v", time.Since(start), err)
	}

	// Answered once, then gone: waited for (TestServerRestart).
}
