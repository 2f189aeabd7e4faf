package pipeline

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cheggaaa/pb/v3"
	"github.com/ngkit/ngkit/pkg/recio"
)

// Progress shows how a run is going, on stderr, only when stderr is a
// terminal.
//
// The rule for pipelines (several programs sharing one terminal): only the
// last stage draws a bar — the program whose stdout is not a pipe (a
// terminal or a file) — and its bar shows every stage's count
// ("ngseed 120 › ngrefine 80 › ngv2r 41 records"). Upstream stages draw
// nothing; they publish their counts on a board that the last stage reads:
// small files under $TMPDIR/ngkit-<uid>/pg-<process group>/, the process
// group being what a shell gives all programs of one pipeline. --progress
// makes an upstream stage draw anyway, -q silences a program.
type Progress struct {
	mu    sync.Mutex
	bar   *pb.ProgressBar // nil: publish only
	board *board          // nil: no board (not unix)
	name  string
	last  time.Time
}

// NewProgress returns nil when nothing is to be shown: quiet, or stderr is
// not a terminal.
func NewProgress(stderr, stdout io.Writer, name string, force, quiet bool) *Progress {
	if quiet || !recio.IsTerminal(stderr) {
		return nil
	}
	p := &Progress{name: name, board: openBoard()}
	if force || !isPipe(stdout) {
		p.bar = pb.New64(0)
		p.bar.SetWriter(stderr)
		p.bar.SetRefreshRate(200 * time.Millisecond)
		p.bar.SetTemplateString(`{{string . "prefix"}}{{counters . }} records {{speed . "%s/s" ""}} {{string . "suffix"}}`)
		p.bar.Set("prefix", name+" ")
		p.bar.Start()
	}
	return p
}

func isPipe(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeNamedPipe != 0
}

// Update shows the counts so far.
func (p *Progress) Update(st Stats) { p.update(st, false) }

func (p *Progress) update(st Stats, final bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if !final && now.Sub(p.last) < 200*time.Millisecond {
		return
	}
	p.last = now
	p.board.publish(p.name, st, final)
	if p.bar == nil {
		return
	}
	p.bar.SetCurrent(st.In)
	if others := p.board.read(); others != "" {
		p.bar.Set("prefix", others+" › "+p.name+" ")
	}
	if st.Failed > 0 {
		p.bar.Set("suffix", fmt.Sprintf("(%d failed)", st.Failed))
	}
}

// Finish stops the bar, leaving the final counts on screen.
func (p *Progress) Finish(st Stats) {
	p.update(st, true)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		p.bar.Finish()
		p.board.clear()
	}
}

// board is the per-pipeline directory of stage counts.
type board struct {
	dir   string
	self  string
	start int64
}

func openBoard() *board {
	pg := processGroup()
	if pg <= 0 {
		return nil
	}
	dir := filepath.Join(os.TempDir(), "ngkit-"+strconv.Itoa(os.Getuid()), "pg-"+strconv.Itoa(pg))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil
	}
	return &board{dir: dir, self: strconv.Itoa(os.Getpid()), start: time.Now().UnixNano()}
}

// publish writes this stage's line atomically: "start name in done".
func (b *board) publish(name string, st Stats, final bool) {
	if b == nil {
		return
	}
	tmp := filepath.Join(b.dir, "."+b.self)
	line := fmt.Sprintf("%d %s %d %t\n", b.start, name, st.In, final)
	if os.WriteFile(tmp, []byte(line), 0o600) == nil {
		os.Rename(tmp, filepath.Join(b.dir, b.self))
	}
}

// read returns the other stages' counts, in pid order, ignoring lines of
// an older pipeline that had the same process group.
func (b *board) read() string {
	if b == nil {
		return ""
	}
	ents, _ := os.ReadDir(b.dir)
	type stage struct {
		pid  int
		text string
	}
	var stages []stage
	for _, e := range ents {
		if e.Name() == b.self || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(b.dir, e.Name()))
		f := strings.Fields(string(raw))
		if err != nil || len(f) != 4 {
			continue
		}
		start, _ := strconv.ParseInt(f[0], 10, 64)
		if d := time.Duration(start - b.start); d < -10*time.Second || d > 10*time.Second {
			continue // not started with us: another pipeline's leftovers
		}
		pid, _ := strconv.Atoi(e.Name())
		stages = append(stages, stage{pid, f[1] + " " + f[2]})
	}
	sort.Slice(stages, func(i, j int) bool { return stages[i].pid < stages[j].pid })
	var parts []string
	for _, s := range stages {
		parts = append(parts, s.text)
	}
	return strings.Join(parts, " › ")
}

// clear removes the board when the drawing stage ends.
func (b *board) clear() {
	if b != nil {
		os.RemoveAll(b.dir)
	}
}
