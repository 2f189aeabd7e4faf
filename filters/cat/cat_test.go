package cat

import (
	"strconv"
	"testing"

	"github.com/ngkit/ngkit/pkg/pipeline"
	"github.com/ngkit/ngkit/pkg/record"
)

type mem struct {
	ids    []string
	closed bool
}

func (m *mem) Write(r *record.Record) error { m.ids = append(m.ids, r.ID); return nil }
func (m *mem) Close() error                 { m.closed = true; return nil }
func (m *mem) Abort()                       {}

func TestSampleIsOrderIndependent(t *testing.T) {
	pick := func(order []int) map[string]bool {
		m := &mem{}
		s := &Sample{Sink: m, N: 25, Seed: 3}
		for _, i := range order {
			s.Write(&record.Record{ID: strconv.Itoa(i)})
		}
		if err := s.Close(); err != nil || !m.closed || len(m.ids) != 25 {
			t.Fatalf("%v %v %d", err, m.closed, len(m.ids))
		}
		out := map[string]bool{}
		for _, id := range m.ids {
			out[id] = true
		}
		return out
	}
	fwd, rev := make([]int, 500), make([]int, 500)
	for i := range fwd {
		fwd[i], rev[i] = i, 499-i
	}
	a, b := pick(fwd), pick(rev)
	for id := range a {
		if !b[id] {
			t.Fatalf("sample depends on input order: %s", id)
		}
	}
}

func TestHeadStops(t *testing.T) {
	m := &mem{}
	h := &Head{Sink: m, N: 2}
	if h.Write(&record.Record{ID: "a"}) != nil || h.Write(&record.Record{ID: "b"}) != pipeline.ErrStop || len(m.ids) != 2 {
		t.Errorf("head: %v", m.ids)
	}
}
