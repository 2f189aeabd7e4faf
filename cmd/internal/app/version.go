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

// editDistance is the Levenshtein distance of a and b, by bytes (flag
// names are ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
