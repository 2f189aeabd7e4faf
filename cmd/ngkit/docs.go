package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ngkit/ngkit/cmd/internal/app"
	"github.com/ngkit/ngkit/cmd/internal/cli"
	"github.com/ngkit/ngkit/cmd/internal/manual"
)

// ngkitDoc is ngkit's own manual. Its "Programs:" line is read by
// scripts/examples.sh.
func ngkitDoc() *manual.Doc {
	names := cli.Names()
	var table strings.Builder
	table.WriteString("| program | what it does |\n|---|---|\n")
	for _, d := range programDocs() {
		fmt.Fprintf(&table, "| [%s](%s.md) | %s |\n", d.Name, d.Name, d.Summary)
	}
	return &manual.Doc{
		Name:    "ngkit",
		Summary: "culturally grounded, norm-aware dialogue datasets",
		Usage: []string{
			"PROGRAM [flags] [FILE...]",
			"links DIR",
			"help --markdown DIR",
			"man DIR",
			"--version",
		},
		Details: strings.NewReplacer("{{programs}}", strings.Join(names, ", "), "{{program_table}}", table.String()).
			Replace(cli.Help("ngkit")),
		Examples: []string{
			"ngkit ngcat --from normgenesis testdata/normgenesis/*.json --head 2",
			"ngkit help --markdown docs",
			"ngkit man ~/.local/share/man/man1 && man ngcat",
		},
		Exit: "0 done, 2 bad usage; a program's own: see its page.",
	}
}

// programDocs are the programs' manuals, in name order: each program is
// called with Env.Describe, which hands over its help in place of a run.
func programDocs() []*manual.Doc {
	var out []*manual.Doc
	for _, n := range cli.Names() {
		var d *manual.Doc
		env := app.Env{Stdin: strings.NewReader(""), Stdout: new(bytes.Buffer), Stderr: new(bytes.Buffer),
			Describe: func(p *app.Program) { d = p.Doc() }}
		cli.Programs[n](env)
		if d == nil {
			panic("ngkit: " + n + " did not describe itself") // every program parses its flags
		}
		out = append(out, d)
	}
	return out
}

// writeDocs writes DIR/<name><ext> for ngkit and every program, each made
// by write.
func writeDocs(dir, ext string, write func(*manual.Doc, *bytes.Buffer)) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return app.UsageError("ngkit", err)
	}
	for _, d := range append([]*manual.Doc{ngkitDoc()}, programDocs()...) {
		var b bytes.Buffer
		write(d, &b)
		path := filepath.Join(dir, d.Name+ext)
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			return app.UsageError("ngkit", err)
		}
	}
	return nil
}

// markdown writes the Markdown reference (docs/).
func markdown(dir string) error {
	return writeDocs(dir, ".md", func(d *manual.Doc, b *bytes.Buffer) { d.WriteMarkdown(b) })
}

// man writes the man pages.
func man(dir string) error {
	return writeDocs(dir, ".1", func(d *manual.Doc, b *bytes.Buffer) { d.WriteMan(b, app.Version()) })
}
