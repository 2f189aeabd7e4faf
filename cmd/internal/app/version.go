package app

import (
	"fmt"
	"github.com/ngkit/ngkit/pkg/suggest"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/pflag"
)

// ldCommit is set by scripts/install.sh (-ldflags -X) from git, for builds
// that carry no VCS stamp (-buildvcs=false, a worktree Go cannot read).
var ldCommit string

// Version is the line --version prints: the module version, the commit
// the binary was built from (from the build's VCS stamp; "+dirty" when the
// tree had changes), and the Go version.
func Version() string {
	mod, commit, stamped := "(devel)", "unknown", ldCommit
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			mod = bi.Main.Version
		}
		dirty := ""
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					dirty = "+dirty"
				}
			}
		}
		commit += dirty
	}
	if commit == "unknown" && stamped != "" {
		commit = stamped
	}
	return fmt.Sprintf("ngkit %s, commit %s, %s", mod, commit, runtime.Version())
}

// didYouMean turns pflag's "unknown flag: --cultre" into the same line
// with the program's nearest flag ("did you mean --culture?"), when one is
// near enough to be a typo.
func (p *Program) didYouMean(err error) string {
	msg := err.Error()
	name, ok := strings.CutPrefix(msg, "unknown flag: --")
	if !ok {
		return msg
	}
	name, _, _ = strings.Cut(name, "=")
	var names []string
	p.Flags.VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	best, ok := suggest.Nearest(name, names)
	if !ok {
		return msg
	}
	return msg + ": did you mean --" + best + "?"
}
