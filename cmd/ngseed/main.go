// Command ngseed turns norms into scenario/situation seeds with an LLM. See `ngseed --help`.
package main

import (
	"os"

	"github.com/ngkit/ngkit/cmd/internal/cli"
	"github.com/ngkit/ngkit/pkg/pipeline"
)

func main() { os.Exit(cli.Ngseed(pipeline.OSEnv())) }
