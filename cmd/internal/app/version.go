package app

import (
	"fmt"
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
	best, bestD := "", 3 // at most 2 edits
	p.Flags.VisitAll(func(f *pflag.Flag) {
		if d := editDistance(name, f.Name); d < bestD || d == bestD && best != "" && f.Name < best {
			best, bestD = f.Name, d
		}
	})
	if best == "" || bestD*2 >= len(name) { // "--ab" is no typo of "--a"
		return msg
	}
	return msg + ": did you mean --" + best + "?"
}

// editDistance is the optimal-string-alignment distance of a and b, by
// bytes (flag names are ASCII): Levenshtein's edits plus the swap of two
// adjacent letters, the commonest typo (--josn is one edit from --json).
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			c := 1
			if a[i-1] == b[j-1] {
				c = 0
			}
			d[i][j] = min(d[i-1][j-1]+c, d[i-1][j]+1, d[i][j-1]+1)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
