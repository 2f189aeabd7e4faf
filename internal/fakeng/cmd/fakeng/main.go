// Command fakeng serves the fake model of every pipeline stage
// (internal/fakeng) on an OpenAI-compatible endpoint (pkg/llm/llmtest),
// for shell tests (scripts/e2e.sh):
//
//	go build -o fakeng ./internal/fakeng/cmd/fakeng
//	./fakeng --url-file url &
//	NG_BASE_URL=$(cat url) NG_MODEL=fake ngseed ... | ngrefine | ngv2r | nglabel
//
// It runs until SIGINT or SIGTERM.
package main

import (
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/ngkit/ngkit/internal/fakeng"
	"github.com/ngkit/ngkit/pkg/llm/llmtest"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen on `HOST:PORT` (port 0: any free port)")
	urlFile := flag.String("url-file", "", "write the base URL to `FILE` once listening")
	rate := flag.Float64("fault-rate", 0, "share of requests that get a fault")
	kinds := flag.String("faults", "", "the fault kinds drawn, comma-separated (default every kind)")
	latency := flag.Duration("latency", 0, "delay every reply")
	variant := flag.Int("label-variant", 0, "answer nglabel as a labeller that differs from the others: `N` shifts which turns get another intent (0: the common answer)")
	flag.Parse()
	faults, err := parseFaults(*kinds)
	if err != nil {
		fail(err)
	}
	m, err := fakeng.New()
	if err != nil {
		fail(err)
	}
	m.LabelVariant = *variant
	l, err := net.Listen("tcp", *addr)
	if err != nil {
		fail(err)
	}
	// Slow replies take 10 s: past the clients' --timeout in the tests.
	s, hs := llmtest.Listen(l, llmtest.Options{Reply: m.Reply, Logprobs: m.Logprobs, FaultRate: *rate, Faults: faults, Latency: *latency,
		RetryAfter: 5 * time.Millisecond, SlowFor: 10 * time.Second, NoRecord: true})
	if *urlFile != "" {
		// Written whole, then renamed: a script polling for it never reads half a URL.
		if err := os.WriteFile(*urlFile+".tmp", []byte(s.URL+"\n"), 0o644); err != nil {
			fail(err)
		}
		if err := os.Rename(*urlFile+".tmp", *urlFile); err != nil {
			fail(err)
		}
	}
	fmt.Println(s.URL)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	hs.Close()
	fmt.Fprintf(os.Stderr, "fakeng: served %d requests\n", s.Count())
}

// parseFaults reads --faults: "" is every kind (nil).
func parseFaults(s string) ([]llmtest.Fault, error) {
	if s == "" {
		return nil, nil
	}
	var fs []llmtest.Fault
	for _, name := range strings.Split(s, ",") {
		f := llmtest.Fault(strings.TrimSpace(name))
		if !slices.Contains(llmtest.AllFaults, f) {
			return nil, fmt.Errorf("unknown fault %q (known: %v)", f, llmtest.AllFaults)
		}
		fs = append(fs, f)
	}
	return fs, nil
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "fakeng: %v\n", err)
	os.Exit(2)
}
