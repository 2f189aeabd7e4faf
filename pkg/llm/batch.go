package llm

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/ngkit/ngkit/pkg/recio"
)

// BatchRequest is one line of an OpenAI Batch API input file.
type BatchRequest struct {
	CustomID string          `json:"custom_id"`
	Method   string          `json:"method"`
	URL      string          `json:"url"`
	Body     json.RawMessage `json:"body"`
}

// BatchResponse is one line of an OpenAI Batch API output file.
type BatchResponse struct {
	ID       string `json:"id,omitempty"`
	CustomID string `json:"custom_id"`
	Response *struct {
		StatusCode int             `json:"status_code"`
		RequestID  string          `json:"request_id,omitempty"`
		Body       json.RawMessage `json:"body"`
	} `json:"response"`
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	// Content is the reply text, for hand-made files of recorded replies
	// ({"custom_id": ..., "content": ...}) instead of a response body.
	Content *string `json:"content,omitempty"`
}

// emitter writes --emit-requests as every output is written (recio: a
// temporary file renamed when the run ends, so an interrupted run leaves
// a whole file; into a device or a pipe as it goes).
type emitter struct {
	mu   sync.Mutex
	out  *recio.Output
	w    *bufio.Writer
	seen map[string]bool
	err  error
}

func openEmitter(path string) (*emitter, error) {
	out, err := recio.Create(path, recio.JSONL, nil)
	if err != nil {
		return nil, fmt.Errorf("--emit-requests: %w", err)
	}
	return &emitter{out: out, w: bufio.NewWriterSize(out.Writer(), 64<<10), seen: map[string]bool{}}, nil
}

// add writes one request line; a custom_id already written is skipped
// (the Batch API wants them unique; one reply answers both).
func (e *emitter) add(customID string, body []byte) error {
	line, err := json.Marshal(BatchRequest{CustomID: customID, Method: "POST", URL: "/v1/chat/completions", Body: body})
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.err != nil {
		return e.err
	}
	if e.seen[customID] {
		return nil
	}
	e.seen[customID] = true
	if _, err := e.w.Write(append(line, '\n')); err != nil {
		e.err = fmt.Errorf("--emit-requests: %w", err)
	}
	return e.err
}

// close flushes and commits the file.
func (e *emitter) close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	err := e.err
	if err == nil {
		err = e.w.Flush()
	}
	if err != nil {
		e.out.Abort()
		return fmt.Errorf("--emit-requests %s: %w", e.out.Name(), err)
	}
	if err := e.out.Commit(); err != nil {
		return fmt.Errorf("--emit-requests: %w", err)
	}
	return nil
}

// recorded is one reply of a --responses file.
type recorded struct {
	body    []byte // a chat completion
	content *string
	err     string // the Batch API's error for this request
}

// loadResponses reads a Batch output file (or recorded replies in the
// same shape) into a map by custom_id.
func loadResponses(path string) (map[string]*recorded, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--responses: %w", err)
	}
	defer f.Close()
	out := map[string]*recorded{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 32<<20)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var r BatchResponse
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, fmt.Errorf("--responses %s:%d: %v", path, line, err)
		}
		if r.CustomID == "" {
			return nil, fmt.Errorf("--responses %s:%d: no custom_id", path, line)
		}
		rec := &recorded{content: r.Content}
		switch {
		case r.Error != nil:
			rec.err = fmt.Sprintf("the Batch API failed this request: %s %s", r.Error.Code, r.Error.Message)
		case r.Response != nil && r.Response.StatusCode != 0 && r.Response.StatusCode != 200:
			rec.err = fmt.Sprintf("the Batch API answered HTTP %d", r.Response.StatusCode)
		case r.Response != nil:
			rec.body = r.Response.Body
		case r.Content == nil:
			return nil, fmt.Errorf("--responses %s:%d: neither a response nor content", path, line)
		}
		out[r.CustomID] = rec
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("--responses %s: %w", path, err)
	}
	if len(out) == 0 {
		return nil, errors.New("--responses " + path + ": no replies in the file")
	}
	return out, nil
}
