package cli

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/cmd/internal/app"
	"github.com/ngkit/ngkit/cmd/internal/manual"
	"github.com/ngkit/ngkit/filters/imports"
	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/record"
	"github.com/spf13/pflag"
)

// A new format is one entry: an importer added to the table (here by the
// test, as a new file would) is in --from's list and its error, its flag
// is in --help, goes with it alone and reaches its constructor, its help
// section is in the manual (docs/ngcat.md is made from it), and it
// imports.
func TestNewFormatIsOneEntry(t *testing.T) {
	saved := importers
	t.Cleanup(func() { importers = saved })
	importers = append(slices.Clone(importers), importer{
		Names: []string{"shout"}, About: "transcripts read aloud",
		Flags:   func() formatFlags { return &shoutFlags{mark: "!"} },
		Section: &app.HelpSection{Title: "--from shout", Body: "Reads transcripts and ends each turn with a mark."},
		New: func(in importIn) (pipeline.Source, error) {
			src, err := imports.NewText(in.Args, imports.TextOptions{Fields: in.Fields, Stdin: in.Stdin})
			return &shoutSource{src, in.Flags.(*shoutFlags).mark}, err
		},
	})

	_, help, _ := run(t, Ngcat, "", "--help")
	for _, want := range []string{
		"episodes (ngsim episode specs, JSONL or CSV), labelstudio or argilla (review exports), shout (transcripts read aloud)",
		"--mark MARK", "with --from shout: end each turn with MARK",
		"--from shout", "Reads transcripts and ends each turn with a mark.",
	} {
		if !strings.Contains(help, want) {
			t.Errorf("ngcat --help has no %q", want)
		}
	}
	var doc *manual.Doc
	Ngcat(app.Env{Stdin: strings.NewReader(""), Stdout: new(bytes.Buffer), Stderr: new(bytes.Buffer), Describe: func(p *app.Program) { doc = p.Doc() }})
	var md bytes.Buffer
	doc.WriteMarkdown(&md)
	for _, want := range []string{"`--mark MARK`", "Reads transcripts and ends each turn with a mark."} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("ngcat's Markdown manual has no %q", want)
		}
	}

	code, out, stderr := run(t, Ngcat, "A: hello\nB: hi\n", "--from", "shout", "--mark", "?!", "--culture", "american")
	if code != 0 || !strings.Contains(out, `"text":"hello?!"`) || !strings.Contains(out, `"text":"hi?!"`) {
		t.Errorf("--from shout --mark '?!': exit %d, %q, %q", code, out, stderr)
	}
	if code, _, stderr := run(t, Ngcat, "", "--from", "text", "--mark", "?"); code != 2 || !strings.Contains(stderr, "--mark goes with --from shout") {
		t.Errorf("--mark without --from shout: exit %d, %q", code, stderr)
	}
	if code, _, stderr := run(t, Ngcat, "", "--from", "whisper"); code != 2 || !strings.Contains(stderr, "labelstudio, argilla or shout") {
		t.Errorf("--from whisper: exit %d, %q", code, stderr)
	}
	if code, _, stderr := run(t, Ngcat, "", "--from", "shout", "--mark", ""); code != 2 || !strings.Contains(stderr, "--mark: want a mark") {
		t.Errorf("--mark '': exit %d, %q (a format's own check)", code, stderr)
	}
}

type shoutFlags struct{ mark string }

func (f *shoutFlags) Register(fs *pflag.FlagSet) {
	fs.StringVar(&f.mark, "mark", f.mark, "with --from shout: end each turn with `MARK`")
}

func (f *shoutFlags) Check() error {
	if f.mark == "" {
		return errors.New("--mark: want a mark")
	}
	return nil
}

type shoutSource struct {
	pipeline.Source
	mark string
}

func (s *shoutSource) Next() (pipeline.Item, error) {
	it, err := s.Source.Next()
	shout := func(rec *record.Record) {
		for i := range rec.Turns {
			rec.Turns[i].Text += s.mark
		}
	}
	switch {
	case it.Rec != nil:
		shout(it.Rec)
	case it.Decode != nil: // decoded on the workers
		decode := it.Decode
		it.Decode = func(raw []byte) (*record.Record, error) {
			rec, err := decode(raw)
			if rec != nil {
				shout(rec)
			}
			return rec, err
		}
	}
	return it, err
}
