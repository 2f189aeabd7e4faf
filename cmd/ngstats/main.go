// Command ngstats reports corpus statistics, language consistency and defects of ngkit records. See `ngstats --help`.
package main

import (
	"os"

	"github.com/ngkit/ngkit/cmd/internal/app"
	"github.com/ngkit/ngkit/cmd/internal/cli"
)

func main() { os.Exit(app.Main(cli.Ngstats, nil)) }
