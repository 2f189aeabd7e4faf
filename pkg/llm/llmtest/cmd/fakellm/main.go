// Command fakellm serves the fake OpenAI-compatible endpoint of
// pkg/llm/llmtest on a local port, for shell tests and benchmarks:
//
//	fakellm --addr 127.0.0.1:18080 --latency 50ms --fault-rate 0.2 &
//	ngv2r --base-url http://127.0.0.1:18080/v1 --model fake ...
//
// It prints its base URL on stdout and runs until SIGINT or SIGTERM.
package main

import (
	"os"

	"github.com/ngkit/ngkit/pkg/llm/llmtest"
)

func main() { os.Exit(llmtest.Main(os.Args[1:], os.Stdout, os.Stderr)) }
