package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/recio"
	"github.com/ngkit/ngkit/pkg/record"
	"github.com/spf13/pflag"
)

// execute runs stage as a program with the I/O flags and args.
func execute(t *testing.T, stage pipeline.Stage, args ...string) (int, string) {
	t.Helper()
	var f IOFlags
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	f.Register(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	env := Env{Stdin: strings.NewReader(""), Stdout: &bytes.Buffer{}, Stderr: &stderr}
	code := Exit(env, f.Execute(env, "t", RunSpec{Stage: stage, Inputs: fs.Args()}))
	return code, stderr.String()
}

func writeInput(t *testing.T, dir string, n int) string {
	t.Helper()
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "{\"id\":\"r%03d\"}\n", i)
	}
	path := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func outputIDs(t *testing.T, path string) []string {
	t.Helper()
	var ids []string
	for _, l := range strings.Split(strings.TrimSpace(readFile(t, path)), "\n") {
		if l == "" {
			continue
		}
		var r record.Record
		if err := r.UnmarshalJSON([]byte(l)); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		ids = append(ids, r.ID)
	}
	sort.Strings(ids)
	return ids
}

// A run that failed part of its records, rerun with --resume, processes
// only what is missing and ends with the ids of a complete run; the stage
// derives new records (parent_id = input id), as ngseed and ngv2r do.
func TestResumeSkipsWhatIsDone(t *testing.T) {
	dir := t.TempDir()
	in := writeInput(t, dir, 100)
	var calls atomic.Int64
	failFrom := int64(60)
	derive := pipeline.StageFunc{StageName: "derive", Fn: func(_ context.Context, r *record.Record) ([]*record.Record, error) {
		calls.Add(1)
		n, _ := strconv.Atoi(r.ID[1:])
		if int64(n) >= atomic.LoadInt64(&failFrom) {
			return nil, errors.New("interrupted")
		}
		return []*record.Record{{ID: "d" + r.ID, ParentID: r.ID}}, nil
	}}
	out := filepath.Join(dir, "out.jsonl")
	if code, _ := execute(t, derive, "-o", out, "--resume", in); code != ExitFailed {
		t.Fatalf("first run: exit %d", code)
	}
	if got := len(outputIDs(t, out)); got != 60 {
		t.Fatalf("first run wrote %d", got)
	}
	calls.Store(0)
	atomic.StoreInt64(&failFrom, 1000)
	if code, errs := execute(t, derive, "-o", out, "--resume", in); code != ExitOK {
		t.Fatalf("resume: exit %d: %s", code, errs)
	}
	if calls.Load() != 40 {
		t.Errorf("resume processed %d records, want the 40 missing", calls.Load())
	}
	ids := outputIDs(t, out)
	if len(ids) != 100 || ids[0] != "dr000" || ids[99] != "dr099" {
		t.Errorf("ids after resume: %d %v", len(ids), ids)
	}
	// Resuming a complete output processes nothing and keeps it whole.
	calls.Store(0)
	if code, _ := execute(t, derive, "-o", out, "--resume", in); code != ExitOK || calls.Load() != 0 || len(outputIDs(t, out)) != 100 {
		t.Errorf("second resume: exit %d, %d calls", code, calls.Load())
	}
}

func TestResumeNeedsAnOutputFile(t *testing.T) {
	dir := t.TempDir()
	in := writeInput(t, dir, 3)
	code, errs := execute(t, pipeline.Identity, "--resume", in)
	if code != ExitUsage || !strings.Contains(errs, "--resume needs -o FILE") {
		t.Errorf("exit %d: %s", code, errs)
	}
	// No file yet: a fresh run.
	out := filepath.Join(dir, "new.parquet")
	if code, errs := execute(t, pipeline.Identity, "--resume", "-o", out, in); code != ExitOK || len(readParquetIDs(t, out)) != 3 {
		t.Errorf("fresh resume: exit %d: %s", code, errs)
	}
}

func readParquetIDs(t *testing.T, path string) []string {
	t.Helper()
	var ids []string
	src := pipeline.NewFileSource([]string{path}, recio.OpenOptions{})
	defer src.Close()
	for {
		it, err := src.Next()
		if err != nil {
			break
		}
		ids = append(ids, it.Rec.ID)
	}
	return ids
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
