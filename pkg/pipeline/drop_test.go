package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/pkg/record"
)

// dropOdd is a sink that drops the records with odd ids.
type dropOdd struct{ memSink }

func (d *dropOdd) Write(r *record.Record) error {
	if n, _ := strconv.Atoi(r.ID); n%2 == 1 {
		return Drop("odd id %d", n)
	}
	return d.memSink.Write(r)
}

// Records dropped by a stage or a sink are counted apart from failures and
// land in the errors file with the reason.
func TestRunDropped(t *testing.T) {
	stage := StageFunc{"filter", func(_ context.Context, r *record.Record) ([]*record.Record, error) {
		if n, _ := strconv.Atoi(r.ID); n%3 == 0 {
			return nil, Drop("multiple of three")
		}
		return []*record.Record{r}, nil
	}}
	path := filepath.Join(t.TempDir(), "errors.jsonl")
	elog, err := OpenErrorLog(path)
	if err != nil {
		t.Fatal(err)
	}
	sink := &dropOdd{}
	st, err := Run(context.Background(), Config{Stage: stage, Source: SliceSource(recs(12)), Sink: sink, Errors: elog, Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	if err := elog.Close(); err != nil {
		t.Fatal(err)
	}
	// 0 3 6 9 by the stage, 1 5 7 11 by the sink; 2 4 8 10 written.
	if st.In != 12 || st.Dropped != 8 || st.Failed != 0 || st.Out != 4 || len(sink.recs) != 4 {
		t.Fatalf("stats %+v, %d written", st, len(sink.recs))
	}
	raw, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	if len(lines) != 8 || !strings.Contains(lines[0], `"dropped: multiple of three"`) || !strings.Contains(lines[1], `"dropped: odd id 1"`) {
		t.Errorf("errors file:\n%s", raw)
	}
}
