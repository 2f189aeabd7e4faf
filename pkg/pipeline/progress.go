package pipeline

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/cheggaaa/pb/v3"
	"github.com/ngkit/ngkit/pkg/recio"
	"github.com/ngkit/ngkit/pkg/record"
	"github.com/ngkit/ngkit/pkg/safeopen"
	"golang.org/x/term"
)

// Progress shows how a run is going, on stderr, only when stderr is a
// terminal.
//
// The rule for pipelines (several programs sharing one terminal): only the
// last stage draws a bar — the program whose stdout is not a pipe (a
// terminal or a file) — and its bar shows every stage's records written
// ("ngseed 120 › ngrefine 80 › ngv2r 41 records"), and, for a stage that
// calls a model, its calls finished and in flight ("ngv2r 0 (12 calls,
// 16 in flight)"), refreshed twice a second whether or not a record was
// written, so that the line moves during long calls. Upstream stages draw
// nothing; they publish their counts on a board that the last stage reads:
// small files under $XDG_RUNTIME_DIR/ngkit/pg-<process group>/ (or
// $TMPDIR/ngkit-<uid>/, a folder of the user's alone), the process group
// being what a shell gives all programs of one pipeline. --progress
// makes an upstream stage draw anyway, -q silences a program.
//
// When the input's size is known (SetInput: files, Parquet row counts
// from their footers, JSONL by bytes read), the bar shows the total, the
// percentage, the rate, the time left and the failures; otherwise (stdin)
// the count and the rate.
//
// Messages (failures, end-of-run summaries) of every program go through
// MessageWriter: on a terminal each line is written whole, starting by
// clearing the terminal line, so that a message from any program of the
// pipeline replaces the bar line it lands on instead of being glued to it,
// and the drawing stage redraws its bar below at its next refresh.
type Progress struct {
	mu       sync.Mutex
	bar      *pb.ProgressBar // nil: publish only
	board    *board          // nil: no board (not unix)
	name     string
	last     time.Time
	consumed func() int64 // bytes read so far, when the total is in bytes
	// activity, when set, is the stage's model calls finished and in
	// flight (SetActivity); st the last counts, which tick shows again.
	activity func() (done, inFlight int64)
	st       Stats
	stop     chan struct{}
	stopped  sync.WaitGroup
}

// tickEvery is how often the line is refreshed without a record written.
const tickEvery = 500 * time.Millisecond

// Bar templates: of a known total, and of a count.
const (
	countTemplate = `{{string . "prefix"}}{{counters . }} records {{speed . "%s/s" ""}} {{string . "suffix"}}`
	totalTemplate = `{{string . "prefix"}}{{string . "records"}}{{bar . "[" "=" ">" " " "]"}} {{percent . }} {{counters . }} {{speed . "%s/s" ""}} {{rtime . "ETA %s" "%s" ""}} {{string . "suffix"}}`
)

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
		p.bar.SetTemplateString(countTemplate)
		// A terminal that reports no size (script(1), some CI ptys) would
		// get an empty bar: draw 100 columns there.
		if f, ok := stderr.(*os.File); !ok || termWidth(f) <= 0 {
			p.bar.SetWidth(100)
		}
		p.bar.Set("prefix", name+" ")
		p.bar.Start()
	}
	p.stop = make(chan struct{})
	p.stopped.Add(1)
	go p.tick()
	return p
}

// tick refreshes the line (the board entry, the other stages' counts,
// the calls) until Finish, so that it moves while no record is written.
func (p *Progress) tick() {
	defer p.stopped.Done()
	t := time.NewTicker(tickEvery)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.mu.Lock()
			st := p.st
			p.mu.Unlock()
			p.update(st, false)
		}
	}
}

// SetActivity gives the progress the stage's model calls: finished (an
// answer, or a failure for good) and in flight, shown beside its count.
func (p *Progress) SetActivity(f func() (done, inFlight int64)) {
	if p == nil || f == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.activity = f
}

// calls is the activity now: done -1 when there is none.
func (p *Progress) calls() (done, inFlight int64) {
	if p.activity == nil {
		return -1, 0
	}
	return p.activity()
}

// callsText shows the calls: "12 calls, 4 in flight"; "" for none.
func callsText(done, inFlight int64) string {
	if done < 0 {
		return ""
	}
	return fmt.Sprintf("%d calls, %d in flight", done, inFlight)
}

func termWidth(f *os.File) int {
	w, _, err := term.GetSize(int(f.Fd()))
	if err != nil {
		return 0
	}
	return w
}

func isPipe(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeNamedPipe != 0
}

// Draws says whether a bar is drawn (so the input size is worth knowing).
func (p *Progress) Draws() bool { return p != nil && p.bar != nil }

// SetInput gives the bar the size of the input: total records
// (consumed nil) or total bytes read by consumed. A total of 0 leaves the
// bar a count.
func (p *Progress) SetInput(total int64, consumed func() int64) {
	if p == nil || p.bar == nil || total <= 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.consumed = consumed
	p.bar.SetTotal(total)
	p.bar.Set(pb.Bytes, consumed != nil)
	p.bar.Set("records", "0 records ")
	p.bar.SetTemplateString(totalTemplate)
}

// Update shows the counts so far.
func (p *Progress) Update(st Stats) { p.update(st, false) }

func (p *Progress) update(st Stats, final bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.st = st
	now := time.Now()
	if !final && now.Sub(p.last) < 200*time.Millisecond {
		return
	}
	p.last = now
	done, inFlight := p.calls()
	p.board.publish(p.name, st, final, done, inFlight)
	if p.bar == nil {
		return
	}
	// The count is of records written; a known total is of the input read.
	switch {
	case p.consumed != nil:
		// A last line without a newline counts one byte too many.
		p.bar.SetCurrent(min(p.consumed(), p.bar.Total()))
		p.bar.Set("records", strconv.FormatInt(st.Out, 10)+" records ")
	case p.bar.Total() > 0:
		p.bar.SetCurrent(st.In)
		p.bar.Set("records", strconv.FormatInt(st.Out, 10)+" records ")
	default:
		p.bar.SetCurrent(st.Out)
		p.bar.Set("records", "")
	}
	if others := p.board.read(); others != "" {
		p.bar.Set("prefix", others+" › "+p.name+" ")
	}
	var notes []string
	if c := callsText(done, inFlight); c != "" && !final {
		notes = append(notes, c)
	}
	if st.Failed > 0 {
		notes = append(notes, fmt.Sprintf("%d failed", st.Failed))
	}
	if st.Dropped > 0 {
		notes = append(notes, fmt.Sprintf("%d dropped", st.Dropped))
	}
	if len(notes) > 0 {
		p.bar.Set("suffix", "("+strings.Join(notes, ", ")+")")
	} else {
		p.bar.Set("suffix", "")
	}
}

// Finish stops the bar, leaving the final counts on screen.
func (p *Progress) Finish(st Stats) {
	close(p.stop)
	p.stopped.Wait()
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
	// $XDG_RUNTIME_DIR is the user's own; /tmp is everyone's, so there
	// the folder must be made by this user, or already be theirs alone:
	// another user's folder could hold links to the user's files (which
	// publish would overwrite) and lines that draw what they like.
	base := filepath.Join(os.TempDir(), "ngkit-"+strconv.Itoa(os.Getuid()))
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		base = filepath.Join(d, "ngkit")
	}
	dir := filepath.Join(base, "pg-"+strconv.Itoa(pg))
	if privateDir(base) != nil || privateDir(dir) != nil {
		return nil
	}
	return &board{dir: dir, self: strconv.Itoa(os.Getpid()), start: time.Now().UnixNano()}
}

// privateDir makes dir (mode 0700), or takes the one there if it is a
// folder, not a link, of this user's with mode 0700.
func privateDir(dir string) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	st, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if uid, ok := safeopen.Owner(st); !st.IsDir() || st.Mode()&(fs.ModeType|fs.ModePerm|fs.ModeSticky|fs.ModeSetuid|fs.ModeSetgid) != fs.ModeDir|0o700 || (ok && uid != os.Getuid()) {
		return fmt.Errorf("%s: not a folder of this user's with mode 0700", dir)
	}
	return nil
}

// publish writes this stage's line atomically: "start name written
// final calls inflight" (calls -1: the stage calls no model). The
// temporary file is opened without following a link, and the rename
// replaces a link at the final name, not what it points to.
func (b *board) publish(name string, st Stats, final bool, calls, inFlight int64) {
	if b == nil {
		return
	}
	tmp := filepath.Join(b.dir, "."+b.self)
	line := fmt.Sprintf("%d %s %d %t %d %d\n", b.start, name, st.Out, final, calls, inFlight)
	f, err := safeopen.NoFollow(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return
	}
	_, err = f.WriteString(line)
	if e := f.Close(); err == nil && e == nil {
		os.Rename(tmp, filepath.Join(b.dir, b.self))
	}
}

// maxBoardLine bounds what read takes of an entry.
const maxBoardLine = 256

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
		raw, err := readEntry(filepath.Join(b.dir, e.Name()))
		f := strings.Fields(raw)
		if err != nil || len(f) != 6 || strings.ContainsFunc(strings.TrimSuffix(raw, "\n"), unicode.IsControl) {
			continue // a line with control characters is not drawn
		}
		start, _ := strconv.ParseInt(f[0], 10, 64)
		if d := time.Duration(start - b.start); d < -10*time.Second || d > 10*time.Second {
			continue // not started with us: another pipeline's leftovers
		}
		pid, _ := strconv.Atoi(e.Name())
		text := f[1] + " " + f[2]
		calls, err1 := strconv.ParseInt(f[4], 10, 64)
		inFlight, err2 := strconv.ParseInt(f[5], 10, 64)
		if c := callsText(calls, inFlight); err1 == nil && err2 == nil && c != "" && f[3] != "true" {
			text += " (" + c + ")"
		}
		stages = append(stages, stage{pid, text})
	}
	sort.Slice(stages, func(i, j int) bool { return stages[i].pid < stages[j].pid })
	var parts []string
	for _, s := range stages {
		parts = append(parts, s.text)
	}
	return strings.Join(parts, " › ")
}

// readEntry reads a board entry: a regular file (not a link), its first
// maxBoardLine bytes.
func readEntry(name string) (string, error) {
	f, err := safeopen.NoFollow(name, os.O_RDONLY, 0)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxBoardLine))
	return string(b), err
}

// clear removes the board when the drawing stage ends.
func (b *board) clear() {
	if b != nil {
		os.RemoveAll(b.dir)
	}
}

// InputTotal is the size of the named inputs for the bar: their records
// when all are Parquet files (from the footers), else their bytes when all
// are plain files that are not Parquet or compressed (JSONL, counted as
// read); 0 when unknown (stdin, compressed input, a mix).
func InputTotal(names []string) (total int64, inBytes bool) {
	if len(names) == 0 {
		return 0, false
	}
	var rows, size int64
	parquetFiles := 0
	for _, n := range names {
		if n == "" || n == "-" {
			return 0, false
		}
		f, err := os.Open(n)
		if err != nil {
			return 0, false
		}
		st, err := f.Stat()
		head := make([]byte, 4)
		k, _ := io.ReadFull(f, head)
		head = head[:k]
		switch {
		case err != nil || !st.Mode().IsRegular():
			f.Close()
			return 0, false
		case bytes.Equal(head, []byte("PAR1")):
			n, err := recio.ParquetRows(f, st.Size())
			if err != nil {
				f.Close()
				return 0, false
			}
			rows += n
			parquetFiles++
		case bytes.HasPrefix(head, []byte{0x1f, 0x8b}), bytes.Equal(head, []byte{0x28, 0xb5, 0x2f, 0xfd}),
			bytes.HasPrefix(head, []byte("ARRO")), bytes.Equal(head, []byte{0xff, 0xff, 0xff, 0xff}):
			f.Close()
			return 0, false // compressed or Arrow: no cheap total
		default:
			size += st.Size()
		}
		f.Close()
	}
	switch {
	case parquetFiles == len(names):
		return rows, false
	case parquetFiles == 0:
		return size, true
	}
	return 0, false
}

// MessageWriter returns the writer for a program's messages: w itself
// when w is not a terminal; on a terminal, a writer that puts out whole
// lines, each led by "\r\x1b[K" (back to the line start, clear it), so
// that no message is glued to a bar line (see Progress).
//
// Either way control characters in a message (a record's id, culture or
// text quoted in an error) are escaped (record.Printable): a message is
// one write (fmt.Fprintf), so a write is escaped whole.
func MessageWriter(w io.Writer) io.Writer {
	if _, ok := w.(*lineWriter); ok {
		return w
	}
	if _, ok := w.(printableWriter); ok {
		return w
	}
	if !recio.IsTerminal(w) {
		return printableWriter{w}
	}
	return &lineWriter{w: w}
}

// printableWriter escapes control characters in each write.
type printableWriter struct{ w io.Writer }

func (p printableWriter) Write(b []byte) (int, error) {
	if _, err := io.WriteString(p.w, record.Printable(string(b))); err != nil {
		return 0, err
	}
	return len(b), nil
}

type lineWriter struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte
}

// clearLine: carriage return, then erase to the end of the line.
const clearLine = "\r\x1b[K"

func (l *lineWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, b...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			return len(b), nil
		}
		// One write per line: a terminal takes a small write whole.
		line := append([]byte(clearLine), record.Printable(string(l.buf[:i+1]))...)
		l.buf = l.buf[i+1:]
		if _, err := l.w.Write(line); err != nil {
			return len(b), err
		}
	}
}
