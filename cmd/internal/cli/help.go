package cli

import (
	"embed"
	"fmt"
	"strings"

	"github.com/ngkit/ngkit/filters/label"
	"github.com/ngkit/ngkit/filters/pact"
	"github.com/ngkit/ngkit/pkg/audit"
	"github.com/ngkit/ngkit/pkg/normbank"
	"github.com/ngkit/ngkit/pkg/record"
)

// helpFiles are the programs' manuals, Markdown, one file a program
// (help/ngcat.md) and ngcat's formats (help/ngcat/): --help prints them,
// `ngkit help --markdown` makes docs/ of them, `ngkit man` the man pages.
//
//go:embed help
var helpFiles embed.FS

// Help is the help text help/NAME.md (NAME: a program, ngkit, or
// ngcat/FORMAT), with the lists that come from the code filled in:
// {{cultures}}, {{defect_classes}}, {{top_logprobs}}, {{label_tasks}}
// (nglabel's turn label tasks, a line each, from record.LabelTasks) and
// {{label_defaults}}.
func Help(name string) string {
	b, err := helpFiles.ReadFile("help/" + name + ".md")
	if err != nil {
		panic("cli: no help text " + name) // a typo in a program's wiring
	}
	return strings.NewReplacer(
		"{{cultures}}", strings.Join(normbank.BuiltinCultures(), ", "),
		"{{defect_classes}}", strings.Join(audit.DefectNames(), ", "),
		"{{top_logprobs}}", fmt.Sprint(pact.TopLogprobs),
		"{{label_tasks}}", labelTasksHelp(),
		"{{label_defaults}}", strings.Join(label.DefaultTasks(), ","),
	).Replace(strings.TrimSpace(string(b)))
}

// labelTasksHelp lists the turn label tasks for nglabel's help, one
// "- `name`: values (help)" line each.
func labelTasksHelp() string {
	lines := make([]string, len(record.LabelTasks))
	for i, t := range record.LabelTasks {
		lines[i] = "- `" + t.Name + "`: " + strings.Join(t.Values, " ") + " " + t.Help
	}
	return strings.Join(lines, "\n")
}
