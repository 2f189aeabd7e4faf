// Command ngpact evaluates models on PACT items: culture-following versus
// preference-allowing distributions. See `ngpact --help`.
package main

import (
	"os"

	"github.com/ngkit/ngkit/cmd/internal/app"
	"github.com/ngkit/ngkit/cmd/internal/cli"
	"github.com/ngkit/ngkit/cmd/internal/demo"
)

func main() { os.Exit(app.Main(cli.Ngpact, demo.Endpoint)) }
