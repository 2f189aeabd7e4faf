package pipeline

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/ngkit/ngkit/pkg/record"
)

// itemSource serves items as given.
type itemSource struct {
	items []Item
	i     int
}

func (s *itemSource) Next() (Item, error) {
	if s.i == len(s.items) {
		return Item{}, io.EOF
	}
	s.i++
	return s.items[s.i-1], nil
}
func (s *itemSource) Close() error { return nil }

// A RecordError puts the stage's record (a partial transcript) in the
// errors file instead of the input; an Item.Err fails its record as read,
// without the stage, and the run goes on.
func TestRecordErrorAndItemErr(t *testing.T) {
	stage := StageFunc{"s", func(_ context.Context, r *record.Record) ([]*record.Record, error) {
		if r.ID == "partial" {
			return nil, &RecordError{Record: &record.Record{ID: "partial", Turns: []record.Turn{{Text: "so far"}}}, Err: errors.New("turn 3 failed")}
		}
		if r.ID == "bad" {
			t.Error("the stage got a record that failed as read")
		}
		return []*record.Record{r}, nil
	}}
	src := &itemSource{items: []Item{
		{Rec: &record.Record{ID: "ok"}},
		{Rec: &record.Record{ID: "partial"}},
		{Rec: &record.Record{ID: "bad"}, Err: errors.New("bad episode spec: no goal"), Name: "specs.csv", Line: 3},
		{Rec: &record.Record{ID: "ok2"}},
	}}
	dir := t.TempDir()
	elog, err := OpenErrorLog(dir + "/errors.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	sink := &memSink{}
	st, err := Run(context.Background(), Config{Stage: stage, Source: src, Sink: sink, Errors: elog, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	elog.Close()
	if st.Out != 2 || st.Failed != 2 {
		t.Fatalf("stats %+v", st)
	}
	b := readFile(t, dir+"/errors.jsonl")
	for _, want := range []string{`"id":"partial","stage":"s","error":"turn 3 failed","record":{"id":"partial","turns":[{"index":0,"speaker":"","text":"so far"}]}`,
		`"id":"bad","stage":"s","error":"bad episode spec: no goal","where":"specs.csv:3"`} {
		if !strings.Contains(b, want) {
			t.Errorf("errors file has no %s:\n%s", want, b)
		}
	}
}
