// Package manual is the help model of an ngkit program and its three
// renderings: plain text for --help on a terminal, Markdown for docs/ and
// roff for man pages. The prose is Markdown (a small subset: headings,
// paragraphs, lists, fenced code, tables, `code`, **bold**, links), so
// that one text serves all three.
package manual

import (
	"strings"

	"github.com/spf13/pflag"
)

// Doc is one program's manual.
type Doc struct {
	Name    string // ngcat
	Summary string // one line
	// Usage lines, each without the program name ("[flags] [FILE...]").
	Usage []string
	// Details is the Markdown after the summary.
	Details string
	// Sections follow Details, each under its title.
	Sections []Section
	// Flags are the program's flags (none: no Flags section).
	Flags []Flag
	// FlagUsages is the flag list of --help as pflag prints it.
	FlagUsages string
	// Examples are shell lines, one per example.
	Examples []string
	// Exit says what the exit statuses mean.
	Exit string
}

// Section is a titled Markdown section.
type Section struct {
	Title, Body string
}

// Flag is one flag of a Doc.
type Flag struct {
	Short, Long string
	Arg         string // the value's name (FILE), "" for a bool
	Default     string // "" when the zero value
	Usage       string
}

// Spec is the flag as written: "-o, --output FILE".
func (f Flag) Spec() string {
	s := "--" + f.Long
	if f.Short != "" {
		s = "-" + f.Short + ", " + s
	}
	if f.Arg != "" {
		s += " " + f.Arg
	}
	return s
}

// FlagsOf lists the visible flags of fs in their order, as pflag's
// FlagUsages shows them.
func FlagsOf(fs *pflag.FlagSet) []Flag {
	var out []Flag
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		arg, usage := pflag.UnquoteUsage(f)
		if f.Value.Type() == "bool" {
			arg = ""
		}
		def := f.DefValue
		switch def {
		case "", "false", "0", "[]", "<nil>", "0s":
			def = ""
		}
		out = append(out, Flag{Short: f.Shorthand, Long: f.Name, Arg: arg, Default: def, Usage: usage})
	})
	return out
}

// SplitLines splits text into its trimmed non-empty lines.
func SplitLines(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}
