package roles

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/llm/llmtest"
)

var duoRoles = []Role{{Name: Writer, Help: "writes the sentence"}, {Name: Judge, Help: "judges it"}}

func writeModels(t *testing.T, dir, text string) string {
	t.Helper()
	p := filepath.Join(dir, "models.yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func koFake(t *testing.T, opt llmtest.Options) *llmtest.Server {
	opt.Reply = koReply
	srv := llmtest.New(opt)
	t.Cleanup(srv.Close)
	return srv
}

// A role the run does not use needs no endpoint; one it uses fails with
// the reason.
func TestRolesNeed(t *testing.T) {
	dir := t.TempDir()
	srv := koFake(t, llmtest.Options{})
	models := writeModels(t, dir, fmt.Sprintf("endpoints:\n  k:\n    base_url: %s/v1\n    model: km\n", srv.URL))
	m, err := Open(Settings{Models: models, Assign: []Assignment{{Role: "writer", Aliases: []string{"k"}}}}, "duo", duoRoles, llm.Config{}, errors.New("no endpoint"), func(string) string { return "" })
	if err != nil || m.Need(Writer) != nil || m.Need(Judge) == nil {
		t.Fatalf("%v; need writer %v, judge %v", err, m.Need(Writer), m.Need(Judge))
	}
	if _, err := m.Caller(Judge).Call(context.Background(), llm.Request{}); err == nil || !strings.HasPrefix(err.Error(), "role judge has no endpoint") {
		t.Fatalf("judge call: %v", err)
	}
}

// A slow endpoint never holds the other's window: with the judge's one
// slot held by a request that does not come back, the writer's calls
// all finish.
func TestRolesWindowsAreSeparate(t *testing.T) {
	release := make(chan struct{})
	var once sync.Once
	done := func() { once.Do(func() { close(release) }) }
	defer done()
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
		http.Error(w, "late", http.StatusServiceUnavailable)
	}))
	defer slow.Close()
	fast := koFake(t, llmtest.Options{})
	dir := t.TempDir()
	models := writeModels(t, dir, fmt.Sprintf("endpoints:\n  fast:\n    base_url: %s/v1\n    model: f\n    concurrency: 2\n  slow:\n    base_url: %s/v1\n    model: s\n    concurrency: 1\n", fast.URL, slow.URL))
	m, err := Open(Settings{Models: models, Assign: []Assignment{{Role: "writer", Aliases: []string{"fast"}}, {Role: "judge", Aliases: []string{"slow"}}}}, "duo", duoRoles,
		llm.Config{MaxRetries: 0, Timeout: time.Minute}, nil, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go m.Caller(Judge).Call(ctx, llm.Request{ID: "x", Call: "judge", Messages: []llm.Message{llm.User("hold")}})
	for _, inFlight := m.Client("slow").Activity(); inFlight == 0; _, inFlight = m.Client("slow").Activity() {
		time.Sleep(time.Millisecond)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := m.Caller(Writer).Call(ctx, llm.Request{ID: fmt.Sprint(i), Call: "write", Schema: "echo", Messages: []llm.Message{llm.User(fmt.Sprint("s", i))}})
			errs <- err
		}()
	}
	wg.Wait() // would hang if the writer waited for the judge's slot
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if fast.Count() != 8 {
		t.Fatalf("fast got %d requests", fast.Count())
	}
	done()
}

// koReply is llmtest.KoreanReply, the fake model of these tests.
var koReply = llmtest.KoreanReply
