// Package cli holds the programs: each wires its flags to its stages and
// hands them to the shared runner (cmd/internal/app). Each takes the
// process environment and returns an error that carries the exit status
// (app.Exit prints it and returns the status; only main calls os.Exit).
package cli

import (
	"sort"

	"github.com/ngkit/ngkit/cmd/internal/app"
)

// Programs maps program names to their entry points, for the multi-call
// ngkit binary.
var Programs = map[string]func(app.Env) error{
	"ngcat":    Ngcat,
	"ngrefine": Ngrefine,
	"ngseed":   Ngseed,
	"ngsim":    Ngsim,
	"nglabel":  Nglabel,
	"ngstats":  Ngstats,
	"ngv2r":    Ngv2r,
	"ngpact":   Ngpact,
}

// Names lists the programs in order.
func Names() []string {
	var out []string
	for n := range Programs {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
