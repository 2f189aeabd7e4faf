package llm

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

	"github.com/ngkit/ngkit/pkg/llm/llmtest"
)

var duoRoles = []Role{{Name: RoleWriter, Help: "writes the sentence"}, {Name: RoleJudge, Help: "judges it"}}

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
	m, err := OpenModels(RoleSettings{Models: models, Assign: []Assignment{{Role: "writer", Aliases: []string{"k"}}}}, "duo", duoRoles, allRoleNames, Config{}, errors.New("no endpoint"), func(string) string { return "" })
	if err != nil || m.Need(RoleWriter) != nil || m.Need(RoleJudge) == nil {
		t.Fatalf("%v; need writer %v, judge %v", err, m.Need(RoleWriter), m.Need(RoleJudge))
	}
	if _, err := m.Caller(RoleJudge).Call(context.Background(), Request{}); err == nil || !strings.HasPrefix(err.Error(), "role judge has no endpoint") {
		t.Fatalf("judge call: %v", err)
	}
}

// The flags' endpoint keeps the cache keys it had before roles; a models
// file's alias is part of the key.
func TestRolesCacheEndpoint(t *testing.T) {
	for _, c := range []struct{ alias, want string }{{"", "http://x/v1"}, {DefaultAlias, "http://x/v1"}, {"a", "http://x/v1\x00alias=a"}} {
		cl, err := New(Config{BaseURL: "http://x/v1", Model: "m", Alias: c.alias})
		if err != nil {
			t.Fatal(err)
		}
		if got := cl.cacheEndpoint(); got != c.want {
			t.Errorf("alias %q: %q, want %q", c.alias, got, c.want)
		}
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
	m, err := OpenModels(RoleSettings{Models: models, Assign: []Assignment{{Role: "writer", Aliases: []string{"fast"}}, {Role: "judge", Aliases: []string{"slow"}}}}, "duo", duoRoles, allRoleNames,
		Config{MaxRetries: 0, Timeout: time.Minute}, nil, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go m.Caller(RoleJudge).Call(ctx, Request{ID: "x", Call: "judge", Messages: []Message{User("hold")}})
	for m.Client("slow").win.inflightNow() == 0 {
		time.Sleep(time.Millisecond)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := m.Caller(RoleWriter).Call(ctx, Request{ID: fmt.Sprint(i), Call: "write", Schema: "echo", Messages: []Message{User(fmt.Sprint("s", i))}})
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

// allRoleNames are every program's roles (the programs' list is in
// cmd/internal/app).
var allRoleNames = []string{RoleWriter, RoleRewriter, RoleJudge, RoleLabeller, RolePairwise, RoleSubject, RoleUser, RoleAssistant}
