package pipeline

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/cheggaaa/pb/v3"
	"github.com/ngkit/ngkit/pkg/recio"
)

// Progress draws one bar on stderr.
//
// The rule for pipelines (several programs sharing one terminal): only the
// last stage draws, that is the program whose stdout is not a pipe (a
// terminal or a file); upstream stages stay silent unless --progress is
// given. A run whose stderr is not a terminal never draws.
type Progress struct {
	mu  sync.Mutex
	bar *pb.ProgressBar
	t0  time.Time
}

// WantProgress applies the rule above: quiet wins; otherwise stderr must be
// a terminal, and stdout must not be a pipe unless forced.
func WantProgress(stderr, stdout io.Writer, force, quiet bool) bool {
	if quiet || !recio.IsTerminal(stderr) {
		return false
	}
	return force || !isPipe(stdout)
}

func isPipe(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeNamedPipe != 0
}

// NewProgress starts a bar named after the program.
func NewProgress(w io.Writer, name string) *Progress {
	bar := pb.New64(0)
	bar.SetWriter(w)
	bar.SetRefreshRate(200 * time.Millisecond)
	bar.SetTemplateString(`{{string . "prefix"}} {{counters . }} records {{speed . "%s/s" ""}} {{string . "suffix"}}`)
	bar.Set("prefix", name)
	bar.Start()
	return &Progress{bar: bar, t0: time.Now()}
}

// Update shows the counts so far.
func (p *Progress) Update(st Stats) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.bar.SetCurrent(st.In)
	if st.Failed > 0 {
		p.bar.Set("suffix", fmt.Sprintf("(%d failed)", st.Failed))
	}
}

// Finish stops the bar, leaving the final counts on screen.
func (p *Progress) Finish(st Stats) {
	p.Update(st)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.bar.Finish()
}
