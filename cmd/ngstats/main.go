// Command ngstats reports corpus statistics, language consistency and defects of ngkit records. See `ngstats --help`.
package main

import (
	"os"

	"github.com/ngkit/ngkit/cmd/internal/cli"
	"github.com/ngkit/ngkit/pkg/pipeline"
)

func main() { os.Exit(cli.Ngstats(pipeline.OSEnv())) }
