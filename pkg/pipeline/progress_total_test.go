package pipeline

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ngkit/ngkit/internal/ptytest"
	"github.com/ngkit/ngkit/pkg/recio"
	"github.com/ngkit/ngkit/pkg/record"
)

// screen replays what a terminal shows for output made of text, "\r",
// "\n" and "\x1b[K" (the only controls the bars and messages use), and
// returns its lines.
func screen(out string) []string {
	lines := []string{""}
	col := 0
	for i := 0; i < len(out); i++ {
		cur := &lines[len(lines)-1]
		switch {
		case out[i] == '\r':
			col = 0
		case out[i] == '\n':
			lines = append(lines, "")
			col = 0
		case strings.HasPrefix(out[i:], "\x1b[K"):
			*cur = (*cur)[:min(col, len(*cur))]
			i += 2
		case out[i] == '\x1b': // another escape: skip to its final letter
			for i < len(out) && !(out[i] >= 'A' && out[i] <= 'Z' || out[i] >= 'a' && out[i] <= 'z') {
				i++
			}
		default:
			if col < len(*cur) {
				*cur = (*cur)[:col] + string(out[i]) + (*cur)[col+1:]
			} else {
				*cur += string(out[i])
			}
			col++
		}
	}
	return lines
}

// collect reads what the terminal gets, in the background (a pty's
// master is not pollable here, so no read deadlines); text returns it all
// once the output has settled.
type collect struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func newCollect(ptm *os.File) *collect {
	c := &collect{}
	go func() {
		buf := make([]byte, 1<<16)
		for {
			n, err := ptm.Read(buf)
			c.mu.Lock()
			c.b.Write(buf[:n])
			c.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return c
}

func (c *collect) text() string {
	time.Sleep(300 * time.Millisecond)
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.b.String()
}

// With a known total the bar shows it, the percentage, the rate, the time
// left and the failures; in bytes for JSONL, in records for Parquet.
func TestProgressWithTotal(t *testing.T) {
	ptm, pts := ptytest.Open(t)
	t.Setenv("TMPDIR", t.TempDir())
	var consumed atomic.Int64
	var out bytes.Buffer
	p := NewProgress(pts, &out, "ngcat", false, false)
	if p == nil || p.bar == nil {
		t.Fatal("no bar")
	}
	p.SetInput(4<<20, consumed.Load)
	term := newCollect(ptm)
	for i := int64(1); i <= 4; i++ {
		consumed.Store(i << 20)
		p.Update(Stats{In: 100 * i, Out: 100 * i, Failed: 2})
		time.Sleep(250 * time.Millisecond)
	}
	p.Finish(Stats{In: 400, Out: 400, Failed: 2})
	raw := term.text()
	s := strings.Join(screen(raw), "\n")
	// On the way: the percentage and the time left; at the end: all of it.
	for _, want := range []string{"50.00%", "2.00 MiB / 4.00 MiB", "ETA "} {
		if !strings.Contains(raw, want) {
			t.Errorf("the bar never showed %q:\n%q", want, raw)
		}
	}
	for _, want := range []string{"400 records", "100.00%", "4.00 MiB / 4.00 MiB", "MiB/s", "(2 failed)", "[===="} {
		if !strings.Contains(s, want) {
			t.Errorf("bar lacks %q:\n%s", want, s)
		}
	}
}

// InputTotal: Parquet rows from the footers, JSONL bytes, nothing for
// stdin, compressed input or a mix.
func TestInputTotal(t *testing.T) {
	dir := t.TempDir()
	j := filepath.Join(dir, "a.jsonl")
	os.WriteFile(j, []byte("{\"id\":\"a\"}\n{\"id\":\"b\"}\n"), 0o644)
	pq := filepath.Join(dir, "a.parquet")
	out, err := recio.Create(pq, recio.Parquet, nil)
	if err != nil {
		t.Fatal(err)
	}
	w, err := recio.NewWriter[record.Record](out, recio.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 7; i++ {
		w.Write(&record.Record{ID: fmt.Sprint(i)})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	out.Commit()
	gz := filepath.Join(dir, "a.jsonl.gz")
	os.WriteFile(gz, []byte{0x1f, 0x8b, 8, 0}, 0o644)
	for _, c := range []struct {
		names   []string
		total   int64
		inBytes bool
	}{
		{[]string{j}, 22, true}, {[]string{j, j}, 44, true},
		{[]string{pq}, 7, false}, {[]string{pq, pq}, 14, false},
		{nil, 0, false}, {[]string{"-"}, 0, false}, {[]string{gz}, 0, false}, {[]string{j, pq}, 0, false},
		{[]string{filepath.Join(dir, "missing")}, 0, false},
	} {
		if total, inBytes := InputTotal(c.names); total != c.total || inBytes != c.inBytes {
			t.Errorf("%v: %d %v, want %d %v", c.names, total, inBytes, c.total, c.inBytes)
		}
	}
}

// Two programs of one pipeline on one terminal: the last stage draws its
// bar while an upstream stage prints failures and its end-of-run summary
// through MessageWriter. Every message ends up on a line of its own,
// whole, and no bar text is glued to one.
func TestMessagesDoNotGarbleTheBar(t *testing.T) {
	ptm, pts := ptytest.Open(t)
	t.Setenv("TMPDIR", t.TempDir())
	var out bytes.Buffer
	p := NewProgress(pts, &out, "nglabel", false, false)
	if p == nil || p.bar == nil {
		t.Fatal("no bar")
	}
	upstream := MessageWriter(pts)
	if upstream == pts {
		t.Fatal("MessageWriter does not wrap a terminal")
	}
	term := newCollect(ptm)
	var wg sync.WaitGroup
	wg.Add(1)
	var msgs []string
	go func() {
		defer wg.Done()
		for i := 0; i < 20; i++ {
			m := fmt.Sprintf("ngv2r: record r%02d (seeds.jsonl:%d) failed: the reply was not JSON", i, i+1)
			msgs = append(msgs, m)
			// Written in two pieces, as fmt may: the line still goes out whole.
			fmt.Fprint(upstream, m[:10])
			fmt.Fprint(upstream, m[10:]+"\n")
			time.Sleep(15 * time.Millisecond)
		}
		msgs = append(msgs, "ngv2r: 20 of 50 records failed (see failed.jsonl)")
		fmt.Fprintln(upstream, msgs[len(msgs)-1])
	}()
	for i := int64(1); i <= 40; i++ {
		p.Update(Stats{In: i, Out: i})
		time.Sleep(10 * time.Millisecond)
	}
	wg.Wait()
	p.Finish(Stats{In: 50, Out: 50})
	lines := screen(term.text())
	seen := map[string]bool{}
	for _, l := range lines {
		l = strings.TrimRight(l, " ")
		if strings.HasPrefix(l, "ngv2r:") {
			seen[l] = true
			if strings.Contains(l, "records ") && !strings.HasSuffix(l, "(see failed.jsonl)") {
				t.Errorf("bar text glued to a message: %q", l)
			}
		} else if strings.Contains(l, "ngv2r") {
			t.Errorf("a message cut or glued: %q", l)
		}
	}
	for _, m := range msgs {
		if !seen[m] {
			t.Errorf("message not on a line of its own: %q\nscreen:\n%s", m, strings.Join(lines, "\n"))
		}
	}
	if last := strings.TrimSpace(lines[len(lines)-2]); !strings.HasPrefix(last, "nglabel 50 records") {
		t.Errorf("the final bar %q", last)
	}
}
