// Package prompt holds the prompt packs of the LLM stages: text/template
// files embedded per stage and culture (packs/<stage>/<task>[.<culture>].tmpl),
// which a user may override file by file with --prompts DIR (same layout).
// Each file defines two templates, "system" and "user", and may define
// more that a stage renders with RenderPart (pact/question's "answer", the
// cue that ends a base model's plain-text prompt). The pack's version
// (packs/VERSION, plus a hash of any overriding files) goes into every
// record's gen, so that a corpus says which prompts made it.
package prompt

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"text/template"

	"github.com/ngkit/ngkit/pkg/record"
)

//go:embed packs
var embedded embed.FS

// builtinFS is the embedded packs directory.
var builtinFS = func() fs.FS {
	sub, err := fs.Sub(embedded, "packs")
	if err != nil {
		panic(err)
	}
	return sub
}()

// Prompt is a rendered prompt: a system and a user message.
type Prompt struct {
	System string
	User   string
}

// Pack is a set of prompt templates.
type Pack struct {
	base    fs.FS // the built-in pack
	over    fs.FS // the user's directory, or nil
	dir     string
	version string

	mu    sync.Mutex
	cache map[string]*template.Template
}

// Builtin returns the embedded pack.
func Builtin() *Pack {
	p, _ := Open("")
	return p
}

// Open returns the embedded pack with the files of dir (if not "") taking
// precedence over the embedded ones of the same name. Every template in dir
// must parse, and name a stage directory that exists in the built-in pack,
// so that a typo is an error rather than a silently ignored override.
func Open(dir string) (*Pack, error) { return open(builtinFS, dir) }

func open(base fs.FS, dir string) (*Pack, error) {
	v, err := fs.ReadFile(base, "VERSION")
	if err != nil {
		return nil, err
	}
	p := &Pack{base: base, version: strings.TrimSpace(string(v)), cache: map[string]*template.Template{}}
	if dir == "" {
		return p, nil
	}
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("--prompts: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("--prompts %s: not a directory", dir)
	}
	p.over, p.dir = os.DirFS(dir), dir
	h := sha256.New()
	var names []string
	err = fs.WalkDir(p.over, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(name, ".tmpl") {
			return err
		}
		names = append(names, name)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("--prompts %s: %w", dir, err)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("--prompts %s: no .tmpl files (expected <stage>/<task>[.<culture>].tmpl)", dir)
	}
	sort.Strings(names)
	for _, name := range names {
		stage := path.Dir(name)
		if st, err := fs.Stat(base, stage); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("--prompts %s: %s: no stage %q (stages: %s)", dir, name, stage, strings.Join(p.Stages(), ", "))
		}
		data, err := fs.ReadFile(p.over, name)
		if err != nil {
			return nil, err
		}
		if _, err := parse(name, data); err != nil {
			return nil, fmt.Errorf("--prompts %s: %w", dir, err)
		}
		fmt.Fprintf(h, "%s\x00%d\x00", name, len(data))
		h.Write(data)
	}
	p.version += "+" + hex.EncodeToString(h.Sum(nil))[:8]
	return p, nil
}

// Stages lists the stages of the built-in pack.
func (p *Pack) Stages() []string {
	ents, _ := fs.ReadDir(p.base, ".")
	var out []string
	for _, e := range ents {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}

// Version is the pack's version: the built-in version, with "+<hash>" of
// the overriding files when there are any.
func (p *Pack) Version() string { return p.version }

// funcs are the helpers templates may use.
var funcs = template.FuncMap{
	"join":  strings.Join,
	"upper": strings.ToUpper,
	"add":   func(a, b int) int { return a + b },
	// numbered lists items as "1. a\n2. b".
	"numbered": func(items []string) string {
		var b strings.Builder
		for i, it := range items {
			fmt.Fprintf(&b, "%d. %s\n", i+1, it)
		}
		return strings.TrimRight(b.String(), "\n")
	},
}

func parse(name string, data []byte) (*template.Template, error) {
	t, err := template.New(name).Funcs(funcs).Option("missingkey=error").Parse(string(data))
	if err != nil {
		return nil, err
	}
	for _, part := range []string{"system", "user"} {
		if t.Lookup(part) == nil {
			return nil, fmt.Errorf("%s: defines no %q template ({{define %q}}...{{end}})", name, part, part)
		}
	}
	return t, nil
}

// template finds stage/task for culture: the culture's own file, else the
// generic one; the user's directory first, then the built-in pack.
func (p *Pack) template(stage, task, culture string) (*template.Template, error) {
	// The culture is part of a file name: never a path (records are
	// checked where they enter; this guards every other caller).
	if c := strings.ToLower(strings.TrimSpace(culture)); culture != "" && !record.ValidCultureName(c) {
		return nil, fmt.Errorf("prompt %s/%s: culture %q is not a culture name", stage, task, culture)
	}
	key := stage + "/" + task + "." + culture
	p.mu.Lock()
	defer p.mu.Unlock()
	if t := p.cache[key]; t != nil {
		return t, nil
	}
	var cands []string
	if culture != "" {
		cands = append(cands, path.Join(stage, task+"."+culture+".tmpl"))
	}
	cands = append(cands, path.Join(stage, task+".tmpl"))
	for _, name := range cands {
		for _, src := range []struct {
			fsys fs.FS
			user bool
		}{{p.over, true}, {p.base, false}} {
			if src.fsys == nil {
				continue
			}
			data, err := fs.ReadFile(src.fsys, name)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, err
			}
			shown := name
			if src.user {
				shown = filepath.Join(p.dir, name)
			}
			t, err := parse(shown, data)
			if err != nil {
				return nil, err
			}
			p.cache[key] = t
			return t, nil
		}
	}
	return nil, fmt.Errorf("prompt: no template %s (looked for %s)", key, strings.Join(cands, ", "))
}

// Render renders stage/task for a culture with data.
func (p *Pack) Render(stage, task, culture string, data any) (Prompt, error) {
	t, err := p.template(stage, task, culture)
	if err != nil {
		return Prompt{}, err
	}
	var out [2]string
	for i, part := range []string{"system", "user"} {
		var b bytes.Buffer
		if err := t.ExecuteTemplate(&b, part, data); err != nil {
			return Prompt{}, fmt.Errorf("prompt %s/%s (%s): %w", stage, task, culture, err)
		}
		out[i] = strings.TrimSpace(b.String())
	}
	return Prompt{System: out[0], User: out[1]}, nil
}

// RenderPart renders one more named template of stage/task (beside
// "system" and "user"), when the file defines it; ok is false when it
// does not, so that a caller can fall back to a default.
func (p *Pack) RenderPart(stage, task, culture, part string, data any) (s string, ok bool, err error) {
	t, err := p.template(stage, task, culture)
	if err != nil {
		return "", false, err
	}
	if t.Lookup(part) == nil {
		return "", false, nil
	}
	var b bytes.Buffer
	if err := t.ExecuteTemplate(&b, part, data); err != nil {
		return "", false, fmt.Errorf("prompt %s/%s (%s): %w", stage, task, culture, err)
	}
	return strings.TrimSpace(b.String()), true, nil
}
