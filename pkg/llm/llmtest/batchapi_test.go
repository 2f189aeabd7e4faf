package llmtest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// The fake Batch API is driven here by the official SDK, so the shapes of
// its objects are the ones a real client decodes.
func sdk(srv *Server) (openai.FileService, openai.BatchService) {
	opts := []option.RequestOption{option.WithBaseURL(srv.URL), option.WithAPIKey("k"), option.WithMaxRetries(3)}
	return openai.NewFileService(opts...), openai.NewBatchService(opts...)
}

func batchInput(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, `{"custom_id":"r%d/call","method":"POST","url":"/v1/chat/completions","body":{"model":"m","messages":[{"role":"user","content":"q%d"}]}}`+"\n", i, i)
	}
	return b.Bytes()
}

func submit(t *testing.T, srv *Server, input []byte) *openai.Batch {
	t.Helper()
	files, batches := sdk(srv)
	ctx := context.Background()
	f, err := files.New(ctx, openai.FileNewParams{File: openai.File(bytes.NewReader(input), "in.jsonl", "application/jsonl"), Purpose: openai.FilePurposeBatch})
	if err != nil {
		t.Fatal(err)
	}
	b, err := batches.New(ctx, openai.BatchNewParams{InputFileID: f.ID, Endpoint: openai.BatchNewParamsEndpointV1ChatCompletions, CompletionWindow: openai.BatchNewParamsCompletionWindow24h})
	if err != nil {
		t.Fatal(err)
	}
	if b.Status != openai.BatchStatusValidating {
		t.Errorf("new batch %s", b.Status)
	}
	return b
}

func waitBatch(t *testing.T, srv *Server, id string) (*openai.Batch, []string) {
	t.Helper()
	_, batches := sdk(srv)
	var statuses []string
	for range 1000 {
		b, err := batches.Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if len(statuses) == 0 || statuses[len(statuses)-1] != string(b.Status) {
			statuses = append(statuses, string(b.Status))
		}
		switch b.Status {
		case openai.BatchStatusCompleted, openai.BatchStatusFailed, openai.BatchStatusExpired, openai.BatchStatusCancelled:
			return b, statuses
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("the batch never ended")
	return nil, nil
}

type line struct {
	CustomID string `json:"custom_id"`
	Response *struct {
		StatusCode int             `json:"status_code"`
		Body       json.RawMessage `json:"body"`
	} `json:"response"`
	Error *struct{ Code, Message string } `json:"error"`
}

func content(t *testing.T, srv *Server, id string) []line {
	t.Helper()
	if id == "" {
		return nil
	}
	files, _ := sdk(srv)
	res, err := files.Content(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out []line
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("%v: %s", err, sc.Bytes())
		}
		out = append(out, l)
	}
	return out
}

func TestBatchCompletes(t *testing.T) {
	srv := New(Options{Rules: []Rule{{Contains: "q", Content: "answer"}}})
	defer srv.Close()
	srv.SetBatch(BatchOptions{Validating: 20 * time.Millisecond, CompletionTime: 100 * time.Millisecond, Finalizing: 20 * time.Millisecond})
	b := submit(t, srv, batchInput(20))
	end, statuses := waitBatch(t, srv, b.ID)
	// Polling sees every phase on a quiet machine; under load a poll can
	// come after a phase ended (the fake moves on by the batch's age), so
	// what was seen is a subsequence, and the stamps say that every phase
	// was passed through.
	if got := strings.Join(statuses, ","); !isSubsequence(statuses, []string{"validating", "in_progress", "finalizing", "completed"}) || statuses[0] != "validating" {
		t.Errorf("statuses %s", got)
	}
	if end.InProgressAt == 0 || end.FinalizingAt == 0 || end.CompletedAt == 0 {
		t.Errorf("a phase without its stamp: in_progress_at %d, finalizing_at %d, completed_at %d", end.InProgressAt, end.FinalizingAt, end.CompletedAt)
	}
	if end.RequestCounts.Total != 20 || end.RequestCounts.Completed != 20 || end.RequestCounts.Failed != 0 || end.ErrorFileID != "" || end.CompletedAt == 0 {
		t.Errorf("end %+v", end.RequestCounts)
	}
	out := content(t, srv, end.OutputFileID)
	if len(out) != 20 || out[3].CustomID != "r3/call" || out[3].Response.StatusCode != 200 || !bytes.Contains(out[3].Response.Body, []byte(`"content":"answer"`)) {
		t.Fatalf("output %+v", out)
	}
	if st := srv.BatchStats(); st.Files != 1 || st.Batches != 1 || st.Lines != 20 || srv.Count() != 20 {
		t.Errorf("stats %+v, %d chat requests", st, srv.Count())
	}
}

// Partial failures: expired lines and 500 lines go to the error file;
// the rest to the output file.
func TestBatchPartialFailures(t *testing.T) {
	srv := New(Options{})
	defer srv.Close()
	srv.SetBatch(BatchOptions{ExpireShare: 0.2, FailShare: 0.2})
	b := submit(t, srv, batchInput(100))
	end, _ := waitBatch(t, srv, b.ID)
	out, errs := content(t, srv, end.OutputFileID), content(t, srv, end.ErrorFileID)
	expired, failed := 0, 0
	for _, l := range errs {
		switch {
		case l.Error != nil && l.Error.Code == "batch_expired" && l.Response == nil:
			expired++
		case l.Response != nil && l.Response.StatusCode == 500:
			failed++
		default:
			t.Errorf("error line %+v", l)
		}
	}
	if end.Status != openai.BatchStatusExpired || len(out)+len(errs) != 100 || expired < 10 || failed < 10 ||
		int(end.RequestCounts.Completed) != len(out) || int(end.RequestCounts.Failed) != len(errs) {
		t.Errorf("status %s: %d out, %d expired, %d failed, counts %+v", end.Status, len(out), expired, failed, end.RequestCounts)
	}
}

// A batch that fails validation says why; API faults are retried by the
// client; a cancelled batch keeps what it ran.
func TestBatchInvalidFaultsCancel(t *testing.T) {
	srv := New(Options{})
	defer srv.Close()
	srv.SetBatch(BatchOptions{APIFaults: []int{500, 429}})
	bad := append(batchInput(2), []byte(`{"custom_id":"r0/call","method":"POST","url":"/v1/chat/completions","body":{}}`+"\n")...)
	b := submit(t, srv, bad)
	end, _ := waitBatch(t, srv, b.ID)
	if end.Status != openai.BatchStatusFailed || len(end.Errors.Data) != 1 || end.Errors.Data[0].Code != "duplicate_custom_id" || end.Errors.Data[0].Line != 3 {
		t.Errorf("failed batch %s %+v", end.Status, end.Errors)
	}
	srv.SetBatch(BatchOptions{Invalid: "Model gpt-x is not available for batch"})
	end, _ = waitBatch(t, srv, submit(t, srv, batchInput(1)).ID)
	if end.Status != openai.BatchStatusFailed || end.Errors.Data[0].Message != "Model gpt-x is not available for batch" {
		t.Errorf("invalid batch %s %+v", end.Status, end.Errors)
	}

	srv.SetBatch(BatchOptions{CompletionTime: time.Hour})
	b = submit(t, srv, batchInput(5))
	_, batches := sdk(srv)
	c, err := batches.Cancel(context.Background(), b.ID)
	if err != nil || c.Status != openai.BatchStatusCancelling {
		t.Fatalf("cancel: %v %+v", err, c)
	}
	end, _ = waitBatch(t, srv, b.ID)
	if end.Status != openai.BatchStatusCancelled || end.CancelledAt == 0 || end.OutputFileID != "" {
		t.Errorf("cancelled %+v", end)
	}
	files, _ := sdk(srv)
	if _, err := files.New(context.Background(), openai.FileNewParams{File: openai.File(strings.NewReader("x"), "a", "text/plain"), Purpose: openai.FilePurposeFineTune}); err == nil {
		t.Error("a fine-tune upload was taken")
	}
	res, err := files.Content(context.Background(), b.InputFileID)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !bytes.Equal(got, batchInput(5)) {
		t.Errorf("input file content %q", got)
	}
}

// isSubsequence says whether seen is all in order of want, with none
// but want's and the last of want last.
func isSubsequence(seen, want []string) bool {
	i := 0
	for _, s := range seen {
		for i < len(want) && want[i] != s {
			i++
		}
		if i == len(want) {
			return false
		}
	}
	return len(seen) > 0 && seen[len(seen)-1] == want[len(want)-1]
}
