// Command ngrefine refines seeds toward expert exemplars with an LLM judge. See `ngrefine --help`.
package main

import (
	"os"

	"github.com/ngkit/ngkit/cmd/internal/app"
	"github.com/ngkit/ngkit/cmd/internal/cli"
	"github.com/ngkit/ngkit/cmd/internal/demo"
)

func main() { os.Exit(app.Main(cli.Ngrefine, demo.Endpoint)) }
