// Command fakelabeller serves the fake labelling model of labeltest on a
// local port (an OpenAI-compatible endpoint, pkg/llm/llmtest), for shell
// tests of nglabel in a pipeline (testdata/label/chain.sh):
//
//	go run ./filters/label/labeltest/fakelabeller --url-file url &
//	NG_BASE_URL=$(cat url) NG_MODEL=fake nglabel ...
//
// It runs until SIGINT or SIGTERM.
package main

import (
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/ngkit/ngkit/filters/label/labeltest"
	"github.com/ngkit/ngkit/pkg/llm/llmtest"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen on `HOST:PORT`")
	urlFile := flag.String("url-file", "", "write the base URL to `FILE` once listening")
	rate := flag.Float64("fault-rate", 0, "share of requests that get a fault (every kind)")
	latency := flag.Duration("latency", 0, "delay every reply")
	flag.Parse()
	l, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "fakelabeller: %v\n", err)
		os.Exit(2)
	}
	s, hs := llmtest.Listen(l, llmtest.Options{Reply: labeltest.Answer, FaultRate: *rate, Latency: *latency,
		RetryAfter: 5 * time.Millisecond, SlowFor: 2 * time.Second, NoRecord: true})
	if *urlFile != "" {
		if err := os.WriteFile(*urlFile, []byte(s.URL+"\n"), 0o644); err != nil {
			fmt.Fprintf(os.Stderr, "fakelabeller: %v\n", err)
			os.Exit(2)
		}
	}
	fmt.Println(s.URL)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	hs.Close()
	fmt.Fprintf(os.Stderr, "fakelabeller: served %d requests\n", s.Count())
}
