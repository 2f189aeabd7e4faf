package llm

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// The fakellm command (as shell tests run it): serves on a port, prints
// its URL (also to --url-file), stops cleanly on SIGTERM.
func TestFakeLLMCommand(t *testing.T) {
	urlFile := filepath.Join(t.TempDir(), "url")
	cmd := exec.Command(os.Args[0], "--url-file", urlFile, "--fault-rate", "0.5", "--faults", "500,empty", "--retry-after", "1ms")
	cmd.Env = append(os.Environ(), "NGKIT_TEST_ROLE=fakellm")
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	url, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	url = strings.TrimSpace(url)
	if b, _ := os.ReadFile(urlFile); strings.TrimSpace(string(b)) != url || !strings.HasSuffix(url, "/v1") {
		t.Errorf("url %q, file %q", url, b)
	}
	c := testClient(t, Config{BaseURL: url, Backoff: 1, MaxRetries: 10})
	for i := 0; i < 10; i++ {
		if _, err := c.Call(context.Background(), Request{Call: "c", Messages: []Message{User(strings.Repeat("y", i))}}); err != nil {
			t.Fatal(err)
		}
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil || !strings.Contains(stderr.String(), "fakellm: served ") {
		t.Errorf("exit %v: %s", err, stderr.String())
	}
	bad := exec.Command(os.Args[0], "--faults", "gremlins")
	bad.Env = append(os.Environ(), "NGKIT_TEST_ROLE=fakellm")
	if out, err := bad.CombinedOutput(); err == nil || !strings.Contains(string(out), `unknown fault "gremlins"`) {
		t.Errorf("bad fault: %v %s", err, out)
	}
}
