package batch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ngkit/ngkit/pkg/llm"
	"github.com/ngkit/ngkit/pkg/recio"
	"github.com/openai/openai-go/v3"
)

// Submit sends the requests of the last pass that no batch holds yet, as
// one or more input files per endpoint (split at MaxRequests and
// MaxBytes); it returns how many it sent. Each step is in state.json
// before the next is taken.
func (b *Batcher) Submit(ctx context.Context) (int, error) {
	if err := b.resubmit(ctx); err != nil {
		return 0, err
	}
	round := b.st.Round + 1
	news := map[string][]llm.PendingRequest{}
	total := 0
	for _, a := range b.aliases {
		for _, r := range b.clients[a].TakeEmitted() {
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
func (b *Batcher) writeInputs(alias string, round int, reqs []llm.PendingRequest) ([]*batchEntry, error) {
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
func batchLine(r llm.PendingRequest) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(llm.BatchRequest{CustomID: r.CustomID, Method: "POST", URL: "/v1/chat/completions", Body: r.Body}); err != nil {
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

// send uploads one input file and creates its batch, saving the state
// after each step.
func (b *Batcher) send(ctx context.Context, c *llm.Client, e *batchEntry) error {
	files, batches := c.BatchServices()
	if e.FileID == "" {
		data, err := os.ReadFile(filepath.Join(b.opt.Dir, e.Input))
		if err != nil {
			return fmt.Errorf("--batch-state: %w", err)
		}
		f, err := files.New(ctx, openai.FileNewParams{File: openai.File(bytes.NewReader(data), e.Input, "application/jsonl"), Purpose: openai.FilePurposeBatch})
		if err != nil {
			return fmt.Errorf("--batch: uploading %s to %s: %s", e.Input, llm.RedactURL(c.Config().BaseURL), c.APIError(err))
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
			return fmt.Errorf("--batch: listing the batches at %s: %s", llm.RedactURL(c.Config().BaseURL), c.APIError(err))
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
		return fmt.Errorf("--batch: creating the batch of %s at %s: %s", e.Input, llm.RedactURL(c.Config().BaseURL), c.APIError(err))
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

// plural is "1 request", "2 requests".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
