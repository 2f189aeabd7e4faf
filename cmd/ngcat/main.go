// Command ngcat converts, imports, samples, splits and explodes ngkit
// record streams. See `ngcat --help`.
package main

import (
	"os"

	"github.com/ngkit/ngkit/cmd/internal/app"
	"github.com/ngkit/ngkit/cmd/internal/cli"
)

func main() { os.Exit(app.Main(cli.Ngcat, nil)) }
