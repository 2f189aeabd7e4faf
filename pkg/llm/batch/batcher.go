package batch

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/recio"
)

// The provider's limits per batch input file (OpenAI's).
const (
	DefaultMaxRequests = 50000
	DefaultMaxBytes    = 200 << 20
)

// Options configure a Batcher.
type Options struct {
	// Dir is the state directory: state.json and every input, output and
	// error file of the run.
	Dir string
	// Poll is the wait between two looks at the batches in flight.
	Poll time.Duration
	// MaxRequests and MaxBytes split the requests of a round into several
	// input files (default: the provider's limits).
	MaxRequests int
	MaxBytes    int64
	// Prog names the program in messages; Stderr gets the round lines and
	// the status lines; Bar draws a progress bar there instead (a
	// terminal).
	Prog   string
	Stderr io.Writer
	Bar    bool
	Quiet  bool
}

// Batcher runs the rounds of --batch for the clients of one program run
// (one per endpoint): it submits the requests a pass of the stage made
// (Submit), waits for the batches and feeds their replies back to the
// clients (Wait), and keeps everything in the state directory so that a
// rerun picks up the batches in flight instead of submitting them again.
type Batcher struct {
	opt     Options
	clients map[string]*llm.Client // by alias
	aliases []string
	st      batchState
	// keys are each batch's custom_id -> request key, from its input file.
	keys map[string]map[string]string // batch input file -> custom_id -> key
	// pending are the keys of the requests in batches not yet downloaded,
	// by alias: a pass that makes them again does not submit them again.
	pending map[string]map[string]bool
}

// batchState is state.json.
type batchState struct {
	Version int    `json:"version"`
	Program string `json:"program"`
	Round   int    `json:"round"`
	// Endpoints are each alias's base URL and model, checked on a rerun.
	Endpoints map[string]batchEndpoint `json:"endpoints"`
	Batches   []*batchEntry            `json:"batches"`
}

type batchEndpoint struct {
	BaseURL string `json:"base_url"`
	Model   string `json:"model"`
}

// batchEntry is one submitted (or about to be) input file.
type batchEntry struct {
	Alias    string `json:"alias"`
	Round    int    `json:"round"`
	Input    string `json:"input"` // file name in Dir
	Requests int    `json:"requests"`
	Bytes    int64  `json:"bytes"`
	FileID   string `json:"file_id,omitempty"`
	BatchID  string `json:"batch_id,omitempty"`
	Status   string `json:"status,omitempty"`
	Total    int64  `json:"total,omitempty"`
	Complete int64  `json:"completed,omitempty"`
	Failed   int64  `json:"failed,omitempty"`
	Output   string `json:"output,omitempty"` // file names in Dir
	Errors   string `json:"errors,omitempty"`
	// Done: downloaded (or failed as a whole): nothing more to wait for.
	Done bool `json:"done,omitempty"`
	// Why is a batch's failure, in one line.
	Why string `json:"why,omitempty"`
}

const batchStateFile = "state.json"

// Open opens (or creates) the state directory and gives the
// clients the replies of the batches downloaded by an earlier run.
// clients are by alias; each must have been made with Config.Batch.
func Open(opt Options, clients map[string]*llm.Client) (*Batcher, error) {
	if opt.Poll <= 0 {
		opt.Poll = time.Minute
	}
	if opt.MaxRequests <= 0 {
		opt.MaxRequests = DefaultMaxRequests
	}
	if opt.MaxBytes <= 0 {
		opt.MaxBytes = DefaultMaxBytes
	}
	b := &Batcher{opt: opt, clients: clients, keys: map[string]map[string]string{}, pending: map[string]map[string]bool{}}
	for a, c := range clients {
		if !c.InBatchMode() {
			return nil, fmt.Errorf("llm: client %s is not in batch mode", a)
		}
		b.aliases = append(b.aliases, a)
		b.pending[a] = map[string]bool{}
	}
	sort.Strings(b.aliases)
	if err := os.MkdirAll(opt.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("--batch-state: %w", err)
	}
	raw, err := os.ReadFile(filepath.Join(opt.Dir, batchStateFile))
	switch {
	case errors.Is(err, os.ErrNotExist):
		b.st = batchState{Version: 1, Program: opt.Prog, Endpoints: map[string]batchEndpoint{}}
	case err != nil:
		return nil, fmt.Errorf("--batch-state: %w", err)
	default:
		if err := json.Unmarshal(raw, &b.st); err != nil {
			return nil, fmt.Errorf("--batch-state %s: %v", filepath.Join(opt.Dir, batchStateFile), err)
		}
		if b.st.Program != opt.Prog {
			return nil, fmt.Errorf("--batch-state %s holds a run of %s, not %s: give each program its own", opt.Dir, b.st.Program, opt.Prog)
		}
	}
	for a, c := range clients {
		ep := batchEndpoint{BaseURL: llm.RedactURL(c.Config().BaseURL), Model: c.Config().Model}
		if old, ok := b.st.Endpoints[a]; ok && old != ep {
			return nil, fmt.Errorf("--batch-state %s: endpoint %s was %s model %s, now %s model %s: use another state directory", opt.Dir, a, old.BaseURL, old.Model, ep.BaseURL, ep.Model)
		}
		b.st.Endpoints[a] = ep
	}
	for _, e := range b.st.Batches {
		c := clients[e.Alias]
		if c == nil {
			return nil, fmt.Errorf("--batch-state %s: batch %s is for endpoint %s, which this run does not use", opt.Dir, e.Input, e.Alias)
		}
		keys, err := b.readKeys(e)
		if err != nil {
			return nil, err
		}
		if !e.Done {
			for _, k := range keys {
				b.pending[e.Alias][k] = true
			}
			continue
		}
		if err := b.load(c, e); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// readKeys reads a batch's input file: custom_id -> request key.
func (b *Batcher) readKeys(e *batchEntry) (map[string]string, error) {
	if k, ok := b.keys[e.Input]; ok {
		return k, nil
	}
	f, err := os.Open(filepath.Join(b.opt.Dir, e.Input))
	if err != nil {
		return nil, fmt.Errorf("--batch-state: %w", err)
	}
	defer f.Close()
	keys := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for n := 1; sc.Scan(); n++ {
		var r llm.BatchRequest
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("--batch-state %s:%d: %v", f.Name(), n, err)
		}
		keys[r.CustomID] = llm.BatchKey(r.CustomID, r.Body)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("--batch-state %s: %w", f.Name(), err)
	}
	b.keys[e.Input] = keys
	return keys, nil
}

// load gives a client the replies of a downloaded batch; a request the
// batch left unanswered (cancelled, or missing) gets an error reply, so
// that it is retried as a new attempt instead of waited for.
func (b *Batcher) load(c *llm.Client, e *batchEntry) error {
	keys, err := b.readKeys(e)
	if err != nil {
		return err
	}
	if e.Why != "" { // failed as a whole: no replies; a rerun submits anew
		return nil
	}
	for _, name := range []string{e.Output, e.Errors} {
		if name == "" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(b.opt.Dir, name))
		if err != nil {
			return fmt.Errorf("--batch-state: %w", err)
		}
		if _, err := c.AddAnswers(data, keys); err != nil {
			return fmt.Errorf("--batch-state %s: %v", filepath.Join(b.opt.Dir, name), err)
		}
	}
	c.EndUnanswered(keys, e.Status)
	return nil
}

// BeginPass starts a pass of the stage over the records still waiting;
// probing passes keep replies out of the cache and their usage is not
// kept (only the final pass's is reported).
func (b *Batcher) BeginPass(probing bool) {
	for _, c := range b.clients {
		c.BeginPass(probing)
	}
}

// Spent is the cost of every Batch reply of the run so far, at the batch
// price (0 for unpriced models).
func (b *Batcher) Spent() float64 {
	s := 0.0
	for _, c := range b.clients {
		s += c.BatchSpent()
	}
	return s
}

// Round is the number of the last round submitted.
func (b *Batcher) Round() int { return b.st.Round }

// InFlight counts the batches submitted and not yet downloaded.
func (b *Batcher) InFlight() int {
	n := 0
	for _, e := range b.st.Batches {
		if !e.Done {
			n++
		}
	}
	return n
}

// save writes state.json atomically.
func (b *Batcher) save() error {
	data, err := json.MarshalIndent(&b.st, "", "  ")
	if err != nil {
		return err
	}
	if err := recio.WriteFile(filepath.Join(b.opt.Dir, batchStateFile), append(data, '\n')); err != nil {
		return fmt.Errorf("--batch-state: %w", err)
	}
	return nil
}

func (b *Batcher) say(format string, args ...any) {
	if b.opt.Stderr != nil && !b.opt.Quiet {
		fmt.Fprintf(b.opt.Stderr, format, args...)
	}
}

func nBatches(n int) string {
	if n == 1 {
		return "1 batch"
	}
	return fmt.Sprintf("%d batches", n)
}
