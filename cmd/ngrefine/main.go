// Command ngrefine refines seeds toward expert exemplars with an LLM judge. See `ngrefine --help`.
package main

import (
	"os"

	"github.com/ngkit/ngkit/cmd/internal/cli"
	"github.com/ngkit/ngkit/pkg/pipeline"
)

func main() { os.Exit(cli.Ngrefine(pipeline.OSEnv())) }
