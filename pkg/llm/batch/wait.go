package batch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/cheggaaa/pb/v3"
	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/recio"
	"github.com/openai/openai-go/v3"
)

// ErrFailed is the error of a batch that failed as a whole.
var ErrFailed = errors.New("a batch failed")

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
			_, batches := c.BatchServices()
			bt, err := batches.Get(ctx, e.BatchID)
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				return fmt.Errorf("--batch: polling %s at %s: %s", e.BatchID, llm.RedactURL(c.Config().BaseURL), c.APIError(err))
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
			return fmt.Errorf("%w: %s", ErrFailed, strings.Join(failed, "; "))
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
		if err := llm.Sleep(ctx, b.opt.Poll); err != nil {
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
func (b *Batcher) download(ctx context.Context, c *llm.Client, e *batchEntry, bt *openai.Batch) error {
	files, _ := c.BatchServices()
	get := func(id, suffix string) (string, error) {
		if id == "" {
			return "", nil
		}
		res, err := files.Content(ctx, id)
		if err != nil {
			return "", fmt.Errorf("--batch: downloading %s of %s: %s", id, e.BatchID, c.APIError(err))
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
		_, batches := c.BatchServices()
		bt, err := batches.Cancel(ctx, e.BatchID)
		if err != nil {
			return ids, fmt.Errorf("--batch-cancel: %s: %s", e.BatchID, c.APIError(err))
		}
		e.Status = string(bt.Status)
		e.Done, e.Why = true, "cancelled by --batch-cancel"
		ids = append(ids, e.BatchID)
	}
	return ids, b.save()
}
