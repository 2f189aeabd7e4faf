// Command ngkit is every ngkit program in one binary. Called through a link
// named after a program (ngcat, ngstats, ...) it is that program; called as
// ngkit, the first argument names the program. `ngkit links DIR` makes the
// links; `ngkit help --markdown DIR` and `ngkit man DIR` write the manuals
// (docs.go). One binary keeps the install small: the language models of
// lingua-go are embedded once instead of once per program.
package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"

	"github.com/ngkit/ngkit/cmd/internal/app"
	"github.com/ngkit/ngkit/cmd/internal/cli"
	"github.com/ngkit/ngkit/cmd/internal/demo"
)

func main() {
	// NGKIT_CPUPROFILE=FILE writes a CPU profile of the run, NGKIT_MEMPROFILE
	// a heap profile (live objects as of the run's last GC cycle), for
	// finding where time and memory go (docs/speed.md).
	if path := os.Getenv("NGKIT_CPUPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil && pprof.StartCPUProfile(f) == nil {
			defer f.Close()
			defer pprof.StopCPUProfile()
		}
	}
	code := run(os.Args)
	if path := os.Getenv("NGKIT_MEMPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil {
			pprof.Lookup("heap").WriteTo(f, 0)
			f.Close()
		}
	}
	if code != 0 {
		pprof.StopCPUProfile() // os.Exit runs no deferred calls
		os.Exit(code)
	}
}

func run(argv []string) int {
	env := app.OSEnv()
	env.Demo = demo.Endpoint // --model demo: the framework has no model of its own
	return app.Exit(env, dispatch(env, argv))
}

// dispatch runs the program that argv names.
func dispatch(env app.Env, argv []string) error {
	name := strings.TrimSuffix(filepath.Base(argv[0]), ".exe")
	if prog, ok := cli.Programs[name]; ok {
		return prog(env)
	}
	if len(argv) < 2 || argv[1] == "-h" || argv[1] == "--help" || argv[1] == "help" && len(argv) == 2 {
		ngkitDoc().WriteText(env.Stdout)
		if len(argv) < 2 {
			return &app.ExitError{Code: app.ExitUsage}
		}
		return nil
	}
	if argv[1] == "help" {
		if len(argv) != 4 || argv[2] != "--markdown" {
			return app.UsageError("ngkit", errors.New("usage: ngkit help --markdown DIR"))
		}
		return markdown(argv[3])
	}
	if argv[1] == "man" {
		if len(argv) != 3 {
			return app.UsageError("ngkit", errors.New("usage: ngkit man DIR"))
		}
		return man(argv[2])
	}
	if argv[1] == "--version" || argv[1] == "version" {
		fmt.Fprintln(env.Stdout, app.Version())
		return nil
	}
	if argv[1] == "links" {
		if len(argv) != 3 {
			return app.UsageError("ngkit", errors.New("usage: ngkit links DIR"))
		}
		return links(argv[2])
	}
	prog, ok := cli.Programs[argv[1]]
	if !ok {
		return app.UsageError("ngkit", fmt.Errorf("unknown program %q (programs: %s)", argv[1], strings.Join(cli.Names(), ", ")))
	}
	env.Args = argv[2:]
	return prog(env)
}

// links makes DIR/<program> -> this executable for every program.
func links(dir string) error {
	self, err := os.Executable()
	if err == nil {
		self, err = filepath.EvalSymlinks(self)
	}
	if err != nil {
		return app.UsageError("ngkit", fmt.Errorf("cannot find my own executable: %v", err))
	}
	for _, n := range cli.Names() {
		l := filepath.Join(dir, n)
		os.Remove(l)
		if err := os.Symlink(self, l); err != nil {
			return app.UsageError("ngkit", err)
		}
		fmt.Println(l, "->", self)
	}
	return nil
}
