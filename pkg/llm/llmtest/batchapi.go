package llmtest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/ngkit/ngkit/internal/canned/wire"
	"github.com/ngkit/ngkit/pkg/record"
)

// BatchOptions configure the fake Batch API of a Server (the OpenAI
// files and batches endpoints: POST /v1/files, GET /v1/files/{id},
// GET /v1/files/{id}/content, POST /v1/batches, GET /v1/batches/{id},
// POST /v1/batches/{id}/cancel). Each line of a batch is answered by the
// server's chat-completions handler, so Rules, Reply and the faults of
// Options apply to batch lines as they do online.
type BatchOptions struct {
	// Validating is how long a new batch stays validating.
	Validating time.Duration
	// CompletionTime is how long a batch stays in_progress: its lines are
	// answered in proportion to the time spent (request_counts grow at
	// each poll). 0: all at the first poll after validation.
	CompletionTime time.Duration
	// Finalizing is how long a batch stays finalizing before completed.
	Finalizing time.Duration
	// ExpireShare is the share of lines (drawn by a hash of custom_id) not
	// run before the completion window closes: the batch ends expired,
	// with those lines in its error file (error code batch_expired).
	ExpireShare float64
	// FailShare is the share of lines (by a hash of custom_id) answered
	// with an HTTP 500 response line in the error file.
	FailShare float64
	// Invalid, when set, fails every batch at validation with this
	// message (status failed, errors.data[0].message).
	Invalid string
	// APIFaults are the HTTP statuses the files and batches endpoints
	// answer to their first requests, in order (0 for a normal answer),
	// for retries of the Batch API calls themselves.
	APIFaults []int
}

// BatchStats count what the fake Batch API was asked.
type BatchStats struct {
	Files     int // uploads
	Batches   int // batches created
	Cancelled int // cancel requests
	Lines     int // batch lines answered
	Polls     int // GET /v1/batches/{id}
}

type fakeFile struct {
	id, name, purpose string
	data              []byte
	created           int64
}

type fakeBatch struct {
	id, input, window, status string
	created                   time.Time
	header                    http.Header
	lines                     []BatchLine
	done                      int // lines answered (or skipped as expired)
	out, errs                 bytes.Buffer
	completed, failed         int
	stamps                    map[string]int64
	errors                    []map[string]any
	outputID, errorID         string
	metadata                  map[string]string
}

// BatchLine is one request line of a batch input file.
type BatchLine struct {
	CustomID string          `json:"custom_id"`
	Method   string          `json:"method"`
	URL      string          `json:"url"`
	Body     json.RawMessage `json:"body"`
}

type batchAPI struct {
	mu      sync.Mutex
	opt     BatchOptions
	files   map[string]*fakeFile
	batches map[string]*fakeBatch
	order   []string
	stats   BatchStats
	faulted int
	n       int
}

// batchAPIs holds each server's Batch API state (kept apart from Server
// so that the online fake is unchanged).
var batchAPIs sync.Map // *Server -> *batchAPI

func (s *Server) batchAPI() *batchAPI {
	if b, ok := batchAPIs.Load(s); ok {
		return b.(*batchAPI)
	}
	b, _ := batchAPIs.LoadOrStore(s, &batchAPI{files: map[string]*fakeFile{}, batches: map[string]*fakeBatch{}})
	return b.(*batchAPI)
}

// SetBatch sets the options of the server's fake Batch API; batches
// already created keep running under the new ones.
func (s *Server) SetBatch(opt BatchOptions) {
	b := s.batchAPI()
	b.mu.Lock()
	b.opt = opt
	b.faulted = 0
	b.mu.Unlock()
}

// BatchStats returns the counts of the fake Batch API so far.
func (s *Server) BatchStats() BatchStats {
	b := s.batchAPI()
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.stats
}

// BatchInputs returns the custom_ids of every batch created, batch by
// batch in creation order.
func (s *Server) BatchInputs() [][]string {
	b := s.batchAPI()
	b.mu.Lock()
	defer b.mu.Unlock()
	var out [][]string
	for _, id := range b.order {
		var ids []string
		for _, l := range b.batches[id].lines {
			ids = append(ids, l.CustomID)
		}
		out = append(out, ids)
	}
	return out
}

// isBatchPath tells the routes of the Batch API.
func isBatchPath(p string) bool {
	return strings.Contains(p, "/files") || strings.Contains(p, "/batches")
}

func (s *Server) serveBatch(w http.ResponseWriter, r *http.Request) {
	b := s.batchAPI()
	if s.opt.APIKey != "" && strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ") != s.opt.APIKey {
		wire.WriteError(w, http.StatusUnauthorized, "Incorrect API key provided", nil)
		return
	}
	b.mu.Lock()
	if b.faulted < len(b.opt.APIFaults) {
		st := b.opt.APIFaults[b.faulted]
		b.faulted++
		if st != 0 && st != http.StatusOK {
			b.mu.Unlock()
			wire.WriteError(w, st, "injected Batch API fault", http.Header{"Retry-After-Ms": {"10"}})
			return
		}
	}
	b.mu.Unlock()
	path := r.URL.Path[strings.Index(r.URL.Path, "/v1/")+3:]
	parts := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case r.Method == http.MethodPost && path == "/files":
		s.uploadFile(b, w, r)
	case r.Method == http.MethodGet && len(parts) == 2 && parts[0] == "files":
		if f := b.file(w, parts[1]); f != nil {
			writeJSON(w, fileObject(f))
		}
	case r.Method == http.MethodGet && len(parts) == 3 && parts[0] == "files" && parts[2] == "content":
		if f := b.file(w, parts[1]); f != nil {
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Write(f.data)
		}
	case r.Method == http.MethodPost && path == "/batches":
		s.createBatch(b, w, r)
	case r.Method == http.MethodGet && path == "/batches":
		// The list, newest first, in one page (after= and limit= ignored).
		b.mu.Lock()
		var data []map[string]any
		for i := len(b.order) - 1; i >= 0; i-- {
			data = append(data, batchObject(b.batches[b.order[i]]))
		}
		b.mu.Unlock()
		list := map[string]any{"object": "list", "data": data, "has_more": false}
		if len(data) > 0 {
			list["first_id"], list["last_id"] = data[0]["id"], data[len(data)-1]["id"]
		}
		writeJSON(w, list)
	case r.Method == http.MethodGet && len(parts) == 2 && parts[0] == "batches":
		b.mu.Lock()
		b.stats.Polls++
		bt := b.batches[parts[1]]
		if bt != nil {
			s.advance(b, bt)
		}
		b.mu.Unlock()
		if bt == nil {
			wire.WriteError(w, http.StatusNotFound, "No such Batch object: "+parts[1], nil)
			return
		}
		b.mu.Lock()
		obj := batchObject(bt)
		b.mu.Unlock()
		writeJSON(w, obj)
	case r.Method == http.MethodPost && len(parts) == 3 && parts[0] == "batches" && parts[2] == "cancel":
		b.mu.Lock()
		bt := b.batches[parts[1]]
		if bt != nil {
			b.stats.Cancelled++
			s.advance(b, bt)
			switch bt.status {
			case "validating", "in_progress", "finalizing":
				bt.status = "cancelling"
				bt.stamps["cancelling_at"] = time.Now().Unix()
			}
		}
		var obj map[string]any
		if bt != nil {
			obj = batchObject(bt)
		}
		b.mu.Unlock()
		if bt == nil {
			wire.WriteError(w, http.StatusNotFound, "No such Batch object: "+parts[1], nil)
			return
		}
		writeJSON(w, obj)
	default:
		wire.WriteError(w, http.StatusNotFound, "no route "+r.Method+" "+r.URL.Path, nil)
	}
}

func (s *Server) uploadFile(b *batchAPI, w http.ResponseWriter, r *http.Request) {
	if err := r.ParseMultipartForm(64 << 20); err != nil {
		wire.WriteError(w, http.StatusBadRequest, "want a multipart/form-data body: "+err.Error(), nil)
		return
	}
	purpose := r.FormValue("purpose")
	if purpose != "batch" {
		wire.WriteError(w, http.StatusBadRequest, fmt.Sprintf("purpose %q: this fake takes only batch", purpose), nil)
		return
	}
	f, h, err := r.FormFile("file")
	if err != nil {
		wire.WriteError(w, http.StatusBadRequest, "no file part: "+err.Error(), nil)
		return
	}
	data, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		return
	}
	b.mu.Lock()
	b.n++
	b.stats.Files++
	ff := &fakeFile{id: fmt.Sprintf("file-fake%d", b.n), name: h.Filename, purpose: purpose, data: data, created: time.Now().Unix()}
	b.files[ff.id] = ff
	b.mu.Unlock()
	writeJSON(w, fileObject(ff))
}

func (s *Server) createBatch(b *batchAPI, w http.ResponseWriter, r *http.Request) {
	var req struct {
		InputFileID      string            `json:"input_file_id"`
		Endpoint         string            `json:"endpoint"`
		CompletionWindow string            `json:"completion_window"`
		Metadata         map[string]string `json:"metadata"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		wire.WriteError(w, http.StatusBadRequest, "request is not JSON: "+err.Error(), nil)
		return
	}
	switch {
	case req.Endpoint != "/v1/chat/completions":
		wire.WriteError(w, http.StatusBadRequest, fmt.Sprintf("endpoint %q: this fake serves /v1/chat/completions", req.Endpoint), nil)
		return
	case req.CompletionWindow != "24h":
		wire.WriteError(w, http.StatusBadRequest, fmt.Sprintf("completion_window %q: only 24h is supported", req.CompletionWindow), nil)
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.files[req.InputFileID] == nil {
		wire.WriteError(w, http.StatusBadRequest, "No such File object: "+req.InputFileID, nil)
		return
	}
	b.n++
	b.stats.Batches++
	bt := &fakeBatch{id: fmt.Sprintf("batch_fake%d", b.n), input: req.InputFileID, window: req.CompletionWindow, status: "validating",
		created: time.Now(), header: r.Header.Clone(), stamps: map[string]int64{}, metadata: req.Metadata}
	b.batches[bt.id] = bt
	b.order = append(b.order, bt.id)
	writeJSON(w, batchObject(bt))
}

// advance moves a batch along its statuses by the time since it was
// created (b.mu held).
func (s *Server) advance(b *batchAPI, bt *fakeBatch) {
	now := time.Now()
	age := now.Sub(bt.created)
	o := b.opt
	switch bt.status {
	case "validating":
		if age < o.Validating {
			return
		}
		if msg := s.validate(b, bt); msg != nil {
			bt.status = "failed"
			bt.stamps["failed_at"] = now.Unix()
			bt.errors = []map[string]any{msg}
			return
		}
		bt.status = "in_progress"
		bt.stamps["in_progress_at"] = now.Unix()
		fallthrough
	case "in_progress":
		want := len(bt.lines)
		if o.CompletionTime > 0 && age-o.Validating < o.CompletionTime {
			want = int(float64(len(bt.lines)) * float64(age-o.Validating) / float64(o.CompletionTime))
		}
		for bt.done < want {
			s.runLine(b, bt, bt.lines[bt.done])
			bt.done++
		}
		if bt.done < len(bt.lines) {
			return
		}
		bt.status = "finalizing"
		bt.stamps["finalizing_at"] = now.Unix()
		fallthrough
	case "finalizing":
		if age < o.Validating+o.CompletionTime+o.Finalizing {
			return
		}
		final := "completed"
		if o.ExpireShare > 0 && bt.expiredAny(o.ExpireShare) {
			final = "expired"
		}
		s.finish(b, bt, final)
	case "cancelling":
		s.finish(b, bt, "cancelled")
	}
}

func (bt *fakeBatch) expiredAny(share float64) bool {
	for _, l := range bt.lines {
		if drawn(l.CustomID, "expire", share) {
			return true
		}
	}
	return false
}

// validate reads the input file; a problem is the batch's error.
func (s *Server) validate(b *batchAPI, bt *fakeBatch) map[string]any {
	if b.opt.Invalid != "" {
		return map[string]any{"code": "invalid_request", "message": b.opt.Invalid, "line": nil, "param": nil}
	}
	f := b.files[bt.input]
	sc := bufio.NewScanner(bytes.NewReader(f.data))
	sc.Buffer(nil, 64<<20)
	seen := map[string]bool{}
	n := 0
	for sc.Scan() {
		n++
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var l BatchLine
		bad := func(code, msg string) map[string]any {
			return map[string]any{"code": code, "message": msg, "line": n, "param": nil}
		}
		switch err := json.Unmarshal(sc.Bytes(), &l); {
		case err != nil:
			return bad("invalid_json", "This line is not parseable as valid JSON.")
		case l.CustomID == "":
			return bad("missing_required_parameter", "Missing required parameter: 'custom_id'.")
		case seen[l.CustomID]:
			return bad("duplicate_custom_id", fmt.Sprintf("The custom_id for this request is a duplicate of another request: %s.", l.CustomID))
		case l.Method != "POST" || l.URL != "/v1/chat/completions":
			return bad("invalid_url", "The URL provided for this request does not match the batch endpoint.")
		}
		seen[l.CustomID] = true
		bt.lines = append(bt.lines, l)
	}
	if len(bt.lines) == 0 {
		return map[string]any{"code": "empty_file", "message": "The batch input file is empty.", "line": nil, "param": nil}
	}
	return nil
}

// runLine answers one line with the online handler (b.mu held).
func (s *Server) runLine(b *batchAPI, bt *fakeBatch, l BatchLine) {
	b.stats.Lines++
	o := b.opt
	if o.ExpireShare > 0 && drawn(l.CustomID, "expire", o.ExpireShare) {
		return // written as expired when the batch ends
	}
	rid := fmt.Sprintf("req_fake_%s_%d", bt.id, b.stats.Lines)
	line := map[string]any{"id": "batch_req_" + rid, "custom_id": l.CustomID, "error": nil}
	status, body := http.StatusInternalServerError, []byte(`{"error":{"message":"The server had an error while processing your request","type":"server_error","code":null}}`)
	if !(o.FailShare > 0 && drawn(l.CustomID, "fail", o.FailShare)) {
		status, body = s.online(bt.header, l.Body)
	}
	if !json.Valid(body) { // a cut body (the Malformed fault): as a provider would record it
		body, _ = json.Marshal(map[string]any{"error": map[string]any{"message": "malformed upstream reply", "type": "server_error"}})
		status = http.StatusInternalServerError
	}
	line["response"] = map[string]any{"status_code": status, "request_id": rid, "body": json.RawMessage(body)}
	enc, _ := json.Marshal(line)
	if status == http.StatusOK {
		bt.completed++
		bt.out.Write(append(enc, '\n'))
	} else {
		bt.failed++
		bt.errs.Write(append(enc, '\n'))
	}
}

// online runs one request through the chat-completions handler.
func (s *Server) online(h http.Header, body []byte) (int, []byte) {
	// Slow replies end quickly: a batch has no per-request timeout.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	req := httptest.NewRequest(http.MethodPost, "/v1/chat/completions", bytes.NewReader(body)).WithContext(ctx)
	req.Header = h.Clone()
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	dropped := func() (d bool) {
		defer func() {
			if recover() != nil {
				d = true
			}
		}()
		s.ServeHTTP(rec, req)
		return false
	}()
	if dropped || rec.Code == 0 || (rec.Code == http.StatusOK && rec.Body.Len() == 0) {
		return http.StatusInternalServerError, []byte(`{"error":{"message":"The server had an error while processing your request","type":"server_error"}}`)
	}
	return rec.Code, rec.Body.Bytes()
}

// finish ends a batch with its output and error files (b.mu held).
func (s *Server) finish(b *batchAPI, bt *fakeBatch, status string) {
	now := time.Now().Unix()
	// Lines a cancelled batch did not run are left out of both files.
	if status == "expired" {
		for _, l := range bt.lines {
			if !drawn(l.CustomID, "expire", b.opt.ExpireShare) {
				continue
			}
			bt.failed++
			enc, _ := json.Marshal(map[string]any{"id": "batch_req_expired_" + l.CustomID, "custom_id": l.CustomID, "response": nil,
				"error": map[string]any{"code": "batch_expired", "message": "This request could not be executed before the completion window expired."}})
			bt.errs.Write(append(enc, '\n'))
		}
	}
	keep := func(buf *bytes.Buffer, name string) string {
		if buf.Len() == 0 {
			return ""
		}
		b.n++
		f := &fakeFile{id: fmt.Sprintf("file-fake%d", b.n), name: name, purpose: "batch_output", data: append([]byte(nil), buf.Bytes()...), created: now}
		b.files[f.id] = f
		return f.id
	}
	bt.outputID = keep(&bt.out, bt.id+"_output.jsonl")
	bt.errorID = keep(&bt.errs, bt.id+"_error.jsonl")
	bt.status = status
	bt.stamps[status+"_at"] = now
}

// drawn is a stable draw of share for a custom_id.
func drawn(customID, what string, share float64) bool {
	h := fnv.New64a()
	h.Write([]byte(what + "\x00" + customID))
	return float64(record.Mix64(h.Sum64())>>11)/float64(1<<53) < share
}

func fileObject(f *fakeFile) map[string]any {
	return map[string]any{"id": f.id, "object": "file", "bytes": len(f.data), "created_at": f.created,
		"filename": f.name, "purpose": f.purpose, "status": "processed"}
}

func batchObject(bt *fakeBatch) map[string]any {
	o := map[string]any{"id": bt.id, "object": "batch", "endpoint": "/v1/chat/completions", "errors": nil,
		"input_file_id": bt.input, "completion_window": bt.window, "status": bt.status,
		"output_file_id": nilIfEmpty(bt.outputID), "error_file_id": nilIfEmpty(bt.errorID),
		"created_at": bt.created.Unix(), "expires_at": bt.created.Add(24 * time.Hour).Unix(),
		"request_counts": map[string]int{"total": len(bt.lines), "completed": bt.completed, "failed": bt.failed},
		"metadata":       bt.metadata}
	for _, k := range []string{"in_progress_at", "finalizing_at", "completed_at", "failed_at", "expired_at", "cancelling_at", "cancelled_at"} {
		if v, ok := bt.stamps[k]; ok {
			o[k] = v
		} else {
			o[k] = nil
		}
	}
	if len(bt.errors) > 0 {
		o["errors"] = map[string]any{"object": "list", "data": bt.errors}
	}
	return o
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// file is the uploaded file id, or nil after a 404 written to w.
func (b *batchAPI) file(w http.ResponseWriter, id string) *fakeFile {
	b.mu.Lock()
	f := b.files[id]
	b.mu.Unlock()
	if f == nil {
		wire.WriteError(w, http.StatusNotFound, "No such File object: "+id, nil)
	}
	return f
}
