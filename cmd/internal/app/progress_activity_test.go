package app

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ngkit/ngkit/internal/ptytest"
	"github.com/ngkit/ngkit/pkg/llm/llmtest"
	"golang.org/x/sys/unix"
)

// slowFirst is the fake model behind a server that answers the first
// record's call after 2.5 s and the others' after 150 ms: records are
// written in order, so nothing is written for 2.5 s while calls finish
// (one at a time, at --concurrency 2).
func slowFirst(t *testing.T) string {
	t.Helper()
	fake := llmtest.NewHandler(llmtest.Options{Reply: koReply})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		d := 150 * time.Millisecond
		if bytes.Contains(body, []byte(`"scenario 0"`)) {
			d = 2500 * time.Millisecond
		}
		time.Sleep(d)
		r.Body = io.NopCloser(bytes.NewReader(body))
		fake.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// An upstream stage (stdout a pipe, stderr a terminal) publishes on the
// board its records written, not read, and its calls finished and in
// flight: the entry moves while the first record's call is still out and
// nothing is written ("ngv2r 0 records" for the whole run).
func TestProgressBoardMovesDuringCalls(t *testing.T) {
	xdg := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", xdg)
	pg, err := unix.Getpgid(0)
	if err != nil {
		t.Skip("no process group")
	}
	entry := filepath.Join(xdg, "ngkit", "pg-"+strconv.Itoa(pg), strconv.Itoa(os.Getpid()))
	_, pts := ptytest.Open(t)
	r, w, _ := os.Pipe()
	go io.Copy(io.Discard, r)
	defer r.Close()
	in := writeRecords(t, t.TempDir(), 12)
	url := slowFirst(t)

	var mu sync.Mutex
	var lines []string
	stop := make(chan struct{})
	var polled sync.WaitGroup
	polled.Add(1)
	go func() {
		defer polled.Done()
		for {
			if b, err := os.ReadFile(entry); err == nil {
				mu.Lock()
				if l := strings.TrimSpace(string(b)); len(lines) == 0 || lines[len(lines)-1] != l {
					lines = append(lines, l)
				}
				mu.Unlock()
			}
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	env := Env{Args: []string{"--no-cache", "--backoff", "1ms", "--base-url", url, "--model", "fake", "--concurrency", "2", in},
		Stdin: strings.NewReader(""), Stdout: w, Stderr: pts, Getenv: func(string) string { return "" }}
	if code := Exit(env, koecho(env)); code != 0 {
		t.Fatalf("exit %d", code)
	}
	w.Close()
	close(stop)
	polled.Wait()
	if b, err := os.ReadFile(entry); err == nil { // the final one
		lines = append(lines, strings.TrimSpace(string(b)))
	}
	// Each line: start name written final calls inflight.
	var whileNone, last []string
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) != 6 || f[1] != "koecho" {
			t.Fatalf("board entry %q", l)
		}
		if f[2] == "0" && f[4] != "0" {
			whileNone = append(whileNone, l)
		}
		last = f
	}
	if len(whileNone) < 2 {
		t.Errorf("the entry did not move while nothing was written (calls finishing): %q", lines)
	}
	if last == nil || last[2] != "12" || last[3] != "true" || last[4] != "12" || last[5] != "0" {
		t.Errorf("final entry %q, want 12 written, 12 calls, none in flight (all: %q)", last, lines)
	}
}

// The drawing stage's bar shows its calls beside its count, and moves
// while nothing is written.
func TestProgressBarShowsCalls(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	ptm, pts := ptytest.Open(t)
	var raw bytes.Buffer
	var mu sync.Mutex
	go func() {
		b := make([]byte, 4096)
		for {
			n, err := ptm.Read(b)
			mu.Lock()
			raw.Write(b[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	dir := t.TempDir()
	in := writeRecords(t, dir, 12)
	env := Env{Args: []string{"--no-cache", "--backoff", "1ms", "--base-url", slowFirst(t), "--model", "fake", "--concurrency", "2", "--progress", in, "-o", filepath.Join(dir, "out.jsonl")},
		Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: pts, Getenv: func(string) string { return "" }}
	if code := Exit(env, koecho(env)); code != 0 {
		t.Fatalf("exit %d", code)
	}
	time.Sleep(100 * time.Millisecond)
	mu.Lock()
	s := raw.String()
	mu.Unlock()
	seen := map[string]bool{}
	for _, m := range regexp.MustCompile(`koecho 0 records [^\r]*\(([1-9]\d*) calls, (\d+) in flight\)`).FindAllStringSubmatch(s, -1) {
		seen[m[1]] = true
	}
	if len(seen) < 2 {
		t.Errorf("the bar did not show calls finishing while nothing was written:\n%q", s)
	}
}
