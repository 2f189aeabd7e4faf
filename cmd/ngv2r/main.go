// Command ngv2r turns seeds into adherence, violation and Violation-to-Resolution dialogues with an LLM. See `ngv2r --help`.
package main

import (
	"os"

	"github.com/ngkit/ngkit/cmd/internal/app"
	"github.com/ngkit/ngkit/cmd/internal/cli"
	"github.com/ngkit/ngkit/cmd/internal/demo"
)

func main() { os.Exit(app.Main(cli.Ngv2r, demo.Endpoint)) }
