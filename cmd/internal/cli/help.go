package cli

import (
	"embed"
	"fmt"
	"strings"

	"github.com/ngkit/ngkit/filters/pact"
	"github.com/ngkit/ngkit/pkg/audit"
	"github.com/ngkit/ngkit/pkg/normbank"
)

// helpFiles are the programs' manuals, Markdown, one file a program
// (help/ngcat.md) and ngcat's formats (help/ngcat/): --help prints them,
// `ngkit help --markdown` makes docs/ of them, `ngkit man` the man pages.
//
//go:embed help
var helpFiles embed.FS

// Help is the help text help/NAME.md (NAME: a program, ngkit, or
// ngcat/FORMAT), with the lists that come from the code filled in:
// {{cultures}}, {{defect_classes}}, {{top_logprobs}}.
func Help(name string) string {
	b, err := helpFiles.ReadFile("help/" + name + ".md")
	if err != nil {
		panic("cli: no help text " + name) // a typo in a program's wiring
	}
	return strings.NewReplacer(
		"{{cultures}}", strings.Join(normbank.BuiltinCultures(), ", "),
		"{{defect_classes}}", strings.Join(audit.DefectNames(), ", "),
		"{{top_logprobs}}", fmt.Sprint(pact.TopLogprobs),
	).Replace(strings.TrimSpace(string(b)))
}
