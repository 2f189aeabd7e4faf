// Command ngsim runs CultureConverse episodes: a simulated user with hidden cultural constraints talks to assistants under test, and a judge scores them. See `ngsim --help`.
package main

import (
	"os"

	"github.com/ngkit/ngkit/cmd/internal/app"
	"github.com/ngkit/ngkit/cmd/internal/cli"
	"github.com/ngkit/ngkit/cmd/internal/demo"
)

func main() { os.Exit(app.Main(cli.Ngsim, demo.Endpoint)) }
