// Command ngv2r turns seeds into adherence, violation and Violation-to-Resolution dialogues with an LLM. See `ngv2r --help`.
package main

import (
	"os"

	"github.com/ngkit/ngkit/cmd/internal/cli"
	"github.com/ngkit/ngkit/pkg/pipeline"
)

func main() { os.Exit(cli.Ngv2r(pipeline.OSEnv())) }
