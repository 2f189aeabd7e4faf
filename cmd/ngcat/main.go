// Command ngcat converts, imports, samples, splits and explodes ngkit
// record streams. See `ngcat --help`.
package main

import (
	"os"

	"github.com/ngkit/ngkit/cmd/internal/cli"
	"github.com/ngkit/ngkit/pkg/pipeline"
)

func main() { os.Exit(cli.Ngcat(pipeline.OSEnv())) }
