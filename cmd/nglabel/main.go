// Command nglabel labels dialogue turns (norm, intent, emotion, stage, safety) and judges dialogue quality with an LLM. See `nglabel --help`.
package main

import (
	"os"

	"github.com/ngkit/ngkit/cmd/internal/app"
	"github.com/ngkit/ngkit/cmd/internal/cli"
	"github.com/ngkit/ngkit/cmd/internal/demo"
)

func main() { os.Exit(app.Main(cli.Nglabel, demo.Endpoint)) }
