// Command ngseed turns norms into scenario/situation seeds with an LLM. See `ngseed --help`.
package main

import (
	"os"

	"github.com/ngkit/ngkit/cmd/internal/app"
	"github.com/ngkit/ngkit/cmd/internal/cli"
	"github.com/ngkit/ngkit/cmd/internal/demo"
)

func main() { os.Exit(app.Main(cli.Ngseed, demo.Endpoint)) }
