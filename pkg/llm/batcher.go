package llm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/cheggaaa/pb/v3"
	"github.com/ngkit/ngkit/pkg/recio"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// The provider's limits per batch input file (OpenAI's).
const (
	DefaultBatchMaxRequests = 50000
	DefaultBatchMaxBytes    = 200 << 20
)

// BatchOptions configure a Batcher.
type BatchOptions struct {
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
	opt     BatchOptions
	clients map[string]*Client // by alias
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

// OpenBatcher opens (or creates) the state directory and gives the
// clients the replies of the batches downloaded by an earlier run.
// clients are by alias; each must have been made with Config.Batch.
func OpenBatcher(opt BatchOptions, clients map[string]*Client) (*Batcher, error) {
	if opt.Poll <= 0 {
		opt.Poll = time.Minute
	}
	if opt.MaxRequests <= 0 {
		opt.MaxRequests = DefaultBatchMaxRequests
	}
	if opt.MaxBytes <= 0 {
		opt.MaxBytes = DefaultBatchMaxBytes
	}
	b := &Batcher{opt: opt, clients: clients, keys: map[string]map[string]string{}, pending: map[string]map[string]bool{}}
	for a, c := range clients {
		if c.bat == nil {
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
		ep := batchEndpoint{BaseURL: redactURL(c.cfg.BaseURL), Model: c.cfg.Model}
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
		var r BatchRequest
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("--batch-state %s:%d: %v", f.Name(), n, err)
		}
		keys[r.CustomID] = batchKey(r.CustomID, r.Body)
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
func (b *Batcher) load(c *Client, e *batchEntry) error {
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
		if _, err := c.addAnswers(data, keys); err != nil {
			return fmt.Errorf("--batch-state %s: %v", filepath.Join(b.opt.Dir, name), err)
		}
	}
	c.bat.mu.Lock()
	for _, k := range keys {
		if _, ok := c.bat.answers[k]; !ok {
			c.bat.answers[k] = &batchAnswer{code: "batch_" + e.Status, msg: "the batch ended " + e.Status + " before running it"}
		}
	}
	c.bat.mu.Unlock()
	return nil
}

// BeginPass starts a pass of the stage over the records still waiting;
// probing passes keep replies out of the cache and their usage is not
// kept (only the final pass's is reported).
func (b *Batcher) BeginPass(probing bool) {
	for _, c := range b.clients {
		c.beginPass(probing)
	}
}

// Spent is the cost of every Batch reply of the run so far, at the batch
// price (0 for unpriced models).
func (b *Batcher) Spent() float64 {
	s := 0.0
	for _, c := range b.clients {
		s += c.batchSpent
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

// Submit sends the requests of the last pass that no batch holds yet, as
// one or more input files per endpoint (split at MaxRequests and
// MaxBytes); it returns how many it sent. Each step is in state.json
// before the next is taken.
func (b *Batcher) Submit(ctx context.Context) (int, error) {
	if err := b.resubmit(ctx); err != nil {
		return 0, err
	}
	round := b.st.Round + 1
	news := map[string][]pendingRequest{}
	total := 0
	for _, a := range b.aliases {
		for _, r := range b.clients[a].takeEmitted() {
			if !b.pending[a][r.Key] {
				news[a] = append(news[a], r)
				total++
			}
		}
	}
	if total == 0 {
		return 0, nil
	}
	b.st.Round = round
	for _, a := range b.aliases {
		reqs := news[a]
		if len(reqs) == 0 {
			continue
		}
		parts, err := b.writeInputs(a, round, reqs)
		if err != nil {
			return total, err
		}
		for _, e := range parts {
			if err := b.send(ctx, b.clients[a], e); err != nil {
				return total, err
			}
			for _, k := range b.keys[e.Input] {
				b.pending[a][k] = true
			}
		}
		var ids []string
		for _, e := range parts {
			ids = append(ids, e.BatchID)
		}
		b.say("%s: batch round %d: %s to %s in %s (%s)\n", b.opt.Prog, round, plural(len(reqs), "request"), a, nBatches(len(parts)), strings.Join(ids, ", "))
	}
	return total, b.save()
}

// resubmit finishes the steps a killed run left undone: an input file
// written but not uploaded, or uploaded but not submitted.
func (b *Batcher) resubmit(ctx context.Context) error {
	for _, e := range b.st.Batches {
		if !e.Done && e.BatchID == "" {
			if err := b.send(ctx, b.clients[e.Alias], e); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeInputs writes the input files of one endpoint's round, each within
// the limits, and records them.
func (b *Batcher) writeInputs(alias string, round int, reqs []pendingRequest) ([]*batchEntry, error) {
	var parts []*batchEntry
	var buf bytes.Buffer
	n := 0
	keys := map[string]string{}
	flush := func() error {
		if n == 0 {
			return nil
		}
		e := &batchEntry{Alias: alias, Round: round, Requests: n, Bytes: int64(buf.Len()),
			Input: fmt.Sprintf("r%03d-%s-%02d.in.jsonl", round, fileSafe(alias), len(parts)+1)}
		if err := recio.WriteFile(filepath.Join(b.opt.Dir, e.Input), buf.Bytes()); err != nil {
			return fmt.Errorf("--batch-state: %w", err)
		}
		b.keys[e.Input] = keys
		b.st.Batches = append(b.st.Batches, e)
		parts = append(parts, e)
		buf.Reset()
		n, keys = 0, map[string]string{}
		return b.save()
	}
	for _, r := range reqs {
		line, err := batchLine(r)
		if err != nil {
			return nil, err
		}
		if n > 0 && (n >= b.opt.MaxRequests || int64(buf.Len()+len(line)) > b.opt.MaxBytes) {
			if err := flush(); err != nil {
				return nil, err
			}
		}
		if int64(len(line)) > b.opt.MaxBytes {
			return nil, fmt.Errorf("--batch: request %s is %d bytes, over --batch-max-bytes %d", r.CustomID, len(line), b.opt.MaxBytes)
		}
		buf.Write(line)
		keys[r.CustomID] = r.Key
		n++
	}
	return parts, flush()
}

// batchLine is one input line, the body as it was hashed (no HTML
// escaping, no reformatting).
func batchLine(r pendingRequest) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(BatchRequest{CustomID: r.CustomID, Method: "POST", URL: "/v1/chat/completions", Body: r.Body}); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func fileSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ' ' || r == 0 {
			return '_'
		}
		return r
	}, s)
}

// services are the endpoint's files and batches APIs, with a few retries
// of their own (these calls are few, and cheap to repeat).
func (c *Client) services() (openai.FileService, openai.BatchService) {
	opts := append(append([]option.RequestOption(nil), c.opts...), option.WithMaxRetries(4))
	return openai.NewFileService(opts...), openai.NewBatchService(opts...)
}

// send uploads one input file and creates its batch, saving the state
// after each step.
func (b *Batcher) send(ctx context.Context, c *Client, e *batchEntry) error {
	files, batches := c.services()
	if e.FileID == "" {
		data, err := os.ReadFile(filepath.Join(b.opt.Dir, e.Input))
		if err != nil {
			return fmt.Errorf("--batch-state: %w", err)
		}
		f, err := files.New(ctx, openai.FileNewParams{File: openai.File(bytes.NewReader(data), e.Input, "application/jsonl"), Purpose: openai.FilePurposeBatch})
		if err != nil {
			return fmt.Errorf("--batch: uploading %s to %s: %s", e.Input, redactURL(c.cfg.BaseURL), c.apiErr(err))
		}
		e.FileID = f.ID
		if err := b.save(); err != nil {
			return err
		}
	}
	if e.Status == "creating" {
		// A killed run may have created the batch and not lived to record
		// its id: look for a batch of this input file before creating one.
		if id, err := findBatch(ctx, batches, e.FileID); err != nil {
			return fmt.Errorf("--batch: listing the batches at %s: %s", redactURL(c.cfg.BaseURL), c.apiErr(err))
		} else if id != "" {
			e.BatchID, e.Status = id, "found"
			return b.save()
		}
	}
	e.Status = "creating"
	if err := b.save(); err != nil {
		return err
	}
	bt, err := batches.New(ctx, openai.BatchNewParams{InputFileID: e.FileID, Endpoint: openai.BatchNewParamsEndpointV1ChatCompletions,
		CompletionWindow: openai.BatchNewParamsCompletionWindow24h, Metadata: map[string]string{"ngkit": b.opt.Prog, "input": e.Input}})
	if err != nil {
		return fmt.Errorf("--batch: creating the batch of %s at %s: %s", e.Input, redactURL(c.cfg.BaseURL), c.apiErr(err))
	}
	e.BatchID, e.Status = bt.ID, string(bt.Status)
	return b.save()
}

// findBatch is the id of the batch made from an input file, "" if none:
// the newest batches first, as the provider lists them.
func findBatch(ctx context.Context, batches openai.BatchService, fileID string) (string, error) {
	it := batches.ListAutoPaging(ctx, openai.BatchListParams{Limit: openai.Int(100)})
	for n := 0; it.Next() && n < 1000; n++ {
		if bt := it.Current(); bt.InputFileID == fileID {
			return bt.ID, nil
		}
	}
	return "", it.Err()
}

// apiErr is a Batch API error in one line, the key redacted.
func (c *Client) apiErr(err error) string {
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		return c.httpFailure(apiErr.StatusCode, apiErr.Message, nil).reason
	}
	return c.cfg.APIKey.redact(err.Error())
}

// ErrBatchFailed is the error of a batch that failed as a whole.
var ErrBatchFailed = errors.New("a batch failed")

// Wait polls the batches in flight until each has ended, downloads their
// output and error files and gives the replies to the clients. A batch
// that failed as a whole (validation) ends the wait with an error of one
// line that says why. When ctx ends (Ctrl-C), Wait returns its error and
// the batches keep running at the provider: state.json knows them.
func (b *Batcher) Wait(ctx context.Context) error {
	start := time.Now()
	var bar *pb.ProgressBar
	defer func() {
		if bar != nil {
			bar.Finish()
		}
	}()
	var failed []string
	for {
		var total, done, bad int64
		open := 0
		for _, e := range b.st.Batches {
			if e.Done {
				continue
			}
			c := b.clients[e.Alias]
			_, batches := c.services()
			bt, err := batches.Get(ctx, e.BatchID)
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				return fmt.Errorf("--batch: polling %s at %s: %s", e.BatchID, redactURL(c.cfg.BaseURL), c.apiErr(err))
			}
			e.Status, e.Total, e.Complete, e.Failed = string(bt.Status), bt.RequestCounts.Total, bt.RequestCounts.Completed, bt.RequestCounts.Failed
			total += max(e.Total, int64(e.Requests))
			done += e.Complete
			bad += e.Failed
			switch bt.Status {
			case openai.BatchStatusCompleted, openai.BatchStatusExpired, openai.BatchStatusCancelled:
				if err := b.download(ctx, c, e, bt); err != nil {
					return err
				}
			case openai.BatchStatusFailed:
				e.Done, e.Why = true, batchWhy(bt)
				failed = append(failed, fmt.Sprintf("batch %s (%s, %d requests) failed: %s", e.BatchID, e.Input, e.Requests, e.Why))
				for _, k := range b.keys[e.Input] {
					delete(b.pending[e.Alias], k)
				}
			default:
				open++
			}
		}
		if err := b.save(); err != nil {
			return err
		}
		if len(failed) > 0 && open == 0 {
			return fmt.Errorf("%w: %s", ErrBatchFailed, strings.Join(failed, "; "))
		}
		if open == 0 {
			b.say("%s: batch round %d: done in %s\n", b.opt.Prog, b.st.Round, time.Since(start).Round(time.Second))
			return nil
		}
		switch {
		case b.opt.Quiet:
		case b.opt.Bar:
			if bar == nil {
				bar = pb.New64(total)
				bar.SetWriter(b.opt.Stderr)
				bar.SetTemplateString(`{{string . "prefix"}}{{bar . "[" "=" ">" " " "]"}} {{counters . }} requests {{string . "suffix"}}`)
				bar.Set("prefix", fmt.Sprintf("%s batch round %d ", b.opt.Prog, b.st.Round))
				bar.Start()
			}
			bar.SetTotal(total)
			bar.SetCurrent(done + bad)
			bar.Set("suffix", fmt.Sprintf("(%d failed, %s)", bad, nBatches(open)+" open"))
		default:
			b.say("%s: batch round %d: %d of %d requests done, %d failed; %s in progress (%s)\n", b.opt.Prog, b.st.Round, done, total, bad,
				nBatches(open), b.statuses())
		}
		if err := sleep(ctx, b.opt.Poll); err != nil {
			return err
		}
	}
}

// statuses lists the open batches' statuses.
func (b *Batcher) statuses() string {
	var s []string
	for _, e := range b.st.Batches {
		if !e.Done {
			s = append(s, e.BatchID+" "+e.Status)
		}
	}
	return strings.Join(s, ", ")
}

// batchWhy is a failed batch's errors in one line.
func batchWhy(bt *openai.Batch) string {
	var s []string
	for _, e := range bt.Errors.Data {
		m := e.Message
		if e.Line > 0 {
			m = fmt.Sprintf("line %d: %s", e.Line, m)
		}
		if e.Code != "" {
			m += " (" + e.Code + ")"
		}
		s = append(s, m)
	}
	if len(s) == 0 {
		return "no reason given"
	}
	return strings.Join(s, "; ")
}

// download saves a finished batch's output and error files in the state
// directory and gives their replies to the client.
func (b *Batcher) download(ctx context.Context, c *Client, e *batchEntry, bt *openai.Batch) error {
	files, _ := c.services()
	get := func(id, suffix string) (string, error) {
		if id == "" {
			return "", nil
		}
		res, err := files.Content(ctx, id)
		if err != nil {
			return "", fmt.Errorf("--batch: downloading %s of %s: %s", id, e.BatchID, c.apiErr(err))
		}
		defer res.Body.Close()
		data, err := io.ReadAll(res.Body)
		if err != nil {
			return "", fmt.Errorf("--batch: downloading %s of %s: %v", id, e.BatchID, err)
		}
		name := strings.TrimSuffix(e.Input, ".in.jsonl") + suffix
		if err := recio.WriteFile(filepath.Join(b.opt.Dir, name), data); err != nil {
			return "", fmt.Errorf("--batch-state: %w", err)
		}
		return name, nil
	}
	var err error
	if e.Output, err = get(bt.OutputFileID, ".out.jsonl"); err != nil {
		return err
	}
	if e.Errors, err = get(bt.ErrorFileID, ".err.jsonl"); err != nil {
		return err
	}
	e.Done = true
	if err := b.load(c, e); err != nil {
		return err
	}
	for _, k := range b.keys[e.Input] {
		delete(b.pending[e.Alias], k)
	}
	if bt.Status != openai.BatchStatusCompleted || e.Failed > 0 {
		b.say("%s: batch %s %s: %d of %d requests answered, %d failed or not run (asked again in the next round)\n",
			b.opt.Prog, e.BatchID, bt.Status, e.Complete, e.Requests, int64(e.Requests)-e.Complete)
	}
	return nil
}

// Cancel cancels the batches in flight (--batch-cancel) and returns their
// ids.
func (b *Batcher) Cancel(ctx context.Context) ([]string, error) {
	var ids []string
	for _, e := range b.st.Batches {
		if e.Done || e.BatchID == "" {
			continue
		}
		c := b.clients[e.Alias]
		_, batches := c.services()
		bt, err := batches.Cancel(ctx, e.BatchID)
		if err != nil {
			return ids, fmt.Errorf("--batch-cancel: %s: %s", e.BatchID, c.apiErr(err))
		}
		e.Status = string(bt.Status)
		e.Done, e.Why = true, "cancelled by --batch-cancel"
		ids = append(ids, e.BatchID)
	}
	return ids, b.save()
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

// Clients are the run's clients by alias (for a Batcher).
func (m *Models) Clients() map[string]*Client {
	out := make(map[string]*Client, len(m.clients))
	for a, c := range m.clients {
		out[a] = c
	}
	return out
}
