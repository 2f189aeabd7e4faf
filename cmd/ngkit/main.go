// Command ngkit is every ngkit program in one binary. Called through a link
// named after a program (ngcat, ngstats, ...) it is that program; called as
// ngkit, the first argument names the program. `ngkit links DIR` makes the
// links. One binary keeps the install small: the language models of
// lingua-go are embedded once instead of once per program.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"

	"github.com/ngkit/ngkit/cmd/internal/cli"
	"github.com/ngkit/ngkit/pkg/pipeline"
)

func main() {
	// NGKIT_CPUPROFILE=FILE writes a CPU profile of the run (for scripts/bench.sh).
	if path := os.Getenv("NGKIT_CPUPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil && pprof.StartCPUProfile(f) == nil {
			code := run(os.Args)
			pprof.StopCPUProfile()
			f.Close()
			os.Exit(code)
		}
	}
	os.Exit(run(os.Args))
}

func run(argv []string) int {
	env := pipeline.OSEnv()
	name := strings.TrimSuffix(filepath.Base(argv[0]), ".exe")
	if prog, ok := cli.Programs[name]; ok {
		return prog(env)
	}
	if len(argv) < 2 || argv[1] == "-h" || argv[1] == "--help" || argv[1] == "help" {
		fmt.Fprintf(env.Stdout, "ngkit — culturally grounded, norm-aware dialogue datasets\n\nUsage:\n  ngkit PROGRAM [flags] [FILE...]   run a program (or call it through a link of its name)\n  ngkit links DIR                   make a link for every program in DIR\n\nPrograms: %s\nEach program has --help.\n", strings.Join(cli.Names(), ", "))
		if len(argv) < 2 {
			return pipeline.ExitUsage
		}
		return pipeline.ExitOK
	}
	if argv[1] == "links" {
		if len(argv) != 3 {
			fmt.Fprintln(env.Stderr, "ngkit: usage: ngkit links DIR")
			return pipeline.ExitUsage
		}
		return links(argv[2])
	}
	prog, ok := cli.Programs[argv[1]]
	if !ok {
		fmt.Fprintf(env.Stderr, "ngkit: unknown program %q (programs: %s)\n", argv[1], strings.Join(cli.Names(), ", "))
		return pipeline.ExitUsage
	}
	env.Args = argv[2:]
	return prog(env)
}

// links makes DIR/<program> -> this executable for every program.
func links(dir string) int {
	self, err := os.Executable()
	if err == nil {
		self, err = filepath.EvalSymlinks(self)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "ngkit: cannot find my own executable: %v\n", err)
		return pipeline.ExitUsage
	}
	for _, n := range cli.Names() {
		l := filepath.Join(dir, n)
		os.Remove(l)
		if err := os.Symlink(self, l); err != nil {
			fmt.Fprintf(os.Stderr, "ngkit: %v\n", err)
			return pipeline.ExitUsage
		}
		fmt.Println(l, "->", self)
	}
	return pipeline.ExitOK
}
